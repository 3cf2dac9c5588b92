#!/bin/bash
# SPDX-License-Identifier: MIT
# counters-throttle.sh — samples the kernel withheld are never silent.  With
# kernel.perf_event_max_sample_rate lowered to 1000 (4 samples per tick at
# HZ 250) cpu-clock sampling every 100 us must be throttled: record warns,
# `info` shows throttled.cpu-clock=N, and the samples really are missing
# (samples x period well under the program's CPU time, which the program
# measures itself: the independent measure).  With the rate restored and a
# 1 ms period: no throttling, and the sampled estimate is within 25% of the
# CPU time.  The exact per-batch count is checked against the same CPU time:
# within 10%, or lower with record's warning that it is (a switch the
# kernel did not report to sched_switch programs; docs/counters.md).
. "$(dirname "$0")/counters-lib.sh"

RATE=/proc/sys/kernel/perf_event_max_sample_rate
sample_rate_lock -x # (counters-lib.sh) no other sampling test meanwhile
saved=$(cat "$RATE")
trap 'echo "$saved" >"$RATE"' EXIT
build spin "$PROGS/spin.c"

# record_spin NAME PERIOD: samples and the exact count, from info's JSON.
record_spin() {
	"$WPPTRACE" record -e cpu-clock -c "$2" -o "$WORK/$1.wpp" -- "$WORK/spin" 30 cpu \
		>"$WORK/$1.cpu" 2>"$WORK/$1.err" || { fail "record $1: $(head -1 "$WORK/$1.err")"; return 1; }
	"$WPPTRACE" info "$WORK/$1.wpp" --format json >"$WORK/$1.json" || { fail "info $1"; return 1; }
}
# field NAME EXPR: a value from the info JSON (j = the document, c = its first counter).
field() {
	python3 - "$WORK/$1.json" "$2" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
c = j["counters"][0] if j.get("counters") else {}
print(eval(sys.argv[2]))
PY
}

# check_recording NAME PERIOD THROTTLED(yes|no) LO HI: the warning, the
# INFO line, samples x period against the program's CPU time, and the
# exact per-batch count against it too.
check_recording() {
	local name=$1 period=$2 throttled=$3 lo=$4 hi=$5 n share cpu counted
	record_spin "$name" "$period" || return
	n=$(field "$name" 'j["settings"].get("throttled.cpu-clock", 0)')
	if [ "$throttled" = yes ]; then
		check "$name: record warns that cpu-clock sampling was throttled" \
			"grep -q \"throttled 'cpu-clock' sampling [1-9][0-9]* times\" '$WORK/$name.err'"
		check "$name: info keeps throttled.cpu-clock=$n" "[ '$n' -gt 0 ]"
	else
		check "$name: no throttling warning" "! grep -q throttled '$WORK/$name.err'"
		check "$name: info has no throttled line" "[ '$n' = 0 ]"
	fi
	cpu=$(cat "$WORK/$name.cpu")
	share=$(field "$name" "c['samples_on_paths'] * $period / $cpu")
	check "$name: samples x period = $share of the program's CPU time, in [$lo, $hi]" \
		"python3 -c 'import sys; sys.exit(0 if $lo <= $share <= $hi else 1)'"
	counted=$(field "$name" "c['counted'] / $cpu")
	if grep -q "no context switch seen" "$WORK/$name.err"; then
		check "$name: a low per-batch count ($counted of the CPU time) is said" \
			"python3 -c 'import sys; sys.exit(0 if $counted <= 1.1 else 1)'"
	else
		check "$name: per-batch count = $counted of the program's CPU time, in [0.9, 1.1]" \
			"python3 -c 'import sys; sys.exit(0 if 0.9 <= $counted <= 1.1 else 1)'"
	fi
}

# Throttled: the missing samples show (under half the count).
if echo 1000 >"$RATE" 2>/dev/null; then
	check_recording low 100000 yes 0 0.5
else
	fail "cannot lower $RATE"
fi
echo "$saved" >"$RATE"
check_recording normal 1000000 no 0.75 1.25
finish
