#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The oracles must be able to fail: the comparator is run on deliberately
# damaged traces (one block dropped, two paths swapped, a function renamed,
# one exit event dropped) and must report a difference every time, while the
# undamaged comparison passes.  First on a synthetic trace, then on real
# recordings of a corpus program.
. "$(dirname "$0")/../oracle/lib.sh"
w=$WORK/selfcheck
rm -rf "$w" && mkdir -p "$w"

# expect STATUS WHAT CMD...: the comparator must exit with STATUS.
expect() {
	local want=$1 what=$2
	shift 2
	check_done
	"$@" >"$w/cmp.out" 2>&1
	local rc=$?
	if [ $rc -eq "$want" ]; then
		pass "$what (status $rc)"
	else
		fail "$what: comparator exited $rc, expected $want"
		show_file_head "$w/cmp.out" 20
	fi
}

# Synthetic traces: two threads, a few functions.
$PY - "$w/syn.jsonl" <<'PY'
import json, sys
recs = []
for tid, fns in ((101, ["main", "f", "g"]), (102, ["worker", "f"])):
    for i in range(30):
        fn = fns[i % len(fns)]
        recs.append({"type": "path", "pid": 100, "tid": tid, "function": fn, "stable_id": hash(fn) & 0xffff,
                     "blocks": [0, i % 4 + 1, 5], "start": "entry" if i % 3 == 0 else "call",
                     "end": "return" if i % 3 == 2 else "call"})
with open(sys.argv[1], "w") as f:
    for r in recs:
        f.write(json.dumps(r) + "\n")
PY
# The same trace with tids renumbered and threads interleaved differently.
$PY - "$w/syn.jsonl" "$w/syn2.jsonl" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
recs.sort(key=lambda r: -r["tid"])  # stable: keeps order within a thread
for r in recs:
    r["tid"] += 1000
open(sys.argv[2], "w").write("".join(json.dumps(r) + "\n" for r in recs))
PY
expect 0 "synthetic: identical traces compare equal (tids renumbered)" $CMP blocks "$w/syn.jsonl" "$w/syn2.jsonl"
for p in drop-block swap-paths rename; do
	expect 1 "synthetic: perturbation $p is detected" $CMP blocks "$w/syn.jsonl" "$w/syn2.jsonl" --perturb $p
done
expect 2 "synthetic: unusable input is reported as such" $CMP blocks "$w/syn.jsonl" "$w/no-such.jsonl"

# Real recordings (needs the tools).
require_tools "$WPPCC" "$WPPTRACE"
name=callbacks
build_recorder || finish
for v in paths-O0 blocks-O0 cyg-O0; do
	build_one "$v" "$name" || { fail "cannot build $v/$name"; finish; }
done
for v in paths-O0 blocks-O0 cyg-O0; do
	run_prog record "$v" "$name" "$w/$v"
	decode "$w/$v" || fail "decode $v"
done
# The baseline must compare equal for the perturbation checks to mean
# anything.
meta=(--meta "$WORK/build/paths-O0/$name")
expect 0 "real: paths vs blocks of $name compare equal" $CMP blocks "$w/paths-O0.jsonl" "$w/blocks-O0.jsonl" "${meta[@]}"
for p in drop-block swap-paths rename; do
	expect 1 "real: perturbation $p is detected (blocks)" \
		$CMP blocks "$w/paths-O0.jsonl" "$w/blocks-O0.jsonl" "${meta[@]}" --perturb $p
done
expect 1 "real: a wrong path id is caught by the independent regeneration" \
	$CMP blocks "$w/paths-O0.jsonl" "$w/paths-O0.jsonl" --meta "$WORK/build/paths-O0/$name" --perturb bump-id
expect 0 "real: entry/exit of $name agree with the cyg log" $CMP cyg "$w/cyg-O0.jsonl" "$w/cyg-O0.cyg"
for p in drop-block swap-paths rename; do
	expect 1 "real: perturbation $p is detected (entry/exit)" \
		$CMP cyg "$w/cyg-O0.jsonl" "$w/cyg-O0.cyg" --perturb $p
done
finish
