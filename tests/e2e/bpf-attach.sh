#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-attach — `record -p` on a running instrumented server: the trace
# decodes fully (the TUs come from the runtime's registry, read through
# /proc/PID/mem), the process is marked as attached mid-run, -d ends the
# recording and the server keeps running; several -p record every target;
# bad -p targets fail in one line, and so does a tracer without privilege,
# which is told to use --transport=shm.  A target killed while attached has
# its threads' unpublished buffers salvaged.
. "$(dirname "$0")/bpf-lib.sh"

build server "$PROGS/server.c" || finish
"$WORK/server" "$WORK/server.pid" >"$WORK/server.out" &
srv=$!
for _ in $(seq 50); do [ -s "$WORK/server.pid" ] && break; sleep 0.1; done
"$WPPTRACE" record -q -p "$srv" -d 1 -o "$WORK/srv.wpp" 2>"$WORK/srv.err"
rc=$?
kill -0 "$srv" 2>/dev/null && pass "-p: the server still runs after the recording" ||
	fail "-p: the server died"
kill -TERM "$srv"
wait "$srv"
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

# Killed with SIGKILL while attached: its threads' unpublished buffers are
# salvaged (their positions were read at attach, the threads having
# started before the probe): record says so, info counts them, no loss.
rm -f "$WORK/server.pid"
"$WORK/server" "$WORK/server.pid" >/dev/null &
srv=$!
for _ in $(seq 50); do [ -s "$WORK/server.pid" ] && break; sleep 0.1; done
"$WPPTRACE" record -p "$srv" -o "$WORK/killed.wpp" 2>"$WORK/killed.err" &
rec=$!
sleep 1
kill -KILL "$srv"
wait "$srv" 2>/dev/null
wait $rec
salvaged=$(grep -o "[0-9]* events in [0-9]* batches salvaged" "$WORK/killed.err")
lost=$(info "$WORK/killed.wpp" | awk '$1 == "lost" { print $2, $5 }')
if [ -n "$salvaged" ] && [ "$lost" = "0 0" ] && info "$WORK/killed.wpp" | grep -q "^batches.*salvaged"; then
	pass "-p, target SIGKILLed: $salvaged, nothing lost"
else
	fail "-p, target SIGKILLed: salvage ${salvaged:-not reported}, lost $lost: $(cat "$WORK/killed.err")"
fi

# One clear line for each bad target, non-zero exit, no file left behind.
# bad_target WHAT PID WANT [COMMAND PREFIX...]: the tracer run by the prefix.
bad_target() {
	local what=$1 pid=$2 want=$3
	shift 3
	"$@" "$WPPTRACE" record -q -p "$pid" -d 1 -o "$WORK/bad.wpp" 2>"$WORK/bad.err"
	local rc=$? lines
	lines=$(wc -l <"$WORK/bad.err")
	if [ $rc != 0 ] && [ "$lines" = 1 ] && grep -q "^wpptrace: .*$want" "$WORK/bad.err" && [ ! -e "$WORK/bad.wpp" ]; then
		pass "-p $what: $(cat "$WORK/bad.err")"
	else
		fail "-p $what: rc $rc, $lines lines: $(cat "$WORK/bad.err")"
	fi
}
bad_target "missing pid" 999999999 "no such process"
sleep 30 &
plain=$!
bad_target "uninstrumented" "$plain" "not instrumented"
kill $plain
# Instrumented, but tracing was disabled when it started.
rm -f "$WORK/off.pid"
WPP_DISABLE=1 "$WORK/server" "$WORK/off.pid" >/dev/null &
off=$!
for _ in $(seq 50); do [ -s "$WORK/off.pid" ] && break; sleep 0.1; done
bad_target "WPP_DISABLE" "$off" "-p $off: tracing is disabled in it (WPP_DISABLE is set)"
kill -TERM $off
wait $off
# Instrumented and running, but not traceable by this tracer: another
# user's process, and a tracer that is root without CAP_SYS_PTRACE (the
# kernel then refuses it the process's /proc files).
if command -v setpriv >/dev/null; then
	mkdir -m 777 "$WORK/nobody"
	setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$WORK/server" "$WORK/nobody/server.pid" >/dev/null &
	other=$!
	for _ in $(seq 50); do [ -s "$WORK/nobody/server.pid" ] && break; sleep 0.1; done
	bad_target "another user's, without CAP_SYS_PTRACE" "$other" \
		"-p $other: not traceable: cannot read /proc/$other/exe: Permission denied (needs ptrace rights" \
		setpriv --bounding-set -sys_ptrace
	kill -TERM $other
	wait $other
else
	fail "setpriv missing: the not-traceable case cannot run"
fi

# Several -p: two servers, one recording; each is attached and traced.
for i in 1 2; do
	rm -f "$WORK/server$i.pid"
	"$WORK/server" "$WORK/server$i.pid" >"$WORK/server$i.out" &
	eval "srv$i=\$!"
done
for _ in $(seq 50); do [ -s "$WORK/server1.pid" ] && [ -s "$WORK/server2.pid" ] && break; sleep 0.1; done
"$WPPTRACE" record -q -p "$srv1" -p "$srv2" -d 1 -o "$WORK/two.wpp" 2>"$WORK/two.err" ||
	fail "-p -p: record failed: $(cat "$WORK/two.err")"
kill -TERM "$srv1" "$srv2"
wait "$srv1" "$srv2"
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

# Without privilege: one line naming what is missing and the way out.
if command -v setpriv >/dev/null; then
	(cd /tmp && setpriv --reuid=65534 --regid=65534 --clear-groups \
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
