#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-attach — `record -p` on a running instrumented server: the trace
# decodes fully (the TUs come from the runtime's registry, read through
# /proc/PID/mem), the process is marked as attached mid-run, -d ends the
# recording and the server keeps running; several -p record every target;
# bad -p targets fail in one line, and so does a tracer without privilege,
# which is told to use --transport=shm.  A target killed the moment record
# reports ready (--ready-fd) has its threads' unpublished buffers salvaged.
. "$(dirname "$0")/bpf-lib.sh"

build server "$PROGS/server.c" || finish
"$WORK/server" "$WORK/server.pid" >"$WORK/server.out" &
srv=$!
wait_file "$WORK/server.pid" "the server to start" || finish
run_bounded "record -p $srv -d 1" "$WPPTRACE" record -q -p "$srv" -d 1 -o "$WORK/srv.wpp" 2>"$WORK/srv.err"
rc=$?
kill -0 "$srv" 2>/dev/null && pass "-p: the server still runs after the recording" ||
	fail "-p: the server died"
not_stopped "$srv" "-p -d 1"
kill -TERM "$srv"
wait_bounded "the server, after record -p and SIGTERM" "$srv"
[ $rc = 0 ] || fail "-p record exited $rc: $(cat "$WORK/srv.err")"
info "$WORK/srv.wpp" >"$WORK/srv.info"
grep -q "tracing began mid-run" "$WORK/srv.info" && pass "-p: process marked attached" ||
	fail "-p: no attached mark: $(cat "$WORK/srv.info")"
