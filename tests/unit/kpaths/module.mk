# tests/unit/kpaths: k-slab forests and k-IPFs against a brute-force n-gram
# counter, pruning bounds, chunk round trips and corrupt chunks.

KSLAB_TEST_DIR := $(BUILD)/tests/kslab
KSLAB_TEST_NAMES := test_kslab test_kipf_serial test_kslab_online test_kslab_act \
	test_kslab_repeat
KSLAB_TESTS := $(addprefix $(KSLAB_TEST_DIR)/,$(KSLAB_TEST_NAMES))
KSLAB_TEST_HELPERS := tests/unit/kpaths/ngram_ref.c tests/unit/kpaths/streams.c \
	tests/unit/kpaths/forest_check.c tests/unit/kpaths/act_streams.c
KSLAB_CORE_SRCS := $(KSLAB_SRCS) user/decode/trace_words.c user/common/log.c
# The online consumer writes through the .wpp writer; its test reads back.
KSLAB_ONLINE_SRCS := user/collect/kslab_online.c user/common/wppfile_write.c \
	user/common/wppfile_read.c user/common/crc32c.c user/common/in_file.c user/common/out_file.c

$(KSLAB_TEST_DIR)/%: $(call objs,san,tests/unit/kpaths/%.c) $(call objs,san,$(KSLAB_TEST_HELPERS)) \
		$(call objs,san,$(KSLAB_CORE_SRCS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $^ -o $@ $(CMOCKA_LIBS)

$(KSLAB_TEST_DIR)/test_kslab_online: $(call objs,san,$(KSLAB_ONLINE_SRCS))

TEST_TARGETS += $(KSLAB_TESTS)
TESTS += $(KSLAB_TESTS)

.SECONDARY: $(call objs,san,$(KSLAB_CORE_SRCS) $(KSLAB_TEST_HELPERS) $(KSLAB_ONLINE_SRCS)) \
	$(call objs,san,$(addprefix tests/unit/kpaths/,$(addsuffix .c,$(KSLAB_TEST_NAMES))))

# The per-activation online consumer replayed on a real .wpp against the
# offline forests (tests/e2e/kpaths-online-act.sh): built optimized, linked
# with the decoder and the symbolizer as bin/wpptrace is.
KSLAB_REPLAY := $(KSLAB_TEST_DIR)/replay_online_act
$(KSLAB_REPLAY): $(sort $(call objs,,tests/unit/kpaths/replay_online_act.c) $(KSLAB_OBJS) \
		$(COLLECT_KPATHS_OBJS) \
		$(DECODE_OBJS) $(SYMBOLIZER_OBJS) $(COMMON_OBJS) $(CODEC_OBJS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ $(SYMBOLIZER_LIBS)

TEST_TARGETS += $(KSLAB_REPLAY)

# The decoder, the grammar consumer and the k-path reader against one
# independent expansion of hostile word streams (one raw-word reader).
KSLAB_AGREE := $(KSLAB_TEST_DIR)/test_words_agree
$(KSLAB_AGREE): $(sort $(call objs,san,tests/unit/kpaths/test_words_agree.c \
		tests/unit/decode/testlib.c $(KSLAB_TEST_HELPERS) $(KSLAB_SRCS)) \
		$(COLLECT_SAN_OBJS) $(ANALYSIS_SAN_OBJS) $(DECODE_SAN_OBJS) $(SYMBOLIZER_SAN_OBJS) \
		$(WPPREAD_SAN_OBJS) $(call objs,san,user/common/wppfile_write.c))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(SYMBOLIZER_LIBS) $(CMOCKA_LIBS) -lpthread
TEST_TARGETS += $(KSLAB_AGREE)
TESTS += $(KSLAB_AGREE)
.SECONDARY: $(call objs,san,tests/unit/kpaths/test_words_agree.c)

# Attributed samples of a counter as JSON lines, for the per-instance cost
# brute force of tests/e2e/kpaths-cost.sh (built with the report's
# attribution, as bin/wpptrace is).
KSLAB_DUMP_HITS := $(KSLAB_TEST_DIR)/dump_hits
$(KSLAB_DUMP_HITS): $(sort $(call objs,,tests/unit/kpaths/dump_hits.c) $(COSTS_OBJS) \
		$(DECODE_OBJS) $(call objs,,user/common/json_out.c) \
		$(SYMBOLIZER_OBJS) $(WPPREAD_OBJS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ $(SYMBOLIZER_LIBS)
TEST_TARGETS += $(KSLAB_DUMP_HITS)
