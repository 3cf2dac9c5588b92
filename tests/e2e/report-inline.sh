#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Inlined functions in reports (tests/e2e/report-data/inline.c): path text
# names the inlined function of every group of lines, nested inlining names
# the chain, a table's file:lines never mixes files, and a name too long for
# the function column keeps its start and its end.  The oracle is the source
# itself: the test finds each function's body line by a marker comment, and
# the decoder's own block listing (`script`) gives the lines every path ran.
. "$(dirname "$0")/report-lib.sh"
cp "$DATA/inline.c" "$DATA/inline_util.h" "$WORK/"
# wppcc adds -gline-tables-only when no -g is given: inline scopes are in it too.
( cd "$WORK" && "$WPPCC" -O2 -g inline.c -o inline && "$WPPCC" -O2 inline.c -o inline-lines &&
	cp inline-lines inline-nodebug && strip -g inline-nodebug ) ||
	{ fail "build"; finish; }
record "$WORK/run.wpp" "$WORK/inline" >/dev/null 2>"$WORK/rec.err" || fail "record"
line_of() { grep -n "$1" "$WORK/$2" | cut -d: -f1; }
TWICE=$(line_of LINE_TWICE inline.c); CALLS=$(line_of LINE_CALLS inline.c)
CLAMP=$(line_of LINE_CLAMP inline_util.h); SCALE=$(line_of LINE_SCALE inline_util.h)
MAINLEN=$(wc -l <"$WORK/inline.c")
F=a_function_with_a_rather_long_name_ending_in_tail
"$WPPTRACE" report "$WORK/run.wpp" --format json --top 1000 >"$WORK/rep.json" || fail "report json"
"$WPPTRACE" report "$WORK/run.wpp" >"$WORK/rep.txt" || fail "report text"
"$WPPTRACE" script "$WORK/run.wpp" --format jsonl >"$WORK/script.jsonl" || fail "script"
python3 - "$WORK" "$F" "$TWICE" "$CALLS" "$CLAMP" "$SCALE" "$MAINLEN" <<'PY' && pass "inline names, per-file spans" || fail "inline names, per-file spans"
import json, os, sys
work, F = sys.argv[1], sys.argv[2]
twice, calls, clamp, scale, mainlen = map(int, sys.argv[3:])
rep = json.load(open(os.path.join(work, "rep.json")))
bad = []
loop = [p for p in rep["paths"] if p["function"] == F and p["kind"] == "loop>loop"]
if not loop:
    bad.append("no loop>loop path of " + F)
for p in loop:
    s = p["source"]
    want = [f"(in scale, inlined into {F}: inline_util.h:{scale})",
            f"(in clamp_small, inlined into scale, inlined into {F}: inline_util.h:{clamp})",
            f"(in twice, inlined into {F}: {twice})"]
    pos = [s.find(w) for w in want]
    if min(pos) < 0:
        bad.append(f"path {p['path']}: missing one of {want} in {s!r}")
    # the call line is the function's own code: never inside a group
    depth = 0
    for tok in s.replace("(", " ( ").replace(")", " ) ").split():
        depth += tok == "("
        depth -= tok == ")"
        if tok == str(calls) and depth:
            bad.append(f"path {p['path']}: own line {calls} inside an inline group: {s!r}")
# spans: own file first, never beyond the main file; every line the decoder
# lists for a path lies in the span of its file
lines = {}
for ln in open(os.path.join(work, "script.jsonl")):
    e = json.loads(ln)
    if e["type"] == "path":
        for b in e["blocks"]:
            if b["line"]:
                lines.setdefault((e["function"], e["path"]), set()).add((os.path.basename(b["file"]), b["line"]))
for p in rep["paths"]:
    sp = p["spans"]
    if os.path.basename(sp[0]["file"]) != "inline.c" or p["line_max"] > mainlen or \
       (sp[0]["line_min"], sp[0]["line_max"]) != (p["line_min"], p["line_max"]):
        bad.append(f"path {p['function']}#{p['path']}: own span {sp[0]} / {p['line_min']}-{p['line_max']}")
    byfile = {os.path.basename(x["file"]): (x["line_min"], x["line_max"]) for x in sp}
    for f, l in lines.get((p["function"], p["path"]), ()):
        lo, hi = byfile.get(f, (1, 0))
        if not lo <= l <= hi:
            bad.append(f"path {p['function']}#{p['path']}: {f}:{l} outside its spans {sp}")
    if p["function"] == F and p["kind"] == "loop>loop" and byfile.get("inline_util.h") != (clamp, scale):
        bad.append(f"path {p['path']}: header span {byfile.get('inline_util.h')} != {clamp}-{scale}")
print("\n".join(bad[:10]))
sys.exit(1 if bad else 0)
PY
# Text: the row's file:lines cell names both files, the function cell keeps start and end.
if grep -Eq "^ +[0-9].*  a_func[a-z_]*~[a-z_]*_tail +#[0-9]+ loop>loop +inline\.c:[0-9]+-[0-9]+ (\+ inline_util\.h:$CLAMP-$SCALE|\+1 file)$" "$WORK/rep.txt"; then
	pass "text row: elided name, per-file span"
else
	fail "text row"; sed -n 1,8p "$WORK/rep.txt"
fi
awk 'length > 100 { exit 1 }' "$WORK/rep.txt" && pass "100 columns" || fail "a line is wider than 100 columns"
# Line tables only: the same path texts as with full debug info.
record "$WORK/lines.wpp" "$WORK/inline-lines" >/dev/null 2>&1 || fail "record line-tables-only"
src() { "$WPPTRACE" report "$1" --format json --top 1000 | python3 -c '
import json, sys
for p in json.load(sys.stdin)["paths"]: print(p["function"], p["path"], p["source"])' | sort; }
if [ "$(src "$WORK/run.wpp")" = "$(src "$WORK/lines.wpp")" ] && src "$WORK/lines.wpp" | grep -q '(in scale'; then
	pass "-gline-tables-only names the same inlined functions"
else
	fail "-gline-tables-only differs"; diff <(src "$WORK/run.wpp") <(src "$WORK/lines.wpp")
fi
# Without DWARF (strip -g keeps wpp_meta) there are no names and no messages.
record "$WORK/nodebug.wpp" "$WORK/inline-nodebug" >/dev/null 2>&1 || fail "record nodebug"
if "$WPPTRACE" report "$WORK/nodebug.wpp" >"$WORK/nodebug.txt" 2>"$WORK/nodebug.err" &&
	! grep -q '(in ' "$WORK/nodebug.txt" && [ ! -s "$WORK/nodebug.err" ] && grep -q 'loop>loop' "$WORK/nodebug.txt"; then
	pass "no debug info: no names, no messages"
else
	fail "no debug info: $(head -3 "$WORK/nodebug.err") $(grep -c "(in " "$WORK/nodebug.txt")"
fi
finish
