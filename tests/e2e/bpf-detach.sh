#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-detach — `record -p` of a quiet tracing process (issue 23): what its
# threads recorded since their last published batch is read from their
# memory when record detaches (Ctrl-C, -d) and written as their last
# batch, so each recording holds exactly the paths the program ran while
# it was attached, and the next recording of the same process does not
# hold them again.  The program's own "done N" lines are the independent
# count: one recording per `run N`, three in a row on one process, the
# last one ending when the program exits.
# (The recorders are started without the test's end of the command pipe:
# the program sees end of input, and exits, when the test closes it.)
. "$(dirname "$0")/bpf-lib.sh"

build quiet "$PROGS/quiet.c" || finish
mkfifo "$WORK/cmd"
"$WORK/quiet" "$WORK/quiet.pid" <"$WORK/cmd" >"$WORK/quiet.out" &
prog=$!
exec 8>"$WORK/cmd"
wait_file "$WORK/quiet.pid" "the program to start" || finish

# ticks FILE.wpp: executions of tick() the recording holds.
ticks() {
	jsonl "$1"
	grep -c '"type":"path".*"function":"tick"' "${1%.wpp}.jsonl"
}

# run N: the program ticks N times; returns once it says so (its RUNS-th
# "done" line).
RUNS=0
done_lines() { [ "$(grep -c '^done' "$WORK/quiet.out")" -ge "$RUNS" ]; }
run() {
	RUNS=$((RUNS + 1))
	echo "run $1" >&8
	wait_until "the program to run $1 ticks" done_lines
}

# 1. Ctrl-C: 300 ticks, about 1 s, a few hundred words: no batch fills.
start_record "$WORK/a.err" -p "$prog" -o "$WORK/a.wpp" 8>&- || finish
run 300 || finish
kill -INT "$REC"
wait_bounded "record -p, sent SIGINT" "$REC"
rc=$?
n=$(ticks "$WORK/a.wpp")
if [ $rc = 0 ] && [ "$n" = 300 ] && grep -q "read at detach" "$WORK/a.err"; then
	pass "-p, Ctrl-C: the 300 ticks the program ran while attached, read at detach"
else
	fail "-p, Ctrl-C: rc $rc, $n ticks of 300: $(cat "$WORK/a.err")"
fi
grep -q "nothing was traced" "$WORK/a.err" && fail "-p, Ctrl-C: warned of an empty trace"
# The summary's nouns agree with their counts, and its bytes per record
# has three significant digits (0.0990, not 0.099 or 1e-01).
if grep -Eq "recorded 1 batch, [0-9]+ words, 1 process, 1 thread, (0\.0*[1-9][0-9]{2}|[1-9][0-9]*\.[0-9]{2}) bytes per path record" "$WORK/a.err"; then
	pass "-p, Ctrl-C: summary in the singular, three significant digits"
else
	fail "-p, Ctrl-C: summary: $(cat "$WORK/a.err")"
fi

# 2. -d: the same process again.  Its buffer still holds what recording 1
# took; this one holds only the 100 ticks of its own window.
start_record "$WORK/b.err" -p "$prog" -d 3 -o "$WORK/b.wpp" 8>&- || finish
run 100 || finish
wait_bounded "record -p -d 3" "$REC"
rc=$?
n=$(ticks "$WORK/b.wpp")
if [ $rc = 0 ] && [ "$n" = 100 ]; then
	pass "-p -d 3, attached again: its 100 ticks, none of the earlier recording's"
else
	fail "-p -d 3, attached again: rc $rc, $n ticks of 100: $(cat "$WORK/b.err")"
fi

# 3. Until the program exits: the runtime publishes the same buffer whole
# at exit; the words recordings 1 and 2 took are left out.
start_record "$WORK/c.err" -p "$prog" -o "$WORK/c.wpp" 8>&- || finish
run 200 || finish
exec 8>&-
wait_bounded "the program, its input closed" "$prog"
wait_bounded "record -p, its target ended" "$REC"
rc=$?
n=$(ticks "$WORK/c.wpp")
if [ $rc = 0 ] && [ "$n" = 200 ]; then
	pass "-p until exit, third attach: its 200 ticks, not the 400 recorded before"
else
	fail "-p until exit, third attach: rc $rc, $n ticks of 200: $(cat "$WORK/c.err")"
fi
for f in a b c; do
	lost=$(lost_words "$WORK/$f.wpp")
	[ "$lost" = 0 ] || fail "recording $f lost $lost words"
	bad=$(grep -c '"type":"corrupt"' "$WORK/$f.jsonl")
	[ "$bad" = 0 ] || fail "recording $f: $bad corrupt records"
done
finish
