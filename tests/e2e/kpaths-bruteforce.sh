#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kpaths-bruteforce.sh — every node and count of the k-IPF `kpaths` builds
# from a trace equals a python3 brute-force n-gram count over
# `wpptrace script --format jsonl` (tests/e2e/kpaths-ref.py), per process,
# for several k up to 32, in both views (per activation, the default, and
# --flat), on wppcc-built programs recorded with --transport=shm (loops,
# calls, recursion, threads, callbacks from qsort, signal handlers, longjmp).
. "$(dirname "$0")/kpaths-lib.sh"

for prog in interp recursion threads callbacks signals longjmp; do
	record_corpus "$prog" || continue
	w=$WORK/$prog.wpp
	"$WPPTRACE" script "$w" --format jsonl >"$WORK/$prog.jsonl" || { fail "$prog: script"; continue; }
	ks="1 3 8"
	[ "$prog" = interp ] && ks="1 2 5 8 32"
	for k in $ks; do
		for view in activation flat; do
			flag=; [ $view = flat ] && flag=--flat
			"$WPPTRACE" kpaths "$w" -k $k --all --top 0 --format json $flag \
				>"$WORK/$prog.k$k.$view.json" || { fail "$prog: kpaths -k $k $flag"; continue; }
			if out=$(python3 "$ROOT/tests/e2e/kpaths-ref.py" $flag $k "$WORK/$prog.jsonl" \
				"$WORK/$prog.k$k.$view.json"); then
				ok "$prog $view: $out"
			else
				fail "$prog $view k=$k: $out"
			fi
		done
	done
	# The views differ where calls nest (they must, or the test proves nothing).
	[ "$prog" = recursion ] && { cmp -s "$WORK/$prog.k8.activation.json" "$WORK/$prog.k8.flat.json" &&
		fail "$prog: activation and flat views are identical"; }
	# Pruned builds: never above the truth, at most the stated bound below.
	"$WPPTRACE" kpaths "$w" -k 8 --all --top 0 --prune-nodes 256 --format json \
		>"$WORK/$prog.pruned.json" || { fail "$prog: pruned kpaths"; continue; }
	if out=$(python3 - "$WORK/$prog.k8.activation.json" "$WORK/$prog.pruned.json" <<'PY'
import json, sys
def load(p):
    d = json.load(open(p)); out = {}; lost = {}
    for pr in d["processes"]:
        key = (pr["pid"], pr["gen"]); lost[key] = pr["lost_items"]
        for k in pr["kpaths"]:
            out[(key, tuple((s["fid"], s.get("path", s.get("block"))) for s in k["paths"]))] = k["count"]
    return out, lost
exact, _ = load(sys.argv[1]); pruned, lost = load(sys.argv[2])
worst = 0
for g, c in exact.items():
    p = pruned.get(g, 0)
    if p > c or c - p > lost[g[0]]:
        print("bound broken at", g, c, p, lost[g[0]]); sys.exit(1)
    worst = max(worst, c - p)
for g in pruned:
    if g not in exact:
        print("invented k-path", g); sys.exit(1)
print("lost %s, worst deficit %d, %d of %d k-paths kept" % (sorted(lost.values()), worst, len(pruned), len(exact)))
PY
	); then
		ok "$prog: pruning bound: $out"
	else
		fail "$prog: pruning bound: $out"
	fi
done
finish
