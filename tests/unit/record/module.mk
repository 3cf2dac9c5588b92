# tests/unit/record: `wpptrace top`'s rows and TU table (user/record/top_rows.c,
# top_tu.c): merging per binary, interning (cmocka).
TOP_TEST := $(BUILD)/tests/unit/record/test_top_rows
$(TOP_TEST): $(call objs,san,tests/unit/record/test_top_rows.c user/record/top_rows.c \
		user/record/top_tu.c user/common/json_out.c) \
		$(DECODE_SAN_OBJS) $(SYMBOLIZER_SAN_OBJS) $(WPPREAD_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $(sort $^) $(SYMBOLIZER_LIBS) $(CMOCKA_LIBS) -lpthread
TEST_TARGETS += $(TOP_TEST)
TESTS += $(TOP_TEST)

# record's summary figures (user/record/summary_text.c).
SUMMARY_TEXT_TEST := $(BUILD)/tests/unit/record/test_summary_text
$(SUMMARY_TEXT_TEST): $(call objs,san,tests/unit/record/test_summary_text.c \
		user/record/summary_text.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $(sort $^) $(CMOCKA_LIBS)
TEST_TARGETS += $(SUMMARY_TEXT_TEST)
TESTS += $(SUMMARY_TEXT_TEST)
