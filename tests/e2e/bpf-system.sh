#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-system — `record -a` picks up an instrumented process started after
# the tracer, and its trace is identical to a shm recording of the same run.
# A static-runtime program started after the tracer is attached once its
# exec record is read: whatever it published before that is marked as a gap
# at the start of its threads, sized in batches (delivered + gapped = what
# the shm recording holds), and every thread is the reference thread with
# at most a prefix cut off.
. "$(dirname "$0")/bpf-lib.sh"

build mtwork "$PROGS/mtwork.c" || finish
build mtstatic "$PROGS/mtwork.c" -fwpp-static-rt || finish
(cd "$WORK" && "$WPPTRACE" record -q --transport=shm -o ref.wpp -- ./mtwork 3 50000 >/dev/null)
jsonl "$WORK/ref.wpp"
# Half its work before a 3 s pause (the collector attaches meanwhile), in
# 64-word batches so that the first half is published before the pause.
(cd "$WORK" && "$WPPTRACE" record -q --transport=shm --buffer-words 64 -o sref.wpp -- \
	./mtstatic 3 40000 3000 >/dev/null)
jsonl "$WORK/sref.wpp"
"$WPPTRACE" record -q -a -d 7 -o "$WORK/all.wpp" 2>"$WORK/all.err" &
rec=$!
sleep 1.5
(cd "$WORK" && ./mtwork 3 50000 >/dev/null)
(cd "$WORK" && WPP_BUFFER_WORDS=64 ./mtstatic 3 40000 3000 >/dev/null)
wait $rec || fail "-a record failed: $(cat "$WORK/all.err")"
# Keep only the processes running mtwork (others may be instrumented too).
pids=$(info "$WORK/all.wpp" | awk '/^  pid / && $NF ~ /mtwork$/ { print $2 }')
[ -n "$pids" ] || { fail "-a: mtwork not in the recording"; finish; }
for p in $pids; do "$WPPTRACE" script "$WORK/all.wpp" --pid "$p" --format jsonl; done >"$WORK/mine.jsonl"
if out=$($CMP same "$WORK/ref.jsonl" "$WORK/mine.jsonl"); then
	pass "-a: process started later recorded: $out"
else
	fail "-a: $out"
fi

# The static-runtime program: per-thread suffixes of the reference, the cut
# marked by one gap at the thread's start whose batches make up the count.
spid=$(info "$WORK/all.wpp" | awk '/^  pid / && $NF ~ /mtstatic$/ { print $2 }')
sref=$(info "$WORK/sref.wpp" | awk '/^  pid / && $NF ~ /mtstatic$/ { on = 1; next } on && /batches/ { print $6; exit }')
[ -n "$spid" ] || { fail "-a: the static-runtime program is not in the recording"; finish; }
"$WPPTRACE" script "$WORK/all.wpp" --pid "$spid" --format jsonl >"$WORK/static.jsonl"
if out=$(python3 - "$WORK/sref.jsonl" "$WORK/static.jsonl" "$spid" "${sref%,}" <<'PY'
import json, sys
from array import array
# Compact: every (fid, path) is a small int, a thread an array of them.
code = {}
def load(path, pid=None):
    threads, gaps = {}, {}
    mark = None if pid is None else f'"pid":{pid},'
    for line in open(path):
        if mark is not None and mark not in line:
            continue
        e = json.loads(line)
        t = threads.setdefault(e["tid"], array("q"))
        # By word (fid, payload), so that the check does not depend on
        # the module being known: the cut is what is checked here.
        if e["type"] == "path":
            t.append(code.setdefault((e["fid"], e["path"]), len(code)))
        elif e["type"] == "unattributed" and "payload" in e:
            t.append(code.setdefault((e["fid"], e["payload"]), len(code)))
        elif e["type"] == "gap":
            gaps.setdefault(e["tid"], []).append((len(t), e["lost_batches"]))
        else:
            t.append(-1)
    return threads, gaps
ref, _ = load(sys.argv[1])
mine, gaps = load(sys.argv[2], int(sys.argv[3]))
gapped, problems = 0, []
for tid, seq in mine.items():
    at = [pos for pos, _ in gaps.get(tid, [])]
    if at not in ([], [0]):
        problems.append(f"thread {tid}: gaps at {at}, want none or one at the start")
    gapped += sum(n for _, n in gaps.get(tid, []))
    if not any(len(r) >= len(seq) and r[len(r) - len(seq):] == seq for r in ref.values()):
        problems.append(f"thread {tid}: not a suffix of any reference thread")
print(gapped)
for p in problems:
    print(p)
sys.exit(1 if problems else 0)
PY
); then
	got=$(info "$WORK/all.wpp" | awk -v p="$spid" '$1 == "pid" && $2 == p { on = 1; next } on && /batches/ { print $6; exit }')
	if [ "$((${got%,} + out))" = "${sref%,}" ]; then
		pass "-a static runtime: ${got%,} batches delivered + $out marked unseen = ${sref%,} (shm)"
	else
		fail "-a static runtime: ${got%,} batches delivered + $out marked unseen, shm has ${sref%,}"
	fi
else
	fail "-a static runtime: $out"
fi
finish
