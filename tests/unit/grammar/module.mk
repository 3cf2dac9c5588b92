# tests/unit/grammar: SEQUITUR(1) grammars, the WPP DAG and hot subpaths
# (user/analysis/grammar/) against brute force and their chunk formats.
# The library itself is defined in user/analysis/grammar/module.mk.

SEQ_TEST_DIR := $(BUILD)/tests/sequitur
SEQ_TEST_HELPERS := tests/unit/grammar/test_util.c tests/unit/grammar/tracegen.c
SEQ_TEST_NAMES := test_sequitur test_serial test_wppdag test_hotsub test_rc test_recency \
	test_digram test_chunked
SEQ_TESTS := $(addprefix $(SEQ_TEST_DIR)/,$(SEQ_TEST_NAMES))

$(SEQ_TEST_DIR)/%: $(call objs,san,tests/unit/grammar/%.c) \
		$(call objs,san,$(SEQ_TEST_HELPERS)) $(ANALYSIS_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $^ -o $@ $(CMOCKA_LIBS) -lm -lpthread

TEST_TARGETS += $(SEQ_TESTS)
TESTS += $(SEQ_TESTS)

# Keep the objects: the pattern rule above would otherwise treat them as
# intermediate files and delete them after every link.
.SECONDARY: $(ANALYSIS_SAN_OBJS) $(call objs,san,$(SEQ_TEST_HELPERS)) \
	$(call objs,san,$(addprefix tests/unit/grammar/,$(addsuffix .c,$(SEQ_TEST_NAMES))))
