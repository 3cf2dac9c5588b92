#!/bin/bash
# SPDX-License-Identifier: MIT
# counters-attribution.sh — exact attribution: faults.c touches NA fresh
# pages in touch_a and NB in touch_b; recorded with page-faults sampled at
# period 1, touch_a must carry exactly NA faults and touch_b exactly NB
# (the trace buffers are pre-faulted, so recording adds none), spread over
# their loop paths; the per-batch counts must cover them; a machine without
# a PMU refuses hardware events in one line naming the software ones.
. "$(dirname "$0")/counters-lib.sh"

build faults "$PROGS/faults.c"
for sizes in "300 700" "1234 17"; do
	set -- $sizes
	na=$1 nb=$2
	out=$WORK/f-$na-$nb.wpp
	if ! "$WPPTRACE" record -q -e page-faults -c 1 -o "$out" -- "$WORK/faults" "$na" "$nb" \
		2>"$WORK/rec.err"; then
		fail "record -e page-faults -c 1 ($na $nb): $(head -1 "$WORK/rec.err")"
		continue
	fi
	"$WPPTRACE" report "$out" --cost page-faults --by function --format json --top 1000 \
		>"$WORK/fn.json" 2>"$WORK/rep.err" || { fail "report --cost page-faults"; continue; }
	a=$(fn_cost "$WORK/fn.json" touch_a)
	b=$(fn_cost "$WORK/fn.json" touch_b)
	check "touch_a has exactly $na faults (got $a)" '[ "$a" = "$na" ]'
	check "touch_b has exactly $nb faults (got $b)" '[ "$b" = "$nb" ]'
	# Per path: the faults sit on paths of the two loops only, and every
	# execution of touch_b's steady loop path touched exactly one page.
	"$WPPTRACE" report "$out" --cost page-faults --format json --top 1000 >"$WORK/path.json"
	python3 - "$WORK/path.json" "$nb" >"$WORK/paths.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for p in r["paths"]:
    if p["function"] in ("touch_a", "touch_b") and p["cost"]:
        print(p["function"], p["kind"], p["count"], p["cost"])
PY
	check "every touch_b loop>loop execution took one fault" \
		'awk "\$1==\"touch_b\" && \$2==\"loop>loop\" && \$3!=\$4 {bad=1} END {exit bad}" "$WORK/paths.txt"'
	# Counting mode: the exact per-batch total covers every attributed fault.
	counted=$("$WPPTRACE" report "$out" --cost page-faults --top 0 | sed -n 's/.*counted exactly per batch: \([0-9]*\).*/\1/p')
	check "counted total ($counted) >= $((na + nb))" '[ -n "$counted" ] && [ "$counted" -ge $((na + nb)) ]'
done

# A trace without counters, and a counter it does not have: one line each.
"$WPPTRACE" record -q -o "$WORK/plain.wpp" -- "$WORK/faults" 3 3 2>/dev/null
"$WPPTRACE" report "$WORK/plain.wpp" --cost page-faults >/dev/null 2>"$WORK/none.err"
rc=$?
check "--cost on a trace without counters: one line, exit 2 (rc $rc)" \
	'[ $rc = 2 ] && [ $(wc -l <"$WORK/none.err") = 1 ] && grep -q "has no counters" "$WORK/none.err"'
"$WPPTRACE" report "$out" --cost cpu-clock >/dev/null 2>"$WORK/other.err"
rc=$?
check "--cost of an unrecorded counter names the recorded ones" \
	'[ $rc = 2 ] && grep -q "it has: page-faults" "$WORK/other.err"'

# No PMU: one line, the software events offered, no file, no crash.
if [ -e /sys/bus/event_source/devices/cpu ] || [ -e /sys/bus/event_source/devices/cpu_core ]; then
	echo "note: this machine has a PMU; the no-PMU message is not exercised"
else
	rm -f "$WORK/pmu.wpp"
	"$WPPTRACE" record -e cache-misses -c 1000 -o "$WORK/pmu.wpp" -- "$WORK/faults" 3 3 \
		>"$WORK/pmu.out" 2>"$WORK/pmu.err"
	rc=$?
	check "no PMU: exit 1 (rc $rc)" '[ $rc = 1 ]'
	check "no PMU: exactly one line on stderr" '[ $(wc -l <"$WORK/pmu.err") = 1 ]'
	check "no PMU: says so and offers the software events" \
		'grep -q "^wpptrace: .*no hardware performance counters.*cpu-clock.*page-faults" "$WORK/pmu.err"'
	check "no PMU: no file left behind, program not run" '[ ! -e "$WORK/pmu.wpp" ] && [ ! -s "$WORK/pmu.out" ]'
fi
finish
