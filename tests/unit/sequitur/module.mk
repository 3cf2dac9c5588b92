# SEQUITUR(1) grammars, the WPP DAG and hot subpaths (user/analysis/grammar/), their
# unit tests and the benchmark driver used by scripts/bench-sequitur.
# The library itself is defined in user/analysis/grammar/module.mk.


SEQ_TEST_DIR := $(BUILD)/tests/sequitur
SEQ_TEST_HELPERS := tests/unit/sequitur/test_util.c tests/unit/sequitur/tracegen.c
SEQ_TEST_NAMES := test_sequitur test_serial test_wppdag test_hotsub test_rc test_recency \
	test_digram test_chunked
SEQ_TESTS := $(addprefix $(SEQ_TEST_DIR)/,$(SEQ_TEST_NAMES))
SEQ_TEST_CPPFLAGS := -Iuser/analysis/grammar -Iuser/analysis/kpaths -Itests/unit/sequitur

$(call objs,san,tests/unit/sequitur/%.c) $(call objs,,tests/unit/sequitur/%.c): \
	CPPFLAGS += $(SEQ_TEST_CPPFLAGS)

$(SEQ_TEST_DIR)/%: $(call objs,san,tests/unit/sequitur/%.c) \
		$(call objs,san,$(SEQ_TEST_HELPERS)) $(ANALYSIS_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $^ -o $@ $(CMOCKA_LIBS) -lm -lpthread

# The benchmark is built optimized, without sanitizers.
SEQ_BENCH := $(SEQ_TEST_DIR)/bench_sequitur
$(SEQ_BENCH): $(call objs,,tests/unit/sequitur/bench_sequitur.c) \
		$(call objs,,tests/unit/sequitur/tracegen.c) $(ANALYSIS_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $^ -o $@ -lm -lpthread

TEST_TARGETS += $(SEQ_TESTS) $(SEQ_BENCH)
TESTS += $(SEQ_TESTS)

# Keep the objects: the pattern rule above would otherwise treat them as
# intermediate files and delete them after every link.
.SECONDARY: $(ANALYSIS_SAN_OBJS) $(call objs,san,$(SEQ_TEST_HELPERS)) \
	$(call objs,san,$(addprefix tests/unit/sequitur/,$(addsuffix .c,$(SEQ_TEST_NAMES))))
