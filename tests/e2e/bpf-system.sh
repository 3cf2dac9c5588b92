#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-system — `record -a` picks up an instrumented process started after
# the tracer, and its trace is identical to a shm recording of the same run.
. "$(dirname "$0")/bpf-lib.sh"

build mtwork "$PROGS/mtwork.c" || finish
(cd "$WORK" && "$WPPTRACE" record -q --transport=shm -o ref.wpp -- ./mtwork 3 50000 >/dev/null)
jsonl "$WORK/ref.wpp"
"$WPPTRACE" record -q -a -d 4 -o "$WORK/all.wpp" 2>"$WORK/all.err" &
rec=$!
sleep 1.5
(cd "$WORK" && ./mtwork 3 50000 >/dev/null)
wait $rec || fail "-a record failed: $(cat "$WORK/all.err")"
jsonl "$WORK/all.wpp"
# Keep only the processes running mtwork (others may be instrumented too).
pids=$(info "$WORK/all.wpp" | awk '/^  pid / && $NF ~ /mtwork$/ { print $2 }')
[ -n "$pids" ] || { fail "-a: mtwork not in the recording"; finish; }
python3 - "$WORK/all.jsonl" "$WORK/mine.jsonl" $pids <<'PY'
import json, sys
keep = set(int(p) for p in sys.argv[3:])
with open(sys.argv[1]) as f, open(sys.argv[2], "w") as out:
    for line in f:
        if json.loads(line)["pid"] in keep:
            out.write(line)
PY
if out=$($CMP same "$WORK/ref.jsonl" "$WORK/mine.jsonl"); then
	pass "-a: process started later recorded: $out"
else
	fail "-a: $out"
fi
finish
