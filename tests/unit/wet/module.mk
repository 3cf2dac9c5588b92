# tests/unit/wet: tier-2 label streams of whole execution traces against
# the raw values (docs/wet.md).

WET_TEST_DIR := $(BUILD)/tests/wet
WET_TEST_NAMES := test_wet_stream test_wet_tier1 test_wet_cdg test_wet_shadow
WET_TESTS := $(addprefix $(WET_TEST_DIR)/,$(WET_TEST_NAMES))
WET_TEST_HELPERS := tests/unit/wet/wet_gen.c

$(WET_TEST_DIR)/%: $(call objs,san,tests/unit/wet/%.c) $(call objs,san,$(WET_TEST_HELPERS)) \
		$(WET_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) $^ -o $@ $(CMOCKA_LIBS)

TEST_TARGETS += $(WET_TESTS)
TESTS += $(WET_TESTS)

.SECONDARY: $(WET_SAN_OBJS) $(call objs,san,$(WET_TEST_HELPERS)) \
	$(call objs,san,$(addprefix tests/unit/wet/,$(addsuffix .c,$(WET_TEST_NAMES))))
