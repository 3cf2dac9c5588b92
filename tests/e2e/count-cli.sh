#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What the command line says about counting builds (-fwpp-mode=count), the
# build's modes being the oracle: `wpptrace info` names, per translation
# unit and in total, what a recording holds — path traces, block traces,
# path counts, or unknown when the object is gone — in text and JSON, for
# a program of a count unit and a paths unit and for a blocks build;
# `record -k` on a count build warns in one line that its k-paths are of
# no use (a paths build: no word), and kpaths refuses the file; script
# refuses a recording holding a count build, but not for --pid of a
# traced program in it; the help
# of every command that reads counts or refuses them says so, and `wppcc
# --help` gives each -fwpp-mode value one line.
. "$(dirname "$0")/corpus-lib.sh"

m=$WORK/mixed
mkdir -p "$m"
cat >"$m/counted.c" <<'EOF'
int counted(int x)
{
	int s = 0;
	for (int i = 0; i < x; i++)
		s += i & 1 ? i : -i;
	return s;
}
EOF
cat >"$m/main.c" <<'EOF'
int counted(int);
int main(int c, char **v)
{
	(void)v;
	return counted(c * 10) == 12345;
}
EOF
if ! (cd "$m" && "$WPPCC" -O1 -fwpp-mode=count -c -o counted.o counted.c &&
	"$WPPCC" -O1 -c -o main.o main.c && "$WPPCC" -o mixed main.o counted.o &&
	"$WPPCC" -O1 -fwpp-mode=count -o allcount main.c counted.c &&
	"$WPPTRACE" record -q --transport=shm -o mixed.wpp -- ./mixed); then
	fail "build and record the mixed program"
	finish
fi

# info, text: per process and in total, with the note on what refuses it
"$WPPTRACE" info "$m/mixed.wpp" >"$m/info.txt" 2>"$m/info.err"
rc=$?
want="path traces (1 unit: main.c), path counts (1 unit: counted.c)"
if [ $rc -eq 0 ] && [ ! -s "$m/info.err" ] && grep -qxF "holds       $want" "$m/info.txt" &&
	grep -qxF "    holds     $want" "$m/info.txt" &&
	grep -q "^ *path counts (-fwpp-mode=count) have no order: wpp, hot, kpaths and script refuse" "$m/info.txt"; then
	ok "info: $want"
else
	fail "info (rc=$rc): $(grep holds "$m/info.txt" | head -1) $(head -1 "$m/info.err")"
fi

# info, JSON: the same per unit, and the totals
"$WPPTRACE" info --format json "$m/mixed.wpp" >"$m/info.json"
if python3 - "$m/info.json" <<'PY'; then
import json, sys
d = json.load(open(sys.argv[1]))
units = sorted((u["source"], u["holds"]) for u in d["processes"][0]["units"])
assert units == [("counted.c", "counts"), ("main.c", "paths")], units
assert all(u["object"].endswith("/mixed") for u in d["processes"][0]["units"])
assert d["holds"] == {"paths": 1, "blocks": 0, "counts": 1, "unknown": 0}, d["holds"]
PY
	ok "info --format json: units and totals"
else
	fail "info --format json: units or totals wrong"
fi

# the object gone: unknown, still no warning and exit 0
cp "$m/mixed.wpp" "$m/gone.wpp"
mv "$m/mixed" "$m/mixed.away"
"$WPPTRACE" info "$m/gone.wpp" >"$m/gone.txt" 2>"$m/gone.err"
rc=$?
mv "$m/mixed.away" "$m/mixed"
if [ $rc -eq 0 ] && [ ! -s "$m/gone.err" ] &&
	grep -q "^holds       unknown (no metadata) (2 units: [^,]*/mixed)$" "$m/gone.txt"; then
	ok "info without the program: $(grep '^holds' "$m/gone.txt")"
else
	fail "info without the program (rc=$rc): $(grep '^holds' "$m/gone.txt") $(head -1 "$m/gone.err")"
fi

# a blocks build: block traces
corpus_prepare branches:
if "$WPPCC" -O1 -fwpp-mode=blocks -o "$d/blocks" "$src" &&
	"$WPPTRACE" record -q --transport=shm -o "$d/blocks.wpp" -- "$d/blocks" >/dev/null &&
	"$WPPTRACE" info "$d/blocks.wpp" | grep -q "^holds       block traces (1 unit: .*branches.c)$"; then
	ok "info of a blocks build: block traces"
else
	fail "info of a blocks build: $("$WPPTRACE" info "$d/blocks.wpp" 2>&1 | grep holds)"
