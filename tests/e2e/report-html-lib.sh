# SPDX-License-Identifier: MIT
# report-html-lib.sh — headless Chromium helpers of report-html.sh and
# report-diff.sh (sourced after report-lib.sh, with CHROMIUM set).

# dump FILE.html [#hash]: the DOM after the page's script ran, on stdout.
# DUMP_TIMEOUT (seconds, default 120) bounds Chromium.
dump() {
	timeout "${DUMP_TIMEOUT:-120}" "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--disable-background-networking --disable-component-update --disable-sync --no-first-run \
		--user-data-dir="$WORK/chrome-$RANDOM" --virtual-time-budget=10000 --dump-dom "file://$1${2:-}" 2>/dev/null
}

# The page may not reference anything: no src=/href=, no remote URLs.
self_contained() {
	if grep -Eq '(src|href)=|https?://' "$1"; then fail "$1 references external assets"; else pass "self-contained"; fi
}

# table ID < DOM: the rows of table ID's tbody as a JSON list of lists of
# cell texts; heads ID < DOM: its column titles as a JSON list.
_cells() {
	python3 -c '
import json, sys, html.parser
class P(html.parser.HTMLParser):
    def __init__(s, want, part):
        super().__init__(); s.want, s.part = want, part; s.inside = s.sect = 0; s.rows = []; s.cell = None
    def handle_starttag(s, t, a):
        if t == "table" and dict(a).get("id") == s.want: s.inside = 1
        elif s.inside and t == s.part: s.sect = 1
        elif s.sect and t == "tr": s.rows.append([])
        elif s.sect and t in ("td", "th"): s.cell = []
    def handle_endtag(s, t):
        if t == "table": s.inside = s.sect = 0
        elif t == s.part: s.sect = 0
        elif s.sect and t in ("td", "th") and s.cell is not None:
            s.rows[-1].append("".join(s.cell).strip()); s.cell = None
    def handle_data(s, d):
        if s.cell is not None: s.cell.append(d)
p = P(sys.argv[1], sys.argv[2]); p.feed(sys.stdin.read())
print(json.dumps(p.rows if sys.argv[2] == "tbody" else (p.rows[0] if p.rows else [])))' "$1" "$2"
}
table() { _cells "$1" tbody; }
heads() { _cells "$1" thead; }
# save_tables DOM ID...: each table's rows (as table prints them) in $WORK/ID.rows.
save_tables() {
	local dom=$1 t
	shift
	for t; do table "$t" <<<"$dom" >"$WORK/$t.rows"; done
}
