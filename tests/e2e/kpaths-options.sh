#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# kpaths-options.sh — the selection options and the Figure-4 view of
# `wpptrace kpaths` (docs/kpaths.md), checked against the full k-IPF
# (`--all --top 0`, itself checked against the brute force by
# kpaths-bruteforce.sh):
#   default          exactly the maximal k-paths: k long, or a prefix no
#                    listed k-path extends;
#   --min-count N    exactly the k-paths counted >= N;
#   --function F     exactly the k-paths whose first path is F's;
#   --top N          N k-paths, the N largest counts, best first;
#   Figure 4         every step's count is its prefix's count in the full
#                    k-IPF and its fraction is that count over the previous
#                    step's; the text view prints the "of prev" column.
. "$(dirname "$0")/kpaths-lib.sh"

for prog in interp recursion; do
	record_corpus "$prog" || continue
	w=$WORK/$prog.wpp
	j=$WORK/$prog.opt
	"$WPPTRACE" kpaths "$w" -k 4 --all --top 0 --format json >"$j.all.json" &&
		"$WPPTRACE" kpaths "$w" -k 4 --top 0 --format json >"$j.max.json" &&
		"$WPPTRACE" kpaths "$w" -k 4 --top 5 --format json >"$j.top.json" ||
		{ fail "$prog: kpaths"; continue; }
	read -r mincount fn < <(python3 - "$j.all.json" <<'PY'
import json, sys
kps = [k for p in json.load(open(sys.argv[1]))["processes"] for k in p["kpaths"]]
counts = sorted(k["count"] for k in kps)
fns = sorted({k["paths"][0]["function"] for k in kps if k["paths"][0]["function"]})
print(counts[len(counts) // 2], fns[len(fns) // 2])
PY
)
	"$WPPTRACE" kpaths "$w" -k 4 --all --top 0 --min-count "$mincount" --format json >"$j.min.json" &&
		"$WPPTRACE" kpaths "$w" -k 4 --all --top 0 --function "$fn" --format json >"$j.fn.json" &&
		"$WPPTRACE" kpaths "$w" -k 4 --top 3 >"$j.txt" ||
		{ fail "$prog: kpaths --min-count/--function"; continue; }
	if out=$(python3 - "$j" "$mincount" "$fn" <<'PY'
import json, sys
base, mincount, fn = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def load(suffix):
    out = []
    for p in json.load(open(base + suffix))["processes"]:
        for k in p["kpaths"]:
            labels = tuple((s["fid"], s.get("path", s.get("block"))) for s in k["paths"])
            out.append(((p["pid"], p["gen"]) + labels, k))
    return out
full = dict(load(".all.json"))
if len(full) < 10:
    sys.exit("too few k-paths to say anything: %d" % len(full))
prefixes = {key[:-1] for key in full if len(key) > 3}
def want(pred):
    return {key for key, k in full.items() if pred(key, k)}
def got(suffix):
    return {key for key, _ in load(suffix)}
checks = {
    ".max.json": want(lambda key, k: len(key) - 2 == 4 or key not in prefixes),
    ".min.json": want(lambda key, k: k["count"] >= mincount),
    ".fn.json": want(lambda key, k: k["paths"][0]["function"] == fn),
}
for suffix, w in checks.items():
    g = got(suffix)
    if g != w:
        sys.exit("%s: %d listed, %d expected, %d differ" % (suffix, len(g), len(w), len(g ^ w)))
    for key, k in load(suffix):
        if k["count"] != full[key]["count"]:
            sys.exit("%s: %r count %d, full %d" % (suffix, key, k["count"], full[key]["count"]))
top = load(".top.json")
best = sorted((k["count"] for key, k in full.items() if key in checks[".max.json"]), reverse=True)
if [k["count"] for _, k in top] != best[:5]:
    sys.exit("--top 5: counts %r, the 5 largest are %r" % ([k["count"] for _, k in top], best[:5]))
steps = 0
for key, k in full.items():
    for i, s in enumerate(k["paths"]):
        prefix = key[:2 + i + 1]
        if s["count"] != full[prefix]["count"]:
            sys.exit("%r step %d counts %d, its prefix %d" % (key, i, s["count"], full[prefix]["count"]))
        if i == 0:
            if s["fraction"] is not None:
                sys.exit("first step has a fraction")
            continue
        if abs(s["fraction"] - s["count"] / k["paths"][i - 1]["count"]) > 1e-6:
            sys.exit("%r step %d fraction %f" % (key, i, s["fraction"]))
        steps += 1
print("%d k-paths; maximal, --min-count %d (%d), --function %s (%d), --top 5, %d fractions"
      % (len(full), mincount, len(checks[".min.json"]), fn, len(checks[".fn.json"]), steps))
PY
); then
		ok "$prog: $out"
	else
		fail "$prog: $out"
	fi
	grep -q "of prev" "$j.txt" && grep -Eq '^ +[0-9]+ +[0-9.]+%' "$j.txt" &&
		ok "$prog: text view shows each extension's fraction" ||
		fail "$prog: text view lacks the extension fractions"
done
finish
