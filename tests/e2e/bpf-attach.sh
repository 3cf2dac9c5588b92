#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-attach — `record -p` on a running instrumented server: the trace
# decodes fully (the TUs come from the runtime's registry, read through
# /proc/PID/mem), the process is marked as attached mid-run, -d ends the
# recording and the server keeps running; bad -p targets fail in one line.
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

# One clear line for each bad target, non-zero exit, no file left behind.
bad_target() {
	local what=$1 pid=$2 want=$3
	"$WPPTRACE" record -q -p "$pid" -d 1 -o "$WORK/bad.wpp" 2>"$WORK/bad.err"
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
finish
