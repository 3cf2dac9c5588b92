# tests/e2e/wpp.mk — whole program path grammars and hot subpaths end to
# end (GRAMMAR room).  Included by tests/module.mk after tests/e2e/module.mk.
TESTS += tests/e2e/wpp-grammar.sh tests/e2e/wpp-raw.sh tests/e2e/hot-cli.sh
# wpp-grammar.sh replays recordings through the record sink's online hook.
TEST_TARGETS += $(COLLECT_REPLAY)
CLEAN_DIRS += tests/work/wpp-grammar tests/work/wpp-raw tests/work/hot-cli
