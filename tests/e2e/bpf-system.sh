#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-system — `record -a` picks up an instrumented process started after
# the tracer, and its trace is identical to a shm recording of the same run;
# so is the trace of a static-runtime program started after the tracer
# (its probes are in its own file, attached when its runtime says hello).
# bpf-system-short.sh: many short ones.
. "$(dirname "$0")/bpf-lib.sh"

build mtwork "$PROGS/mtwork.c" || finish
build mtstatic "$PROGS/mtwork.c" -fwpp-static-rt || finish
(cd "$WORK" && run_bounded "wpptrace at line $LINENO" "$WPPTRACE" record -q --transport=shm -o ref.wpp -- ./mtwork 3 50000 >/dev/null)
jsonl "$WORK/ref.wpp"
# Half its work before a 3 s pause, in 64-word batches so that the first
# half is published before the pause (when the collector attached at its
# exec record, that half was missing).
(cd "$WORK" && run_bounded "wpptrace at line $LINENO" "$WPPTRACE" record -q --transport=shm --buffer-words 64 -o sref.wpp -- \
	./mtstatic 3 40000 3000 >/dev/null)
jsonl "$WORK/sref.wpp"
# The programs start once record says it is attached (--ready-fd), and the
# recording ends when they have: their exit records are in the rings by
# the time the shell has reaped them, and record drains the rings on
# SIGINT.
start_record "$WORK/all.err" -q -a -o "$WORK/all.wpp" || finish
(cd "$WORK" && ./mtwork 3 50000 >/dev/null)
(cd "$WORK" && WPP_BUFFER_WORDS=64 ./mtstatic 3 40000 3000 >/dev/null)
kill -INT "$REC"
wait_bounded "record -a, sent SIGINT" "$REC" || fail "-a record failed: $(cat "$WORK/all.err")"
# Keep only the processes running this test's mtwork: -a records every
# instrumented program, another test's mtwork too (in another tree).
pids=$(info "$WORK/all.wpp" | awk -v exe="$WORK/mtwork" '/^  pid / && $NF == exe { print $2 }')
[ -n "$pids" ] || { fail "-a: mtwork not in the recording"; finish; }
for p in $pids; do "$WPPTRACE" script "$WORK/all.wpp" --pid "$p" --format jsonl; done >"$WORK/mine.jsonl"
if out=$($CMP same "$WORK/ref.jsonl" "$WORK/mine.jsonl"); then
	pass "-a: process started later recorded: $out"
else
	fail "-a: $out"
fi

# The static-runtime program: its runtime waited for the collector to
# attach (wpp_hello.h), so nothing before the pause is missing either.
spid=$(info "$WORK/all.wpp" | awk -v exe="$WORK/mtstatic" '/^  pid / && $NF == exe { print $2 }')
[ -n "$spid" ] || { fail "-a: the static-runtime program is not in the recording"; finish; }
"$WPPTRACE" script "$WORK/all.wpp" --pid "$spid" --format jsonl >"$WORK/static.jsonl"
if out=$($CMP same "$WORK/sref.jsonl" "$WORK/static.jsonl"); then
	pass "-a: static-runtime program started later recorded from its start: $out"
else
	fail "-a static runtime: $out"
fi
finish
