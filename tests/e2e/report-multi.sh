#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Multi-process reports (tests/e2e/report-data/multi.c): a parent, three
# forked children of the same binary and a child that execs another binary.
# `report --by process` must give each process image the path executions
# that `script --format jsonl` lists for it, the merged tables must add
# processes of the same binary up (and keep the two binaries apart), and
# `script --processes` must describe the fork and exec.  With root, the same
# program recorded through BPF must give the same report (pids aside).
. "$(dirname "$0")/report-lib.sh"
cp "$DATA/multi.c" "$DATA/multi_other.c" "$WORK/"
( cd "$WORK" && "$WPPCC" -O1 -g multi.c -o multi && "$WPPCC" -O1 -g multi_other.c -o other ) ||
	{ fail "build"; finish; }
record "$WORK/shm.wpp" "$WORK/multi" "$WORK/other" >"$WORK/out.txt" 2>"$WORK/rec.err" || fail "record shm"
"$WPPTRACE" script "$WORK/shm.wpp" --format jsonl --processes >"$WORK/shm.jsonl" || fail "script"
"$WPPTRACE" report "$WORK/shm.wpp" --by process --format json --top 1000 >"$WORK/proc.json" || fail "report --by process"
"$WPPTRACE" report "$WORK/shm.wpp" --by function --format json --top 1000 >"$WORK/fn.json" || fail "report --by function"
"$WPPTRACE" report "$WORK/shm.wpp" --by process >"$WORK/proc.txt" || fail "report text"
python3 - "$WORK" <<'PY' && pass "per process and merged per binary == script's events" || fail "per process / merged counts"
import collections, json, os, sys
work = sys.argv[1]
ev = [json.loads(l) for l in open(os.path.join(work, "shm.jsonl"))]
procs = {(e["pid"], e["gen"]): e for e in ev if e["type"] == "process"}
per_image = collections.Counter((e["pid"], e["gen"]) for e in ev if e["type"] == "path")
# processes of one binary share their functions: same (name, stable id, binary)
exe = {k: os.path.basename(p["exe"]) for k, p in procs.items()}
per_fn = collections.Counter((exe[(e["pid"], e["gen"])], e["function"], e["stable_id"])
                             for e in ev if e["type"] == "path")
bad = []
rep = json.load(open(os.path.join(work, "proc.json")))
got = {(p["pid"], p["gen"]): p["count"] for p in rep["processes"]}
if got != dict(per_image):
    bad.append(f"per process: report {got} != script {dict(per_image)}")
if len(got) != 6:
    bad.append(f"{len(got)} process images, want 6 (parent, 3 forks, fork + exec)")
fn = json.load(open(os.path.join(work, "fn.json")))
got_fn = {(os.path.basename(f["object"]), f["function"], f["stable_id"]): f["count"] for f in fn["functions"]}
if got_fn != dict(per_fn):
    bad.append(f"merged: report {got_fn} != script {dict(per_fn)}")
# work() ran in four processes of multi: merged into one row
if sum(1 for k in got_fn if k[1] == "work") != 1:
    bad.append("work() not merged into one row")
if ("other", "main") not in {(k[0], k[1]) for k in got_fn} or ("multi", "main") not in {(k[0], k[1]) for k in got_fn}:
    bad.append("the two binaries' main functions are not kept apart")
print("\n".join(bad))
sys.exit(1 if bad else 0)
PY
python3 - "$WORK/shm.jsonl" <<'PY' && pass "script --processes: fork and exec records" || fail "script --processes"
import json, os, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
procs = [e for e in ev if e["type"] == "process"]
root = [p for p in procs if not p["flags"]]
forks = [p for p in procs if p["flags"] == ["forked"]]
execs = [p for p in procs if "execed" in p["flags"]]
ok = len(root) == 1 and len(forks) == 4 and len(execs) == 1
ok = ok and all(p["ppid"] == root[0]["pid"] for p in forks)
ok = ok and execs[0]["gen"] == 1 and os.path.basename(execs[0]["exe"]) == "other"
ok = ok and execs[0]["pid"] in {p["pid"] for p in forks}
# process records come first, path records carry the function's stable id
ok = ok and all(e["type"] == "process" for e in ev[:len(procs)])
ok = ok and all(len(e["stable_id"]) == 16 for e in ev if e["type"] == "path")
if not ok:
    print(procs)
sys.exit(0 if ok else 1)
PY
# text: one row per image, the exec'd image as pid/1 named after its program
grep -Eq '^[0-9]+/1 .* other +steps$' "$WORK/proc.txt" && pass "text: exec'd image row" ||
	{ fail "text: exec'd image row"; cat "$WORK/proc.txt"; }
# The same program through the BPF transport (root): the same report, pids aside.
if [ "$(id -u)" = 0 ]; then
	if "$WPPTRACE" record -q -o "$WORK/bpf.wpp" -- "$WORK/multi" "$WORK/other" >"$WORK/out-bpf.txt" 2>"$WORK/bpf.err"; then
		norm() { "$WPPTRACE" report "$1" --by "$2" --format json --top 1000 | python3 -c '
import json, sys
r = json.load(sys.stdin)
rows = r["functions"] if sys.argv[1] == "function" else r["processes"]
for x in rows:
    x.pop("pid", None)
print(json.dumps(sorted(rows, key=json.dumps), sort_keys=True))
print(json.dumps(r["totals"], sort_keys=True) if "totals" in r else "")' "$2"; }
		if [ "$(norm "$WORK/shm.wpp" function)" = "$(norm "$WORK/bpf.wpp" function)" ] &&
			[ "$(norm "$WORK/shm.wpp" process)" = "$(norm "$WORK/bpf.wpp" process)" ] &&
			cmp -s "$WORK/out.txt" "$WORK/out-bpf.txt"; then
			pass "BPF transport: the same report as shm"
		else
			fail "BPF transport differs from shm"
			diff <(norm "$WORK/shm.wpp" process) <(norm "$WORK/bpf.wpp" process) | head -5
		fi
	else
		fail "record through BPF: $(head -1 "$WORK/bpf.err")"
	fi
else
	echo "SKIP: BPF comparison needs root"
fi
finish
