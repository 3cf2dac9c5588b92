# k-paths end-to-end tests (KPATHS room): 1-IPF == paths profile, k-IPF ==
# python brute force over `script --format jsonl` in both views, pruning
# bound, stored (record -k) == offline forests, k-path costs, the selection
# options and the Figure-4 fractions.
TESTS += tests/e2e/kpaths-profile.sh tests/e2e/kpaths-bruteforce.sh tests/e2e/kpaths-online.sh \
	tests/e2e/kpaths-cost.sh tests/e2e/kpaths-online-act.sh tests/e2e/kpaths-options.sh
