# End-to-end tests and oracles (ORACLE room).  Each script builds what it
# needs from tests/corpus/ with bin/wppcc into tests/work/ and exits 0 on
# success; see tests/oracle/lib.sh.  They need bin/wppcc, bin/wpptrace and
# the runtime, which `make test` builds first (target all).
TESTS += tests/e2e/oracle_selfcheck.sh \
	tests/e2e/output_identity.sh \
	tests/e2e/oracle_blocks.sh \
	tests/e2e/oracle_entry_exit.sh \
	tests/e2e/negative_wpp.sh \
	tests/e2e/negative_wppcc.sh \
	tests/e2e/cc_project.sh \
	tests/e2e/profile-placement.sh \
	tests/e2e/profile-placement-modes.sh \
	tests/e2e/profile-program.sh \
	tests/e2e/count-mode.sh \
	tests/e2e/count-attach.sh \
	tests/e2e/count-kill.sh \
	tests/e2e/ppp-interesting.sh \
	tests/e2e/count-cli.sh \
	tests/e2e/ppp-mode.sh \
	tests/e2e/tpp-mode.sh \
	tests/e2e/format.sh \
	tests/e2e/cli-help.sh \
	tests/e2e/dual.sh \
	tests/e2e/dual-random.sh \
	tests/e2e/dual-tests.sh
CLEAN_DIRS += tests/work

# count-mode.sh's live reader: user/bpfcollect/count_snapshot.c as a tool.
COUNT_PEEK := $(BUILD)/tests/e2e/count_peek
$(call objs,,tests/e2e/count/count_peek.c): CPPFLAGS += $(BPFCOLLECT_CPPFLAGS)
$(COUNT_PEEK): $(call objs,,tests/e2e/count/count_peek.c) $(BPFCOLLECT_LIB) $(SYMBOLIZER_OBJS) \
		$(call objs,,user/common/log.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $^ $(SYMBOLIZER_LIBS) $(BPFCOLLECT_LDLIBS)
TEST_TARGETS += $(COUNT_PEEK)
