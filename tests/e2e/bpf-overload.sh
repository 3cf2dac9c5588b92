#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-overload — forced overload: tiny rings, small runtime batches and a
# slowed-down consumer.  With --ring-full drop the recorder must report
# exactly what was dropped, the file must carry gaps adding up to it, and
# each gap must stand exactly where its words are missing from what the
# program emitted (the shm recording of the same deterministic run).  With
# the default back-pressure (--ring-full pause) the same overload must lose
# nothing: the program is paused instead, and its trace equals shm's.
. "$(dirname "$0")/bpf-lib.sh"

# Without runs (WPP_CTRL_REPEAT): one event per trace word, so a gap's
# lost words are the events missing from the reference.
build mtwork "$PROGS/mtwork.c" -fwpp-no-runs || finish
(cd "$WORK" && run_bounded "wpptrace at line $LINENO" "$WPPTRACE" record -q --transport=shm -o ref.wpp -- ./mtwork 4 200000 >/dev/null) ||
	{ fail "shm record failed"; finish; }
jsonl "$WORK/ref.wpp"

for delay in 300 2000; do
	(cd "$WORK" && WPP_BUFFER_WORDS=1024 run_bounded "wpptrace at line $LINENO" "$WPPTRACE" record --ring-size 128K --record-words 256 \
		--ring-full drop --debug-drain-delay-us $delay -o over$delay.wpp -- ./mtwork 4 200000 \
		>/dev/null 2>over$delay.err) || { fail "overloaded record failed"; continue; }
	reported=$(sed -n 's/.*warning: lost \([0-9]*\) events in \([0-9]*\) batches (.*/\1/p' "$WORK/over$delay.err" | tail -1)
	infolost=$(lost_words "$WORK/over$delay.wpp")
	if [ -z "$reported" ] || [ "$reported" = 0 ]; then
		fail "delay $delay: no loss reported (overload did not happen?)"
		continue
	fi
	[ "$reported" = "$infolost" ] || fail "delay $delay: recorder said $reported lost, info says $infolost"
	jsonl "$WORK/over$delay.wpp"
	if out=$($CMP gaps "$WORK/ref.jsonl" "$WORK/over$delay.jsonl" "$reported"); then
		pass "delay $delay us: $out"
	else
		fail "delay $delay us: $out"
	fi
done

# The same overload under back-pressure: paused, not dropped.
(cd "$WORK" && WPP_BUFFER_WORDS=1024 run_bounded "wpptrace at line $LINENO" "$WPPTRACE" record --ring-size 128K --record-words 256 \
	--debug-drain-delay-us 2000 -o paused.wpp -- ./mtwork 4 200000 \
	>/dev/null 2>paused.err) || fail "paused record failed"
pauses=$(sed -n 's/.*producers paused \([0-9]*\) times.*/\1/p' "$WORK/paused.err")
if grep -q "lost" "$WORK/paused.err" || [ "$(lost_words "$WORK/paused.wpp")" != 0 ]; then
	fail "back-pressure: events were lost: $(grep lost "$WORK/paused.err")"
elif [ -z "$pauses" ]; then
	fail "back-pressure: the program was never paused (overload did not happen?)"
else
	jsonl "$WORK/paused.wpp"
	if out=$($CMP same "$WORK/ref.jsonl" "$WORK/paused.jsonl"); then
		pass "back-pressure: paused $pauses times, nothing lost, trace identical to shm"
	else
		fail "back-pressure: $out"
	fi
fi
finish
