# tests/unit/collect: the online stream assembler and the grammar consumer
# against the offline decoder (randomized batch orders, nested signals, gaps).
COLLECT_TEST_DIR := $(BUILD)/tests/unit/collect
# test_online: the assembler and grammar consumer vs the offline decoder;
# test_worker: grammars on the collector's worker thread vs the same
# consumer run inline; test_repeat: WPP_CTRL_REPEAT in the grammar's word
# reader vs the expanded stream; test_thread_loads: the worker's table of open
# threads vs a plain list; test_path_tally: top's live path counts vs what a
# simulated runtime executed.
COLLECT_TEST_NAMES := test_online test_worker test_repeat test_thread_loads test_path_tally
COLLECT_TESTS := $(addprefix $(COLLECT_TEST_DIR)/,$(COLLECT_TEST_NAMES))
COLLECT_TEST_SAN_OBJS := $(call objs,san,$(addprefix tests/unit/collect/,$(addsuffix .c,$(COLLECT_TEST_NAMES))))

$(COLLECT_TESTS): $(COLLECT_TEST_DIR)/%: $(call objs,san,tests/unit/collect/%.c) \
		$(COLLECT_SAN_OBJS) $(ANALYSIS_SAN_OBJS) $(DECODE_SAN_OBJS) $(SYMBOLIZER_SAN_OBJS) \
		$(WPPREAD_SAN_OBJS) $(call objs,san,user/common/wppfile_write.c $(CODEC_WRITE_SRCS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $(sort $^) $(SYMBOLIZER_LIBS) $(CMOCKA_LIBS) -lpthread

TEST_TARGETS += $(COLLECT_TESTS)
TESTS += $(COLLECT_TESTS)
.SECONDARY: $(COLLECT_SAN_OBJS) $(COLLECT_TEST_SAN_OBJS)

# The record sink's online hook, replayed over a recorded file (e2e tests).
COLLECT_REPLAY := $(COLLECT_TEST_DIR)/replay_sink
$(COLLECT_REPLAY): $(call objs,,tests/unit/collect/replay_sink.c) $(COLLECT_OBJS) $(ANALYSIS_OBJS) \
		$(DECODE_OBJS) $(SYMBOLIZER_OBJS) $(WPPREAD_OBJS) $(call objs,,user/common/wppfile_write.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(sort $^) $(SYMBOLIZER_LIBS) -lpthread
TEST_TARGETS += $(COLLECT_REPLAY)
