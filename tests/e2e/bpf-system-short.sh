#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-system-short — `record -a` records every instrumented program started
# after it, however soon the program ends: 20 short static-runtime programs
# (each a fresh copy, so no probe is attached to its file beforehand; each
# publishes and exits within milliseconds, before the collector could read
# its exec record) and 5 programs loading a fresh copy of libwpprt.so.  Each
# one must be in the recording, its trace identical to a shm recording
# (every word attributed to its function: the TUs were registered while
# the collector watched).  Before the runtime said hello to system-wide
# collectors (wpp_hello.h), such programs were missed or their words left
# unattributed.
# A hello whose asker is gone when the answer comes (a program killed while
# it waits, or anyone connecting and closing: the names are open to all)
# must not end the recording; a recorder too busy to answer in time (here:
# stopped) must not hold a program beyond the hello's bound, and the
# program then runs unrecorded until the probes come: both sides say so.
. "$(dirname "$0")/bpf-lib.sh"

RUNS=20
LIBRUNS=5
build mtstatic "$PROGS/mtwork.c" -fwpp-static-rt || finish
build mtshared "$PROGS/mtwork.c" || finish
build late "$ROOT/tests/e2e/count/count_phases.c" -fwpp-static-rt || finish
(cd "$WORK" && run_bounded "wpptrace at line $LINENO" "$WPPTRACE" record -q --transport=shm --buffer-words 64 -o ref.wpp -- \
	./mtstatic 2 3000 >/dev/null)
jsonl "$WORK/ref.wpp"

# hello_socket PID: 0 once PID holds a listening wpptrace-all socket,
# whose name (without the @) it prints.
hello_socket() {
	local inodes
	inodes=$(find "/proc/$1/fd" -lname 'socket:*' -printf '%l\n' 2>/dev/null | tr -dc '0-9\n')
	[ -n "$inodes" ] || return 1
	awk 'NR == FNR { own[$1] = 1; next }
	     $NF ~ /^@wpptrace-all-/ && ($7 in own) { print substr($NF, 2); found = 1 }
	     END { exit !found }' <(echo "$inodes") /proc/net/unix
}

# Ready (--ready-fd) means attached and listening for hellos.  Verbose:
# the recorder names each pid whose hello it answered (for a failure).
RECORD_VERBOSE=1 start_record "$WORK/all.err" -a -o "$WORK/all.wpp" || finish
rec=$REC
slot=$(hello_socket $rec) || fail "-a: the recorder does not listen for hellos"

# Twenty hellos closed before their answers, on this recorder's name only
# (another test's recorder is not this test's to end).
python3 -c '
import socket, sys
for _ in range(20):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("\0" + sys.argv[1])
    s.close()' "$slot"
sleep 0.5 # (the answers go out at once; a SIGPIPE would have ended it)
if kill -0 $rec 2>/dev/null; then
	pass "-a: 20 hellos closed before their answers, the recording goes on"
else
	wait_bounded "the recorder that ended" $rec
	fail "-a: the recorder ended (status $?) answering hellos closed before their answers"
	finish
fi

# The recorder stopped: a fresh static-runtime program (no probe in its
# file yet) gets past its hello without it, says so, and waits at its
# first pause; the recorder, continued, attaches late and says that the
# pid's start is not recorded; the program's phase after the pause is.
mkfifo "$WORK/late.in"
cp "$WORK/late" "$WORK/late1"
kill -STOP $rec
(cd "$WORK" && exec ./late1 p <late.in >late.out 2>late.err) &
late=$!
exec 8>"$WORK/late.in"
WAIT_LIMIT_S=30 wait_until "the program past its hello, the recorder stopped" grep -qs "^paused 1" "$WORK/late.out"
kill -CONT $rec
if grep -q "did not answer within the hello's bound" "$WORK/late.err"; then
	pass "-a, recorder stopped: the program runs on and says: $(sed 's/^wpptrace: runtime: //' "$WORK/late.err")"
else
	fail "-a, recorder stopped: the program said nothing: '$(cat "$WORK/late.err")'"
