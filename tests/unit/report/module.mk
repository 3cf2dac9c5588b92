# tests/unit/report: unit tests of user/report (cmocka) and the symbolizer
# driver used by tests/e2e/report-symbolize.sh.
REPORT_TEST_DIR := $(BUILD)/tests/unit/report
REPORT_SYMCHECK := $(REPORT_TEST_DIR)/symbolize_check
REPORT_UNIT_NAMES := test_report_fmt
REPORT_UNIT_BINS := $(addprefix $(REPORT_TEST_DIR)/,$(REPORT_UNIT_NAMES))

$(call objs,san,tests/unit/report/symbolize_check.c $(addprefix tests/unit/report/,$(addsuffix .c,$(REPORT_UNIT_NAMES)))): \
	CPPFLAGS += $(DECODE_SIDE_CPPFLAGS)
# The CLI's session and JSON helpers, built with sanitizers for the report tests.
$(call objs,san,user/cli/json_out.c user/cli/session.c): CPPFLAGS += $(DECODE_SIDE_CPPFLAGS)

$(REPORT_SYMCHECK): $(call objs,san,tests/unit/report/symbolize_check.c) $(SYMBOLIZER_SAN_OBJS) \
		$(DECODE_SAN_OBJS) $(WPPREAD_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(SYMBOLIZER_LIBS) -lpthread

$(REPORT_TEST_DIR)/%: $(BUILD)/san/tests/unit/report/%.o $(REPORT_SAN_OBJS) $(REPORT_PB_SAN_OBJ) \
		$(call objs,san,user/cli/json_out.c user/cli/session.c) $(SYMBOLIZER_SAN_OBJS) \
		$(DECODE_SAN_OBJS) $(WPPREAD_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(SYMBOLIZER_LIBS) $(REPORT_LIBS) $(CMOCKA_LIBS) -lpthread

TEST_TARGETS += $(REPORT_SYMCHECK) $(REPORT_UNIT_BINS)
TESTS += $(REPORT_UNIT_BINS)
