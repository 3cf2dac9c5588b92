# tests/unit/counters: the pure parts of counter support (scaling of
# multiplexed readings, perf event names), under ASan/UBSan.
COUNTERSTEST_BIN := $(BUILD)/tests/unit/counters/test_counters
COUNTERSTEST_DEPS := $(call objs,san,user/report/cost_scale.c user/bpfcollect/perf_events.c \
	user/common/log.c)

$(COUNTERSTEST_BIN): tests/unit/counters/test_counters.c $(COUNTERSTEST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BPFCOLLECT_CPPFLAGS) -Iuser/report $(CFLAGS) $(SANFLAGS) -o $@ $< $(COUNTERSTEST_DEPS) \
		$(CMOCKA_LIBS)

TEST_TARGETS += $(COUNTERSTEST_BIN)
TESTS += $(COUNTERSTEST_BIN)
