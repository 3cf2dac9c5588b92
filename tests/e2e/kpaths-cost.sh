#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kpaths-cost.sh — `kpaths --cost insns|count|COUNTER` (docs/kpaths.md): a
# k-path's cost is the sum of its path instances' costs.  Checked against
# `wpptrace report` (user/report, an independent per-path cost): every
# 1-path costs what the report says its path cost, and every k-path (k = 4,
# every node) costs count x the sum of its paths' per-execution costs; with
# --cost count, count x length.  With root: page faults sampled at period 1
# on tests/unit/costs/progs/faults.c, touch_a's 1-paths carry exactly its
# NA faults, and every k-path (k = 4, both views) costs exactly what its own
# instances did: kpaths-ref.py sums, over every window of `script --format
# jsonl`, the weights of the samples attributed to each instance
# (build/tests/kslab/dump_hits, the report's attribution); the same for
# task-clock sampled on the interp corpus program.
. "$(dirname "$0")/kpaths-lib.sh"

# check_costs REPORT.json K1.json K4.json [count]
check_costs() {
	python3 - "$@" <<'PY'
import json, sys
rep = json.load(open(sys.argv[1]))
unit = {}
for p in rep["paths"]:
    unit[(p["function"], p.get("path", p.get("block")))] = (p["cost"], p["count"])
count_mode = len(sys.argv) > 4
def steps(kp):
    return [(s["function"], s.get("path", s.get("block"))) for s in kp["paths"]]
n1 = n4 = 0
for pr in json.load(open(sys.argv[2]))["processes"]:
    for kp in pr["kpaths"]:
        (lab,) = steps(kp)
        cost, count = unit[lab]
        want = count if count_mode else cost
        if kp["count"] != count or kp["cost"] != want:
            sys.exit("1-path %r: kpaths count %d cost %d, report count %d cost %d" %
                     (lab, kp["count"], kp["cost"], count, want))
        n1 += 1
for pr in json.load(open(sys.argv[3]))["processes"]:
    for kp in pr["kpaths"]:
        per = sum(1 if count_mode else unit[l][0] / unit[l][1] for l in steps(kp))
        want = kp["count"] * per
        if abs(kp["cost"] - want) > 0.5 + 1e-9 * want:
            sys.exit("k-path %r: cost %d, count x per-execution costs %.1f" % (steps(kp), kp["cost"], want))
        n4 += 1
print("%d 1-paths, %d k-paths" % (n1, n4))
PY
}

for prog in recursion interp; do
	record_corpus "$prog" || continue
	w=$WORK/$prog.wpp
	"$WPPTRACE" report "$w" --format json --top 100000 >"$WORK/$prog.report.json" ||
		{ fail "$prog: report"; continue; }
	for cost in insns count; do
		mode=; [ $cost = count ] && mode=count
		"$WPPTRACE" kpaths "$w" -k 1 --all --top 0 --cost $cost --format json >"$WORK/$prog.c1.json" &&
			"$WPPTRACE" kpaths "$w" -k 4 --all --top 0 --cost $cost --format json >"$WORK/$prog.c4.json" ||
			{ fail "$prog: kpaths --cost $cost"; continue; }
		if out=$(check_costs "$WORK/$prog.report.json" "$WORK/$prog.c1.json" "$WORK/$prog.c4.json" $mode); then
			ok "$prog --cost $cost: $out"
		else
			fail "$prog --cost $cost: $out"
		fi
	done
	# Ranked by cost: the text view's first k-path costs the most.
	"$WPPTRACE" kpaths "$w" -k 4 --cost insns --top 0 --format json | python3 -c '
import json, sys
c = [k["cost"] for p in json.load(sys.stdin)["processes"] for k in p["kpaths"]]
sys.exit(not c or c != sorted(c, reverse=True))' && ok "$prog: ranked by cost" || fail "$prog: not ranked by cost"
done

