#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Counter attribution against a crafted REPEAT count (issue 24 item 7;
# docs/security.md, "Bounds on the work a file can demand"): a recording
# made with `-e page-faults -c 1` (tests/unit/costs/progs/faults.c),
# one of its records replaced by a REPEAT of 0xffffffff at the very slot
# where a sample was taken (hostile-costs.py), so that attributing that
# sample means placing it inside a run of four billion executions.
#   - `report --cost`, `kpaths --cost` (both views, k 1 and 4) and `info`
#     finish within 20 s and 1 GB (walking the run took minutes);
#   - the totals, by arithmetic against the uncrafted recording: the
#     samples and their classes are the same, every sampled event is still
#     on a path (the cost sums of the report's paths and of the 1-paths of
#     every k-path listing equal events_on_paths), and the execution
#     counts grew by exactly COUNT - 1.
. "$(dirname "$0")/../oracle/lib.sh"
require_tools "$WPPCC" "$WPPTRACE"
HERE=$(cd "$(dirname "$0")" && pwd)
w=$ROOT/tests/work/hostile-costs
rm -rf "$w" && mkdir -p "$w"
COUNT=0xffffffff

check_done
if ! "$WPPCC" -O1 -g -o "$w/faults" "$ROOT/tests/unit/costs/progs/faults.c" >"$w/build.log" 2>&1; then
	fail "cannot build faults.c"
	show_file_head "$w/build.log"
	finish
fi
# The forger rewrites raw BATCH chunks: a --compress none recording.
if ! "$WPPTRACE" record -q -e page-faults -c 1 --compress none -o "$w/raw.wpp" -- \
	"$w/faults" 300 700 2>"$w/rec.err"; then
	fail "record -e page-faults: $(head -1 "$w/rec.err")"
	finish
fi
if ! added=$($PY "$HERE/hostile-costs.py" repeat "$w/raw.wpp" "$w/rep.wpp" $COUNT); then
	fail "cannot craft the REPEAT file"
	finish
fi
added=${added%% *}
pass "crafted a REPEAT of $COUNT at a sampled slot (+$added executions)"

# bounded NAME ARGS...: wpptrace ARGS within 20 s and 1 GB, stdout in $w/NAME.
bounded() {
	local name=$1
	shift
	bounded_wpptrace "$w/$name" "$*" "$@"
}

# Every listing of the crafted file, and the same of the raw one.
for f in raw rep; do
	bounded $f.info info --format json "$w/$f.wpp"
	bounded $f.report report "$w/$f.wpp" --cost page-faults --format json --top 100000
	bounded $f.report.txt report "$w/$f.wpp" --cost page-faults
	for k in 1 4; do
		bounded $f.act$k kpaths "$w/$f.wpp" -k $k --all --top 0 --cost page-faults --format json
		bounded $f.flat$k kpaths "$w/$f.wpp" -k $k --all --top 0 --cost page-faults --format json --flat
	done
	bounded $f.kpaths.txt kpaths "$w/$f.wpp" --cost page-faults
done

check_done
if out=$($PY - "$w" "$added" <<'PYEOF'
import json, sys
w, added = sys.argv[1], int(sys.argv[2])
def load(name):
    try:
        return json.load(open(f"{w}/{name}"))
    except (OSError, ValueError) as e:
        print(f"{name}: not a whole JSON output ({e})")
        sys.exit(1)
errors = []
def expect(what, got, want):
    if got != want:
        errors.append(f"{what}: {got}, expected {want}")
info = {f: load(f + ".info") for f in ("raw", "rep")}
# info counts runs from the raw words: one record became a REPEAT word.
expect("records as written", info["rep"]["records"], info["raw"]["records"] - 1)
expect("repeated executions", info["rep"]["repeated_executions"],
       info["raw"]["repeated_executions"] + added + 1)
expect("info's counter attribution", info["rep"]["counters"], info["raw"]["counters"])
on_paths = info["raw"]["counters"][0]["events_on_paths"]
if not on_paths:
    errors.append("no sampled events on paths in the raw recording")
rep = {f: load(f + ".report") for f in ("raw", "rep")}
expect("report's samples", rep["rep"]["cost_samples"], rep["raw"]["cost_samples"])
expect("report's executions", rep["rep"]["totals"]["count"], rep["raw"]["totals"]["count"] + added)
expect("report's cost total", rep["rep"]["totals"]["cost"], on_paths)
expect("report's paths' costs", sum(p["cost"] for p in rep["rep"]["paths"]), on_paths)
for view in ("act1", "flat1", "act4", "flat4"):
    ones = {}
    for f in ("raw", "rep"):
        d = load(f"{f}.{view}")
        ks = [k for p in d["processes"] for k in p["kpaths"] if k["length"] == 1]
        ones[f] = (sum(k["count"] for k in ks), sum(k["cost"] for k in ks))
    expect(f"kpaths {view}: 1-paths' cost", ones["rep"][1], on_paths)
    expect(f"kpaths {view}: 1-paths' executions", ones["rep"][0], ones["raw"][0] + added)
if errors:
    print("; ".join(errors))
    sys.exit(1)
print(f"{on_paths} sampled events on paths, +{added} executions, everywhere")
PYEOF
); then
	pass "totals by arithmetic: $out"
else
	fail "totals: $out"
fi
finish
