#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fuzz-shm-region — runs the libFuzzer target for the shm collector's view
# of a hostile region (fuzz_shm_region.c) for FUZZ_SECONDS (default 20)
# from the seed corpus, on a scratch copy so the tree is not written.
# Any crash, sanitizer report, broken sink promise or input that runs
# longer than 10 s (a collector that loops on what it reads) fails it;
# the input is kept under tests/work/fuzz/ for a rerun.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FUZZER=$ROOT/build/tests/fuzz/fuzz_shm_region
WORK=$ROOT/tests/work/fuzz/shm_region
[ -x "$FUZZER" ] || { echo "FAIL: $FUZZER not built (make build/tests/fuzz/fuzz_shm_region)"; exit 1; }
rm -rf "$WORK"
mkdir -p "$WORK/corpus" "$WORK/artifacts"
cp "$ROOT"/tests/fuzz/corpus/shm_region/* "$WORK/corpus/"
cd "$WORK" || exit 1
"$FUZZER" -max_total_time="${FUZZ_SECONDS:-20}" -timeout=10 -rss_limit_mb=2048 \
	-artifact_prefix="$WORK/artifacts/" -print_final_stats=1 corpus >fuzz.log 2>&1
rc=$?
grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb|^Done" fuzz.log
if [ $rc != 0 ] || [ -n "$(ls -A "$WORK/artifacts")" ]; then
	echo "FAIL: fuzz_shm_region (rc $rc); reproduce with: $FUZZER $WORK/artifacts/*"
	grep -E "ERROR|broken promise|SUMMARY" fuzz.log | head -5
	exit 1
fi
echo "ok: no crash, sanitizer report, broken promise or slow input"
