# tests/unit/costs: the pure parts of counter support (scaling of
# multiplexed readings, perf event names), under ASan/UBSan.
COUNTERSTEST_BIN := $(BUILD)/tests/unit/costs/test_counters
COUNTERSTEST_DEPS := $(call objs,san,user/costs/cost_scale.c user/bpfcollect/perf_events.c \
	user/common/log.c)

$(COUNTERSTEST_BIN): tests/unit/costs/test_counters.c $(COUNTERSTEST_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(BPFCOLLECT_CPPFLAGS) $(CFLAGS) $(SANFLAGS) -o $@ $< $(COUNTERSTEST_DEPS) \
		$(CMOCKA_LIBS)

TEST_TARGETS += $(COUNTERSTEST_BIN)
TESTS += $(COUNTERSTEST_BIN)

# Attribution of samples to path executions on a hand-made stream (runs,
# lost batches, thread ends, images), linked against the decoder.
COSTATTR_TEST_BIN := $(BUILD)/tests/unit/costs/test_cost_attr
COSTATTR_UNDER_TEST := $(call objs,san,user/costs/cost_attr.c user/costs/cost_position.c \
	user/costs/cost_run_end.c user/costs/cost_summary.c user/costs/cost_scale.c \
	user/costs/cost_select.c user/costs/cost_file.c user/common/json_out.c)
$(COSTATTR_TEST_BIN): $(call objs,san,tests/unit/costs/test_cost_attr.c) $(call objs,san,tests/unit/decode/testlib.c) \
	$(COSTATTR_UNDER_TEST) $(call objs,san,$(SYMBOLIZER_SRCS) $(DECODE_SRCS) $(WPPREAD_SRCS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(SYMBOLIZER_LIBS) $(CMOCKA_LIBS) -lpthread

TEST_TARGETS += $(COSTATTR_TEST_BIN)
TESTS += $(COSTATTR_TEST_BIN)

# The run count read from a sample's registers: DWARF location expressions,
# the count rule against a simulated loop (and two mutants), and the
# location lookup on a real wppcc -O2 -g build against llvm-dwarfdump-19, and
# attribution with hand-made samples on that build's real trace (shm).
RUNCOUNT_TEST_BIN := $(BUILD)/tests/unit/costs/test_run_count
$(RUNCOUNT_TEST_BIN): $(call objs,san,tests/unit/costs/test_run_count.c) \
	$(call objs,san,user/costs/cost_run_end.c user/costs/cost_attr.c user/costs/cost_position.c \
		user/costs/cost_scale.c) \
	$(call objs,san,$(SYMBOLIZER_SRCS) $(DECODE_SRCS) $(WPPREAD_SRCS)) | $(BIN)/wppcc $(LIBDIR)/wpp-pass.so $(BIN)/wpptrace
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $(filter %.o,$^) $(SYMBOLIZER_LIBS) $(CMOCKA_LIBS) -lpthread

TEST_TARGETS += $(RUNCOUNT_TEST_BIN)
TESTS += $(RUNCOUNT_TEST_BIN)
