#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Costs per source line from the sampled ip (issue 7): costlines.c writes NA
# fresh pages on one line, NB on another of the same function and NC through
# an inlined helper called from a third; with page-faults sampled at period 1
# (BPF transport, root) `annotate --cost` must put exactly NA, NB and NC
# faults on those lines (inlined code charged to its call line), the
# hot paths' per-line split must add up to the same, and `report --cost`
# shows each path's split.  The oracle is the program's arguments and the
# marker comments in its source.  Without root: SKIP (perf events and BPF).
. "$(dirname "$0")/report-lib.sh"
if [ "$(id -u)" != 0 ]; then echo "SKIP: $(basename "$0") needs root (perf events, BPF)"; exit 0; fi
cp "$DATA/costlines.c" "$WORK/"
( cd "$WORK" && "$WPPCC" -O2 -g costlines.c -o costlines ) || { fail "build"; finish; }
LA=$(grep -n LINE_A "$WORK/costlines.c" | cut -d: -f1)
LB=$(grep -n LINE_B "$WORK/costlines.c" | cut -d: -f1)
LC=$(grep -n LINE_C "$WORK/costlines.c" | cut -d: -f1)
for sizes in "300 700 50" "1234 17 333"; do
	set -- $sizes
	na=$1 nb=$2 nc=$3 out=$WORK/cl-$1-$2.wpp
	if ! "$WPPTRACE" record -q -e page-faults -c 1 -o "$out" -- "$WORK/costlines" "$na" "$nb" "$nc" 2>"$WORK/rec.err"; then
		fail "record -e page-faults -c 1: $(head -1 "$WORK/rec.err")"
		continue
	fi
	"$WPPTRACE" annotate "$out" touch --cost page-faults --format json >"$WORK/ann.json" 2>"$WORK/ann.err" ||
		fail "annotate --cost json: $(head -1 "$WORK/ann.err")"
	python3 - "$WORK/ann.json" "$LA" "$LB" "$LC" "$na" "$nb" "$nc" <<'PY' && pass "annotate --cost ($sizes): lines $LA/$LB/$LC have $na/$nb/$nc faults" || fail "annotate --cost ($sizes)"
import json, sys
f = json.load(open(sys.argv[1]))["functions"][0]
la, lb, lc, na, nb, nc = map(int, sys.argv[2:])
cost = {l["line"]: l.get("cost", 0) for l in f["lines"]}
ok = cost.get(la) == na and cost.get(lb) == nb and cost.get(lc) == nc
others = sum(c for l, c in cost.items() if l not in (la, lb, lc))
ok &= others == 0 and f["cost_elsewhere"] == 0
# every hot path's per-line split adds up to its cost
for p in f["hot_paths"]:
    ok &= sum(x["cost"] for x in p["cost_by_line"]) == p["cost"]
if not ok:
    print("lines:", {l: c for l, c in cost.items() if c}, "elsewhere:", f["cost_elsewhere"],
          "paths:", [(p["path"], p["cost"], p["cost_by_line"]) for p in f["hot_paths"]])
sys.exit(0 if ok else 1)
PY
	"$WPPTRACE" annotate "$out" touch --cost page-faults >"$WORK/ann.txt" 2>/dev/null
	if grep -Eq "^ +$LB +[0-9]+ +[0-9.]+% +$nb +[A-C]* +p\[\(na" "$WORK/ann.txt" &&
		awk 'NR > 1 && length > 100 { exit 1 }' "$WORK/ann.txt" &&
		tr -s '\n ' '  ' <"$WORK/ann.txt" | grep -Eq "; by line \[($LA|$LB|$LC): [0-9]+\]"; then
		pass "annotate --cost text: the line's faults in their own column, hot paths by line"
	else
		fail "annotate --cost text"; sed -n 1,12p "$WORK/ann.txt"
	fi
	"$WPPTRACE" report "$out" --cost page-faults --sort cost --top 2 >"$WORK/rep.txt" 2>/dev/null
	if grep -Eq "^ +\[($LA|$LB|$LC): [0-9]+\] loop:" "$WORK/rep.txt"; then
		pass "report --cost: hot paths split by line"
	else
		fail "report --cost: no per-line split"; cat "$WORK/rep.txt"
	fi
	rm -f "$out"
done
finish
