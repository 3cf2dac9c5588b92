# tests/unit/wet: tier-2 label streams of whole execution traces against
# the raw values (docs/wet.md).

WET_TEST_DIR := $(BUILD)/tests/wet
WET_TEST_NAMES := test_wet_stream test_wet_tier1 test_wet_cdg test_wet_shadow test_wet_xorder
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

# The builder's labels and the stored form, on metadata of random DAGs
# built by the decode tests' testlib (decode and symbolizer under test too).
WET_FILE_TEST := $(WET_TEST_DIR)/test_wet_file
WET_BUILD_SAN_OBJS := $(call objs,san,$(WET_BUILD_SRCS))
$(WET_BUILD_SAN_OBJS): CPPFLAGS += $(DECODE_SIDE_CPPFLAGS)
$(call objs,san,tests/unit/wet/test_wet_file.c): \
	CPPFLAGS += $(DECODE_SIDE_CPPFLAGS) -Itests/unit/decode
$(WET_FILE_TEST): $(call objs,san,tests/unit/wet/test_wet_file.c) $(WET_BUILD_SAN_OBJS) \
		$(WET_SAN_OBJS) $(DECODE_TESTLIB_SAN_OBJS) $(DECODE_UNDER_TEST)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $(sort $^) $(SYMBOLIZER_LIBS) $(CMOCKA_LIBS) -lpthread
TEST_TARGETS += $(WET_FILE_TEST)
TESTS += $(WET_FILE_TEST)
