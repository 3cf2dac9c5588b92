# k-paths end-to-end tests (KPATHS room): 1-IPF == paths profile, k-IPF ==
# python brute force over `script --format jsonl`, pruning bound.
TESTS += tests/e2e/kpaths-profile.sh tests/e2e/kpaths-bruteforce.sh
