# tests/e2e/report-text.mk: end-to-end tests of the text/JSON reports and
# script output (REPORT-TEXT room); tests/module.mk includes it by wildcard.
REPORT_TEXT_E2E := tests/e2e/report-inline.sh tests/e2e/report-costlines.sh \
	tests/e2e/report-multi.sh
TEST_TARGETS += $(BIN)/wpptrace $(BIN)/wppcc
TESTS += $(REPORT_TEXT_E2E)