fi
WAIT_LIMIT_S=30 wait_until "the recorder's line on pid $late" grep -qs "bpf: pid $late (.*late1) stopped waiting for its hello" "$WORK/all.err" &&
	pass "-a, recorder stopped: $(grep -o "pid $late (.*) stopped waiting.*" "$WORK/all.err")"
echo go >&8
wait_until "the program's second pause" grep -qs "^paused 2" "$WORK/late.out"
echo go >&8
exec 8>&-
wait_bounded "the late program" $late || fail "-a, recorder stopped: the program failed"
: >"$WORK/started"
for i in $(seq $RUNS); do
	cp "$WORK/mtstatic" "$WORK/s$i"
	(cd "$WORK" && WPP_BUFFER_WORDS=64 exec "./s$i" 2 3000 >/dev/null) &
	echo "$! s$i" >>"$WORK/started"
	wait_bounded "s$i under -a" $!
done
for i in $(seq $LIBRUNS); do
	mkdir -p "$WORK/lib$i"
	cp "$ROOT/lib/wpptrace/libwpprt.so" "$WORK/lib$i/"
	(cd "$WORK" && LD_LIBRARY_PATH="$WORK/lib$i" WPP_BUFFER_WORDS=64 exec ./mtshared 2 3000 >/dev/null) &
	echo "$! lib$i/mtshared" >>"$WORK/started"
	wait_bounded "lib$i/mtshared under -a" $!
done
kill -INT $rec
wait_bounded "record -a, sent SIGINT" $rec || fail "-a record failed: $(grep -v '^wpptrace: bpf: ' "$WORK/all.err" | head -3)"

info "$WORK/all.wpp" >"$WORK/all.info"
check_runs() { # NAME-REGEX COUNT WHAT (the name under $WORK: -a also
	# records other tests' programs running meanwhile, in other trees)
	local pids n=0 bad=0 out
	pids=$(awk -v re="$1" -v dir="$WORK/" '/^  pid / && index($NF, dir) == 1 && substr($NF, length(dir)) ~ re { print $2 }' "$WORK/all.info")
	for p in $pids; do
		n=$((n + 1))
		"$WPPTRACE" script "$WORK/all.wpp" --pid "$p" --format jsonl >"$WORK/p$p.jsonl"
		out=$($CMP same "$WORK/ref.jsonl" "$WORK/p$p.jsonl") ||
			{ bad=$((bad + 1)); fail "$3, pid $p: $out"; }
	done
	if [ "$n" = "$2" ] && [ "$bad" = 0 ]; then
		pass "$3: $n of $2 recorded, every trace identical to shm"
	else
		fail "$3: $n of $2 in the recording, $bad of them different from shm"
		missing "$1" "$pids"
	fi
}
# missing NAME-REGEX PIDS: each program started that is not among PIDS,
# and whether the recorder answered its hello (it attaches first): a
# program waits WPP_HELLO_TIMEOUT_MS (2 s) at most for that, then runs
# unrecorded, so a recorder busy with every other instrumented program
# starting on the machine can miss it.
missing() {
	local pid name
	while read -r pid name; do
		[[ "/$name" =~ $1 ]] || continue
		grep -qxF "$pid" <<<"$2" && continue
		if grep -q "pid $pid said hello" "$WORK/all.err"; then
			echo "    $name (pid $pid): not recorded; the recorder answered its hello: $(grep -m1 "pid $pid said hello" "$WORK/all.err" | sed 's/.*: //')"
		else
			echo "    $name (pid $pid): not recorded; the recorder never answered its hello"
		fi
	done <"$WORK/started"
	echo "    (the recorder answered $(grep -c 'said hello' "$WORK/all.err") hellos in all, other programs' included)"
}
check_runs '/s[0-9]+$' $RUNS "-a, short static-runtime programs started after the tracer"
check_runs '/mtshared$' $LIBRUNS "-a, short programs loading their own copy of libwpprt.so"
# What ran after the late attach is recorded (phase B: beta).
if "$WPPTRACE" script "$WORK/all.wpp" --pid "$late" --format jsonl 2>/dev/null |
	grep -q '"beta"'; then
	pass "-a, recorder stopped: the program is recorded from the late attach on"
else
	fail "-a, recorder stopped: nothing of pid $late after the late attach"
fi
finish
