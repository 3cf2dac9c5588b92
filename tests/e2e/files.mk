# tests/e2e/files.mk — the files wpptrace writes and reads, against a
# hostile local user (issue 24 items 5-8, docs/security.md "Files").
TESTS += tests/e2e/hostile-files.sh
CLEAN_DIRS += tests/work/hostile-files
TESTS += tests/e2e/hostile-costs.sh
CLEAN_DIRS += tests/work/hostile-costs
