# tests: each room keeps its own fragment under tests/unit/<room>/ and
# tests/e2e/; they append to TEST_TARGETS (things to build) and TESTS
# (executables that must exit 0).
CMOCKA_LIBS := -lcmocka
-include $(wildcard tests/unit/*/module.mk)
-include tests/fuzz/module.mk
-include tests/e2e/module.mk
-include $(filter-out tests/e2e/module.mk,$(wildcard tests/e2e/*.mk))
# Real third-party programs (Debian sources: lua, zlib, bzip2, xz, pinned
# in scripts/real/sources.lock): output identity and the paths-vs-blocks
# differential oracle on their workloads; the pins hold under any apt setup.
TESTS += tests/real/pinned-sources.sh tests/real/run-oracles tests/real/count-oracle tests/real/guided-oracle \
	tests/real/wet-query