fi

# record -k: one warning for a count build, none for a paths build
(cd "$m" && "$WPPTRACE" record -q --transport=shm -k 4 -o k.wpp -- ./allcount 2>k.err)
rc=$?
if [ $rc -eq 0 ] && [ "$(wc -l <"$m/k.err")" -eq 1 ] &&
	grep -q "warning: record: -k: .*\.c was built with -fwpp-mode=count" "$m/k.err" &&
	"$WPPTRACE" paths "$m/k.wpp" >/dev/null 2>&1; then
	ok "record -k of a count build: $(cut -c1-100 "$m/k.err")..."
else
	fail "record -k of a count build: rc=$rc, $(head -1 "$m/k.err")"
fi
"$WPPTRACE" kpaths "$m/k.wpp" >/dev/null 2>"$m/kp.err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$m/kp.err")" -eq 1 ] && ok "kpaths refuses it" ||
	fail "kpaths of the count recording: rc=$rc, $(head -1 "$m/kp.err")"
"$WPPCC" -O1 -o "$d/paths" "$src" &&
	"$WPPTRACE" record -q --transport=shm -k 4 -o "$d/kp.wpp" -- "$d/paths" >/dev/null 2>"$d/kp.err"
rc=$?
[ $rc -eq 0 ] && [ ! -s "$d/kp.err" ] && ok "record -k of a paths build: no word" ||
	fail "record -k of a paths build: rc=$rc, $(head -1 "$d/kp.err")"

# A recording of two programs, one a count build: script refuses the
# file, but reads the other program's threads when --pid selects them.
(cd "$m" && "$WPPCC" -O1 -o traced main.c counted.c &&
	"$WPPTRACE" record -q --transport=shm -o two.wpp -- sh -c './traced && ./allcount') ||
	fail "record two programs"
tpid=$("$WPPTRACE" info --format json "$m/two.wpp" | python3 -c 'import json, sys
print(" ".join(str(p["pid"]) for p in json.load(sys.stdin)["processes"]
               if p["units"] and all(u["holds"] == "paths" for u in p["units"])))')
"$WPPTRACE" script "$m/two.wpp" >/dev/null 2>"$m/two.err"
rc=$?
if [ $rc -eq 1 ] && grep -q "fwpp-mode=count" "$m/two.err" && [ -n "$tpid" ] &&
	"$WPPTRACE" script "$m/two.wpp" --pid "$tpid" --format jsonl >"$m/two.jsonl" 2>"$m/two-p.err" &&
	[ ! -s "$m/two-p.err" ] && grep -q '"function":"counted"' "$m/two.jsonl"; then
	ok "script: refuses the mixed recording, reads the traced program's --pid $tpid"
else
	fail "script of two programs (rc=$rc, pid '$tpid'): $(head -1 "$m/two.err") $(head -1 "$m/two-p.err")"
fi

# help: what each command does with a counting recording
for cmd in paths report annotate cfg export edges interesting top wpp hot kpaths script; do
	"$WPPTRACE" help $cmd >"$WORK/help.$cmd" 2>&1
	case $cmd in
	wpp | hot | kpaths | script) want="fwpp-mode=count code holds counts, not order: refused" ;;
	top) want="Counting builds (-fwpp-mode=count) are read from memory" ;;
	*) want="fwpp-mode=count code .*the same" ;;
	esac
	tr '\n' ' ' <"$WORK/help.$cmd" | grep -q -- "$want" && ok "help $cmd says what it does with counts" ||
		fail "help $cmd does not say what it does with counting recordings"
done
"$WPPCC" --help >"$WORK/wppcc.help" 2>&1
rc=$?
if [ $rc -eq 0 ] && python3 - "$WORK/wppcc.help" <<'PY'; then
import sys
lines = open(sys.argv[1]).read().split("\n")
for mode in ("paths", "count", "blocks"):
    at = [i for i, l in enumerate(lines) if l.startswith("  -fwpp-mode=" + mode + " ")]
    assert len(at) == 1, mode
    # one line each: the next line is the next option
    assert lines[at[0] + 1].startswith("  -"), lines[at[0] + 1]
# clang's own help follows
assert any("OPTIONS:" in l for l in lines[at[0]:])
PY
	ok "wppcc --help: one line per -fwpp-mode value, then clang's options"
else
	fail "wppcc --help (rc=$rc): $(grep -c fwpp-mode "$WORK/wppcc.help") -fwpp-mode lines"
fi

finish