grep -q "^status      complete" "$WORK/srv.info" || fail "-p: file not complete"
jsonl "$WORK/srv.wpp"
paths=$(grep -c '"type":"path"' "$WORK/srv.jsonl")
# Attached mid-run, a thread's first batch may open with a run
# (WPP_CTRL_REPEAT) of a record published before the probe was there:
# unattributable by contract, but only as the thread's very first event.
bad=$(python3 -c '
import json, sys
seen, bad = set(), 0
for e in map(json.loads, open(sys.argv[1])):
    key = (e["pid"], e["tid"])
    first = key not in seen
    seen.add(key)
    if e["type"] == "corrupt" or (e["type"] == "unattributed" and not (
            first and e.get("reason") == "repeat count with no record before it")):
        bad += 1
print(bad)' "$WORK/srv.jsonl")
threads=$(python3 -c 'import json,sys; print(len({(e["pid"],e["tid"]) for e in map(json.loads, open(sys.argv[1]))}))' "$WORK/srv.jsonl")
if [ "$paths" -gt 1000 ] && [ "$bad" = 0 ] && [ "$threads" = 2 ]; then
	pass "-p: $paths paths on $threads threads, all attributed (registry read)"
else
	fail "-p: $paths paths, $bad unattributed/corrupt, $threads threads"
fi
grep -q '"function":"handle"' "$WORK/srv.jsonl" || fail "-p: handle() not in the trace"

# Killed with SIGKILL the moment record says it is attached: its threads'
# unpublished buffers are salvaged (their positions were read at attach,
# the threads having started before the probe): record says so, info
# counts them, no loss.  Nothing waits for a time: the kill follows the
# ready line (--ready-fd), the race a user attaching to a short event runs.
for round in 1 2 3; do
	rm -f "$WORK/server.pid"
	"$WORK/server" "$WORK/server.pid" >/dev/null &
	srv=$!
	wait_file "$WORK/server.pid" "the server to start" || finish
	start_record "$WORK/killed.err" -p "$srv" -o "$WORK/killed.wpp" || { kill -KILL "$srv"; finish; }
	kill -KILL "$srv"
	wait_bounded "the SIGKILLed server" "$srv" 2>/dev/null
	wait_bounded "record -p, its target SIGKILLed right after ready ($round)" "$REC"
	rc=$?
	salvaged=$(grep -o "[0-9]* events in [0-9]* batches salvaged" "$WORK/killed.err")
	lost=$(info "$WORK/killed.wpp" | awk '$1 == "lost" { print $2, $5 }')
	if [ $rc = 0 ] && [ -n "$salvaged" ] && [ "$lost" = "0 0" ] &&
		info "$WORK/killed.wpp" | grep -q "^batches.*salvaged"; then
		pass "-p, target SIGKILLed right after ready ($round): $salvaged, nothing lost"
	else
		fail "-p, target SIGKILLed right after ready ($round): rc $rc, salvage ${salvaged:-not reported}, lost $lost: $(cat "$WORK/killed.err")"
	fi
done

# A target whose end is never seen: held up (SIGSTOP), the recorder's
# lifecycle ring overflows with the records of 12000 short threads, and
# the target's own exit record is among those lost.  Once /proc says the
# target is gone, record ends anyway, says why, and the file is complete.
build forker "$PROGS/forker.c" || finish
rm -f "$WORK/forker.pid"
"$WORK/forker" "$WORK/forker.pid" 12000 &
fk=$!
wait_file "$WORK/forker.pid" "the forker to start" || finish
start_record "$WORK/unseen.err" -q -p "$fk" -o "$WORK/unseen.wpp" || { kill -KILL "$fk"; finish; }
kill -STOP "$REC"
kill -USR1 "$fk"
wait_bounded "the forker" "$fk" || fail "-p, exit unseen: the forker failed"
kill -CONT "$REC"
WAIT_LIMIT_S=60 wait_bounded "record -p, its target gone with its exit record lost" "$REC"
rc=$?
if [ $rc = 0 ] && grep -q "every traced process is gone, but the end of 1 of them was not seen" "$WORK/unseen.err" &&
	grep -q "lifecycle records lost: [1-9]" "$WORK/unseen.err" && info "$WORK/unseen.wpp" | grep -q "^status      complete"; then
	pass "-p, the target's exit record lost: record ends once it is gone ($(grep -o "lifecycle records lost: [0-9]*" "$WORK/unseen.err"))"
else
	fail "-p, the target's exit record lost: rc $rc: $(grep -v "dual build" "$WORK/unseen.err" | head -3)"
fi

# One clear line for each bad target, non-zero exit, no file left behind.
# bad_target WHAT PID WANT [COMMAND PREFIX...]: the tracer run by the prefix.
bad_target() {
	local what=$1 pid=$2 want=$3
	shift 3
	run_bounded "record -p $what" "$@" "$WPPTRACE" record -q -p "$pid" -d 1 -o "$WORK/bad.wpp" 2>"$WORK/bad.err"
	local rc=$? lines
	lines=$(wc -l <"$WORK/bad.err")
	if [ $rc != 0 ] && [ "$lines" = 1 ] && grep -q "^wpptrace: .*$want" "$WORK/bad.err" && [ ! -e "$WORK/bad.wpp" ]; then
		pass "-p $what: $(cat "$WORK/bad.err")"
	else
		fail "-p $what: rc $rc, $lines lines: $(cat "$WORK/bad.err")"
	fi
}
bad_target "missing pid" 999999999 "no such process"
sleep infinity &
plain=$!
# Until the child has become sleep (a moment after the fork it is still
# this shell, and the expected line would name the shell).
plain_exe=$(readlink -f "$(command -v sleep)")
is_sleep() { [ "$(readlink "/proc/$plain/exe")" = "$plain_exe" ]; }
wait_until "sleep infinity to start" is_sleep || finish
# Every line that can name the program does so in one form: -p PID (EXE): ...
bad_target "uninstrumented" "$plain" "-p $plain ($(readlink "/proc/$plain/exe")): not instrumented"
kill $plain
# Instrumented, but tracing was disabled when it started.
rm -f "$WORK/off.pid"
WPP_DISABLE=1 "$WORK/server" "$WORK/off.pid" >/dev/null &
off=$!
wait_file "$WORK/off.pid" "the WPP_DISABLE server to start" || finish
bad_target "WPP_DISABLE" "$off" "-p $off ($WORK/server): tracing is disabled in it (WPP_DISABLE is set)"
kill -TERM $off
wait_bounded "the WPP_DISABLE server, after SIGTERM" $off
# Instrumented and running, but not traceable by this tracer: another
# user's process, and a tracer that is root without CAP_SYS_PTRACE (the
# kernel then refuses it the process's /proc files).
if command -v setpriv >/dev/null; then
	mkdir -m 777 "$WORK/nobody"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$WORK/server" "$WORK/nobody/server.pid" >/dev/null &
	other=$!
	wait_file "$WORK/nobody/server.pid" "nobody's server to start" || finish
	bad_target "another user's, without CAP_SYS_PTRACE" "$other" \
		"-p $other: not traceable: cannot read /proc/$other/exe: Permission denied (needs ptrace rights" \
		setpriv --bounding-set -sys_ptrace
	kill -TERM $other
	wait_bounded "nobody's server, after SIGTERM" $other
else
	fail "setpriv missing: the not-traceable case cannot run"
fi

# Several -p: two servers, one recording; each is attached and traced.
for i in 1 2; do
	rm -f "$WORK/server$i.pid"
	"$WORK/server" "$WORK/server$i.pid" >"$WORK/server$i.out" &
	eval "srv$i=\$!"
done
wait_file "$WORK/server1.pid" "server 1 to start" || finish
wait_file "$WORK/server2.pid" "server 2 to start" || finish
run_bounded "record -p $srv1 -p $srv2 -d 1" "$WPPTRACE" record -q -p "$srv1" -p "$srv2" -d 1 \
	-o "$WORK/two.wpp" 2>"$WORK/two.err" || fail "-p -p: record failed: $(cat "$WORK/two.err")"
not_stopped "$srv1" "-p -p -d 1"
not_stopped "$srv2" "-p -p -d 1"
kill -TERM "$srv1" "$srv2"
wait_bounded "the two servers, after record -p -p and SIGTERM" "$srv1" "$srv2"
jsonl "$WORK/two.wpp"
for s in "$srv1" "$srv2"; do
	n=$(grep -c "\"pid\":$s,.*\"function\":\"handle\"" "$WORK/two.jsonl")
	m=$(info "$WORK/two.wpp" | awk -v p="$s" '$1 == "pid" && $2 == p { on = 1; next } /^  pid / { on = 0 } on && /tracing began mid-run/ { print "yes" }')
	if [ "$n" -gt 0 ] && [ "$m" = yes ]; then
		pass "-p -p: server $s attached, $n handle() paths"
	else
		fail "-p -p: server $s: $n handle() paths, attached mark '${m:-none}'"
	fi
done

# --ready-fd: the line comes once the program runs with the probes attached
# (and on stderr under -v), over either transport; the program does not
# inherit the descriptor; a record that fails first closes it unwritten;
# a descriptor that is not open is one line and exit 2.
for transport in bpf shm; do
	rm -f "$WORK/started.pid"
	start_record "$WORK/started.err" -q --transport=$transport -o "$WORK/started.wpp" \
		-- "$WORK/server" "$WORK/started.pid" || continue
	wait_file "$WORK/started.pid" "the started server to write its pid" || continue
	spid=$(cat "$WORK/started.pid")
	held=$(find "/proc/$spid/fd" -lname "*ready.*" 2>/dev/null | wc -l)
	kill -TERM "$spid"
	wait_bounded "record --transport=$transport, its program sent SIGTERM" "$REC"
	rc=$?
	if [ $rc = 0 ] && [ "$held" = 0 ]; then
		pass "--ready-fd, --transport=$transport: ready line while the program runs; it did not inherit the fd"
	else
		fail "--ready-fd, --transport=$transport: rc $rc, the program holds $held ready fds: $(cat "$WORK/started.err")"
	fi
done
run_bounded "record -v --ready-fd 9 -- true" "$WPPTRACE" -v record --ready-fd 9 -q -o "$WORK/v.wpp" -- true 9>"$WORK/v.ready" 2>"$WORK/v.err"
if [ "$(cat "$WORK/v.ready")" = ready ] && grep -q "^wpptrace: record: recording: the program runs with the probes attached$" "$WORK/v.err"; then
	pass "-v: $(grep recording: "$WORK/v.err")"
else
	fail "-v --ready-fd: fd got '$(cat "$WORK/v.ready")': $(cat "$WORK/v.err")"
fi
out=$(run_bounded "record --ready-fd 1" "$WPPTRACE" record -q --ready-fd 1 -o "$WORK/one.wpp" -- sh -c 'echo program' 2>/dev/null)
# The line comes once the program runs: before or after its own output.
if [ "$(sort <<<"$out")" = "$(printf 'program\nready')" ]; then
	pass "--ready-fd 1: the line on stdout, which the program keeps"
else
	fail "--ready-fd 1: stdout was '$out'"
fi
run_bounded "record -p 999999999 --ready-fd 9" "$WPPTRACE" record -q -p 999999999 --ready-fd 9 -o "$WORK/bad.wpp" 9>"$WORK/bad.ready" 2>/dev/null
if [ $? != 0 ] && [ ! -s "$WORK/bad.ready" ]; then
	pass "--ready-fd: a record that fails writes nothing to it"
else
	fail "--ready-fd: a failing record wrote '$(cat "$WORK/bad.ready")'"
fi
run_bounded "record --ready-fd 57" "$WPPTRACE" record -q --ready-fd 57 -o "$WORK/bad.wpp" -- true 2>"$WORK/fd.err"
rc=$?
if [ $rc = 2 ] && [ "$(cat "$WORK/fd.err")" = "wpptrace: error: record: --ready-fd 57: Bad file descriptor" ]; then
	pass "--ready-fd 57 (not open): $(cat "$WORK/fd.err")"
else
	fail "--ready-fd 57 (not open): rc $rc: $(cat "$WORK/fd.err")"
fi

# Without privilege: one line naming what is missing and the way out.
if command -v setpriv >/dev/null; then
	(cd /tmp && run_bounded "unprivileged record" setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$WPPTRACE" record -q -o /tmp/wpp-attach-noroot.$$.wpp -- true >/dev/null 2>"$WORK/noroot.err")
	rc=$?
	rm -f /tmp/wpp-attach-noroot.$$.wpp
	if [ $rc != 0 ] && [ "$(wc -l <"$WORK/noroot.err")" = 1 ] &&
		grep -q "needs root.*--transport=shm" "$WORK/noroot.err"; then
		pass "unprivileged: $(cat "$WORK/noroot.err")"
	else
		fail "unprivileged: rc $rc: $(cat "$WORK/noroot.err")"
	fi
fi
finish
