# tests/e2e/keepup.mk — compressed recordings (issue 23): round trips
# against raw recordings, an independent reader, fault injection, a spin
# loop's bytes per second.  Included by tests/module.mk.
TESTS += tests/e2e/keepup-compress.sh
CLEAN_DIRS += tests/work/oracle/keepup
