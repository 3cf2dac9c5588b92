#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Diff of two runs with a known difference: golden.c calls weigh() for
# i < 4 only, or for all 8 iterations when given an argument.  So from run A
# (no argument) to run B (one argument) the paths of main's second loop
# change (the i >= 4 exits are gone; the call path gets hotter) and weigh's
# path gets twice as hot, while the first loop (classify) is unchanged.
. "$(dirname "$0")/report-lib.sh"
cp "$DATA/golden.c" "$WORK/"
( cd "$WORK" && "$WPPCC" -O1 -g golden.c -o golden ) || { fail build; finish; }
record "$WORK/a.wpp" "$WORK/golden" >/dev/null 2>&1 || fail "record a"
record "$WORK/b.wpp" "$WORK/golden" x >/dev/null 2>&1 || fail "record b"
"$WPPTRACE" report "$WORK/a.wpp" --diff "$WORK/b.wpp" >"$WORK/diff.txt" || fail "diff text"
"$WPPTRACE" report "$WORK/a.wpp" --diff "$WORK/b.wpp" --format json >"$WORK/diff.json" || fail "diff json"
cat "$WORK/diff.txt"
python3 - "$WORK/diff.json" <<'PY' && pass "diff json has the known changes" || fail "diff json"
import json, sys
d = json.load(open(sys.argv[1]))
by = {}
for p in d['paths']:
    by.setdefault(p['change'], []).append(p)
weigh = [p for p in d['paths'] if p['function'] == 'weigh']
assert len(weigh) == 1 and weigh[0]['change'] == 'hotter' and (weigh[0]['count_a'], weigh[0]['count_b']) == (4, 8), weigh
# classify's loop (lines 9-13) did not change: no changed path lies only there
assert not any(p['function'] == 'main' and p['line_max'] <= 33 for p in d['paths']), d['paths']
# Some path of main's second loop appears or disappears.
assert by.get('gone') or by.get('new'), by.keys()
assert d['totals']['count_b'] > d['totals']['count_a']
PY
grep -q '^Hotter paths' "$WORK/diff.txt" && grep -q 'weigh' "$WORK/diff.txt" && pass "diff text" || fail "diff text"
awk 'length > 100 { exit 1 }' "$WORK/diff.txt" && pass "diff fits 100 columns" || fail "diff too wide"
"$WPPTRACE" report "$WORK/a.wpp" --diff "$WORK/a.wpp" | grep -q '^no path changed' && pass "self diff empty" || fail "self diff"

# The diff as a page, in headless Chromium: its four tables hold exactly the
# JSON diff's rows of each kind, with the same numbers and path texts.
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { fail "chromium not installed (scripts/install-deps)"; finish; }
. "$(dirname "$0")/report-html-lib.sh"
if ! "$WPPTRACE" report "$WORK/a.wpp" --diff "$WORK/b.wpp" --html -o "$WORK/diff.html" 2>"$WORK/err"; then
	if grep -q 'do not go together yet' "$WORK/err"; then
		# user/cli/cmd_report.c must call rpt_print_diff_html (report_html.h).
		echo "SKIP: the CLI does not route --diff --html to rpt_print_diff_html yet"
		finish
	fi
	fail "diff --html: $(cat "$WORK/err")"
fi
self_contained "$WORK/diff.html"
dom=$(dump "$WORK/diff.html")
save_tables "$dom" gone new hotter colder
python3 - "$WORK/diff.json" "$WORK"/{gone,new,hotter,colder}.rows <<'PY' && pass "diff page: gone/new/hotter/colder = JSON diff" || fail "diff page"
import json, sys
d = json.load(open(sys.argv[1]))
for kind, f in zip(["gone", "new", "hotter", "colder"], sys.argv[2:]):
    want = [(p["count_a"], p["count_b"], p["function"], "#%d" % p["path"], p["source"]) for p in d["paths"] if p["change"] == kind]
    got = [(int(r[0]), int(r[1]), r[3], r[5], r[7]) for r in json.load(open(f))]
    assert sorted(got) == sorted(want), (kind, got, want)
    assert all(r[2] == ("new" if kind == "new" else "gone" if kind == "gone" else r[2]) for r in json.load(open(f)))
    print(kind, len(got), "rows")
PY
summary=$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["paths"]; print(", ".join("%d %s" % (sum(x["change"] == k for x in p), k) for k in ("gone", "new", "hotter", "colder")))' "$WORK/diff.json")
grep -q 'data-ready="1"' <<<"$dom" && grep -q "paths: $summary, [0-9]* unchanged" <<<"$dom" &&
	pass "diff page summary" || fail "diff page summary"
finish