# A counter: needs root (perf events + BPF); skipped without it.
if [ "$(id -u)" != 0 ]; then
	echo "SKIP: counter costs need root"
	finish
fi
"$WPPCC" -O1 -g -o "$WORK/faults" "$ROOT/tests/unit/costs/progs/faults.c" || { fail "wppcc faults.c"; finish; }
na=300 nb=700
w=$WORK/faults.wpp
if ! "$WPPTRACE" record -q -e page-faults -c 1 -o "$w" -- "$WORK/faults" $na $nb 2>"$WORK/faults.err"; then
	fail "record -e page-faults -c 1: $(head -1 "$WORK/faults.err")"
	finish
fi
"$WPPTRACE" report "$w" --cost page-faults --format json --top 100000 >"$WORK/faults.report.json" &&
	"$WPPTRACE" kpaths "$w" -k 1 --all --top 0 --cost page-faults --format json >"$WORK/faults.c1.json" &&
	"$WPPTRACE" kpaths "$w" -k 4 --all --top 0 --cost page-faults --format json >"$WORK/faults.c4.json" ||
	{ fail "report/kpaths --cost page-faults"; finish; }
# 1-paths: what the report says each path cost (a 1-path's windows are its
# instances, so exact and average agree).
if out=$(check_costs "$WORK/faults.report.json" "$WORK/faults.c1.json" "$WORK/faults.c1.json"); then
	ok "faults --cost page-faults: $out"
else
	fail "faults --cost page-faults: $out"
fi
# check_instance_costs NAME WPP COUNTER: every 4-path, both views, costs the
# sum of its own instances' attributed samples (the brute force).
check_instance_costs() {
	local name=$1 w=$2 counter=$3 view flag out
	"$WPPTRACE" script "$w" --format jsonl >"$WORK/$name.jsonl" &&
		"$ROOT/build/tests/kslab/dump_hits" "$w" "$counter" >"$WORK/$name.hits.jsonl" ||
		{ fail "$name: script / dump_hits"; return; }
	[ -s "$WORK/$name.hits.jsonl" ] || { fail "$name: no attributed $counter samples"; return; }
	for view in activation flat; do
		flag=; [ $view = flat ] && flag=--flat
		"$WPPTRACE" kpaths "$w" -k 4 --all --top 0 --cost "$counter" --format json $flag \
			>"$WORK/$name.c4.$view.json" || { fail "$name: kpaths --cost $counter $flag"; continue; }
		if out=$(python3 "$ROOT/tests/e2e/kpaths-ref.py" $flag --costs "$WORK/$name.hits.jsonl" 4 \
			"$WORK/$name.jsonl" "$WORK/$name.c4.$view.json"); then
			ok "$name $view per-instance $counter costs: $out"
		else
			fail "$name $view per-instance $counter costs: $out"
		fi
	done
}
check_instance_costs faults "$w" page-faults
# CPU time sampled on the interpreter: costs that vary from one instance of
# a path to the next.
if "$WPPTRACE" record -q -e task-clock -c 20000 -o "$WORK/interp.tc.wpp" -- "$WORK/interp" \
	>/dev/null 2>"$WORK/interp.tc.err"; then
	check_instance_costs interp.tc "$WORK/interp.tc.wpp" task-clock
else
	fail "record -e task-clock: $(head -1 "$WORK/interp.tc.err")"
fi
a=$(python3 -c '
import json, sys
print(sum(k["cost"] for p in json.load(open(sys.argv[1]))["processes"] for k in p["kpaths"]
          if k["paths"][0]["function"] == "touch_a"))' "$WORK/faults.c1.json")
[ "$a" = "$na" ] && ok "touch_a's 1-paths carry exactly its $na faults" || fail "touch_a's 1-paths carry $a faults, not $na"
"$WPPTRACE" kpaths "$w" -k 4 --cost page-faults --top 3 | grep -q '^cost: page-faults: ~' &&
	ok "text view states the counter estimate" || fail "text view lacks the counter summary"
rm -f "$w"
finish
