# tests/e2e/wet.mk — recording whole execution traces (wppcc -fwpp-mode=wet):
# the corpus read the same in paths and wet mode, and an oracle program's own
# account of its loads and stores against `wpptrace wet dump` (needs root for
# the BPF half; SKIPs without it).  Included after tests/e2e/module.mk.
TESTS += tests/e2e/wet-record.sh tests/e2e/wet-query.sh
