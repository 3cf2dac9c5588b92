# tests/unit/report: unit tests of user/report (cmocka) and the symbolizer
# driver used by tests/e2e/report-symbolize.sh.
REPORT_TEST_DIR := $(BUILD)/tests/unit/report
REPORT_SYMCHECK := $(REPORT_TEST_DIR)/symbolize_check
REPORT_UNIT_NAMES := test_report_fmt test_tpp_quality
REPORT_UNIT_BINS := $(addprefix $(REPORT_TEST_DIR)/,$(REPORT_UNIT_NAMES))

$(REPORT_SYMCHECK): $(call objs,san,tests/unit/report/symbolize_check.c) $(SYMBOLIZER_SAN_OBJS) \
		$(DECODE_SAN_OBJS) $(WPPREAD_SAN_OBJS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(SYMBOLIZER_LIBS) -lpthread

# test_report_fmt tests table_fmt alone (the rest of user/report links the
# grammar analyses and the writer, which a formatting test does not need).
$(REPORT_TEST_DIR)/test_report_fmt: $(BUILD)/san/tests/unit/report/test_report_fmt.o \
		$(call objs,san,user/report/table_fmt.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS)

# test_tpp_quality: the AoDF arithmetic alone.
$(REPORT_TEST_DIR)/test_tpp_quality: $(BUILD)/san/tests/unit/report/test_tpp_quality.o \
		$(call objs,san,user/report/tpp_quality.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SANFLAGS) -o $@ $^ $(CMOCKA_LIBS)

TEST_TARGETS += $(REPORT_SYMCHECK) $(REPORT_UNIT_BINS)
TESTS += $(REPORT_UNIT_BINS)
