#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The HTML report in headless Chromium: it loads offline (no external
# assets), the main tables render with the right rows, paging and filtering
# from the URL hash work, and a report of 100k paths renders within budget
# (only one page of rows in the DOM).
. "$(dirname "$0")/report-lib.sh"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { fail "chromium not installed (scripts/install-deps)"; finish; }
dump() { # FILE.html [#hash] -> DOM on stdout
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --user-data-dir="$WORK/chrome-$RANDOM" \
		--virtual-time-budget=10000 --dump-dom "file://$1${2:-}" 2>/dev/null
}
cp "$DATA/golden.c" "$DATA/many_paths.c" "$WORK/"
( cd "$WORK" && "$WPPCC" -O1 -g golden.c -o golden && "$WPPCC" -O0 -g many_paths.c -o many ) || { fail build; finish; }
record "$WORK/g.wpp" "$WORK/golden" >/dev/null 2>&1 || fail "record golden"
"$WPPTRACE" report "$WORK/g.wpp" --html -o "$WORK/g.html" || fail "report --html"
# Self-contained: no src=/href= to anything, no remote URLs.
if grep -Eq '(src|href)=|https?://' "$WORK/g.html"; then fail "page references external assets"; else pass "self-contained"; fi
dom=$(dump "$WORK/g.html")
rows() { # TABLE-ID: rows in its tbody
	python3 -c '
import sys, html.parser
class P(html.parser.HTMLParser):
    def __init__(s, want): super().__init__(); s.want=want; s.inside=0; s.body=0; s.rows=0; s.cells=[]
    def handle_starttag(s, t, a):
        a=dict(a)
        if t=="table" and a.get("id")==s.want: s.inside=1
        elif s.inside and t=="tbody": s.body=1
        elif s.body and t=="tr": s.rows+=1
    def handle_endtag(s, t):
        if t=="table" and s.inside: s.inside=0; s.body=0
    def handle_data(s, d):
        if s.body and d.strip(): s.cells.append(d.strip())
p=P(sys.argv[1]); p.feed(sys.stdin.read()); print(p.rows, " | ".join(p.cells[:12]))' "$1"
}
[ "$(rows functions <<<"$dom" | cut -d' ' -f1)" = 2 ] && rows functions <<<"$dom" | grep -q 'main' &&
	pass "functions table: $(rows functions <<<"$dom")" || fail "functions table: $(rows functions <<<"$dom")"
[ "$(rows paths <<<"$dom" | cut -d' ' -f1)" = 10 ] && rows paths <<<"$dom" | grep -q 'loop: 9 \[->11, not 33\]' &&
	pass "paths table rows and source lines" || fail "paths table: $(rows paths <<<"$dom")"
[ "$(rows processes <<<"$dom" | cut -d' ' -f1)" = 1 ] && pass "processes table" || fail "processes table"
grep -q 'data-ready="1"' <<<"$dom" && pass "script ran to the end" || fail "script did not finish"
# Filter from the hash: only weigh's path.
dom=$(dump "$WORK/g.html" '#paths-filter=weigh')
[ "$(rows paths <<<"$dom" | cut -d' ' -f1)" = 1 ] && pass "filter" || fail "filter: $(rows paths <<<"$dom")"

# 100k distinct paths
record "$WORK/m.wpp" "$WORK/many" >/dev/null 2>&1 || fail "record many"
"$WPPTRACE" report "$WORK/m.wpp" --html -o "$WORK/m.html" || fail "report --html (100k)"
start=$(date +%s%N)
dom=$(dump "$WORK/m.html" '#paths-page=1000')
ms=$(( ($(date +%s%N) - start) / 1000000 ))
render=$(grep -o 'data-render-ms="[0-9]*"' <<<"$dom" | grep -o '[0-9]*')
info=$(grep -o 'data-page="[0-9]*" data-rows="[0-9]*"' <<<"$dom" | sed -n 2p)
n=$(rows paths <<<"$dom" | cut -d' ' -f1)
echo "100k paths: page size $(du -h "$WORK/m.html" | cut -f1), render ${render:-?} ms in page, ${ms} ms total; paths pager: $info"
[ "$n" = 50 ] && pass "100k: one page of 50 rows in the DOM" || fail "100k: $n rows in the DOM"
grep -q 'data-page="1000" data-rows="100001"' <<<"$dom" || grep -q 'data-page="1000" data-rows="1000[0-9][0-9]"' <<<"$dom" &&
	pass "100k: page 1000 of the paths table" || fail "100k: pager state $info"
[ -n "$render" ] && [ "$render" -lt 5000 ] && pass "100k: rendered in ${render} ms" || fail "100k: render ${render:-never} ms"
finish
