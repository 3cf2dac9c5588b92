# tests/e2e/report.mk: end-to-end tests of the report commands (REPORT room).
REPORT_E2E := tests/e2e/report-golden.sh tests/e2e/report-diff.sh tests/e2e/report-pprof.sh \
	tests/e2e/report-symbolize.sh tests/e2e/report-html.sh
TEST_TARGETS += $(BIN)/wpptrace $(BIN)/wppcc $(REPORT_SYMCHECK)
TESTS += $(REPORT_E2E)
