#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# harden-shm-kill — a traced program outlives its shm collector: SIGKILL
# the collector mid-run (three runs) and the program still finishes with
# its own output and exit status (its records go to the runtime's sink,
# which stays a sink).  The same without any collector when a buffer
# cannot be mapped (ulimit -v with a big WPP_BUFFER_WORDS).
. "$(dirname "$0")/harden-lib.sh"

ROUNDS=100000
# larger_than FILE BYTES: FILE holds more than BYTES.
larger_than() { [ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -gt "$2" ]; }
build work "$SRC/work.c" -fwpp-no-runs || finish
run_capture "$WORK/ref" "$WORK/work" $ROUNDS
[ "$(cat "$WORK/ref.rc")" = 7 ] || { fail "reference run"; show_run "$WORK/ref"; finish; }

for i in 1 2 3; do
	rm -f "$WORK/k$i.status" "$WORK/k$i.wpp"
	# The shell reports the program's status: record is gone by then.
	"$WPPTRACE" record --transport=shm -q -o "$WORK/k$i.wpp" -- \
		sh -c '"$1" "$2"; echo $? >"$3"' sh "$WORK/work" $ROUNDS "$WORK/k$i.status" \
		>"$WORK/k$i.out" 2>"$WORK/k$i.err" &
	rec=$!
	# Killed mid-run: the whole recording is about 700 KB, written as
	# the program goes, so once 200 KB are there most of the run is to
	# come (a fixed wait would race the program's speed, and a run that
	# ended first tests nothing).
	wait_until "run $i's recording to pass 200 KB" larger_than "$WORK/k$i.wpp" 200000
	[ -s "$WORK/k$i.status" ] && fail "run $i: the program ended before its collector was killed"
	kill -9 $rec
	wait $rec 2>/dev/null
	wait_file "$WORK/k$i.status" "run $i's program to end after its collector's SIGKILL"
	st=$(cat "$WORK/k$i.status" 2>/dev/null)
	if [ "$st" = 7 ] && cmp -s "$WORK/ref.out" "$WORK/k$i.out"; then
		pass "run $i: the program finished after its collector's SIGKILL (status 7, same output)"
	else
		fail "run $i: after the collector's SIGKILL: status '${st:-none}', output $(head -c 200 "$WORK/k$i.out" | tr '\n' '|'), err $(head -c 200 "$WORK/k$i.err" | tr '\n' '|')"
	fi
done

# No collector, and the buffer cannot be mapped (32 MiB under a 30 MB
# address-space limit): the same run as without the variable.
run_capture "$WORK/small" sh -c 'ulimit -v 30000; exec "$1" 2000' sh "$WORK/work"
run_capture "$WORK/nomap" sh -c 'ulimit -v 30000; WPP_BUFFER_WORDS=4194304 exec "$1" 2000' sh "$WORK/work"
if [ "$(cat "$WORK/small.rc")" = 7 ] && same_run "$WORK/small" "$WORK/nomap"; then
	pass "a buffer that cannot be mapped: same output and status"
else
	fail "a buffer that cannot be mapped changed the run"
	show_run "$WORK/small"
	show_run "$WORK/nomap"
fi
finish
