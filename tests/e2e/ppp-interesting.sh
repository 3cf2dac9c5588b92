#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Interesting paths and --wpp-stats (issue 26, PPP): for deterministic
# corpus programs, `wpptrace interesting` of a recording, given back to
# `wppcc --wpp-interesting=run.wpp --wpp-stats`, must report per function
# exactly as many interesting paths as `wpptrace paths` (JSON, an
# independent reading of the same recording) shows distinct executed
# paths, with Γ >= 1 and interval >= interesting; the recording and its
# converted set give the same stats; --top N keeps N paths.  A function
# changed since the recording: one warning line naming it, the build goes
# on; a static function whose namesake in another file ran is not stale.
# A corrupt set: one error line, exit 1, no output.  scripts/ppp-stats
# sums the units' Γ distributions.  wide_paths' chains of 45 and 70
# diamonds, whose 20 and 70 executed paths are sparse random
# combinations, number within Γ <= 1.1 (the paper's join alone gave 1.85
# and 2.43: its holes double along such chains; ppp.h).
# --pid/--tid matching no thread: one error line, exit 2, no file.
# --top with --min-count: the N hottest of those run at least C times,
# said in the file.  A hand-written list: names no function of the build
# compiles get one warning line for the whole build (not one per unit),
# an id past a function's paths is named with its line.
. "$(dirname "$0")/corpus-lib.sh"

# stats FILE vs paths JSON: per function, interesting == distinct executed
check_stats() { # STATS PATHS_JSON
	python3 - "$1" "$2" <<'PY'
import json, re, sys
stats, executed, bad = {}, {}, []
for l in open(sys.argv[1]):
    m = re.match(r"wpp-stats: (\S+) paths=(\d+) interesting=(\d+) interval=(\d+) gamma=(\S+) counting=(array|hash) ppp=(array|hash|-)", l)
    if m:
        stats[m.group(1)] = tuple(m.group(i) for i in range(2, 6))
        k, v, ppp = int(m.group(3)), m.group(4), m.group(7)
        if ppp != ("-" if k == 0 else "hash" if int(v) > 8192 else "array"):
            bad.append("%s: ppp=%s with interval %s" % (m.group(1), ppp, v))
for p in json.load(open(sys.argv[2]))["paths"]:
    executed.setdefault(p["function"], set()).add(p["path"])
for fn, ids in executed.items():
    if fn not in stats:
        bad.append("%s: no stats line" % fn); continue
    n, k, v, g = stats[fn]
    if int(k) != len(ids):
        bad.append("%s: interesting=%s, paths shows %d" % (fn, k, len(ids)))
    if int(v) < int(k) or float(g) < 1.0 or max(ids) >= int(n):
        bad.append("%s: interval %s gamma %s paths %s" % (fn, v, g, n))
for fn, (n, k, v, g) in stats.items():
    if fn not in executed and k != "0":
        bad.append("%s: %s interesting, never executed" % (fn, k))
if bad:
    print("; ".join(bad[:4])); sys.exit(1)
PY
}

for spec in branches: switches: interp: recursion:12 wide_paths: callbacks:; do
	corpus_prepare "$spec"
	"$WPPCC" -O2 -o "$d/prog" "$src" || { fail "$name: build"; continue; }
	(cd "$d" && "$WPPTRACE" record -q -o r.wpp -- ./prog $args >/dev/null 2>&1) ||
		{ fail "$name: record"; continue; }
	"$WPPTRACE" paths "$d/r.wpp" --format json >"$d/paths.json" || { fail "$name: paths"; continue; }
	"$WPPCC" -O2 --wpp-interesting="$d/r.wpp" --wpp-stats="$d/stats" -c -o "$d/p.o" "$src" \
		2>"$d/build.err" || { fail "$name: --wpp-interesting build: $(head -1 "$d/build.err")"; continue; }
	[ -s "$d/build.err" ] && fail "$name: the build said: $(head -1 "$d/build.err")"
	if why=$(check_stats "$d/stats" "$d/paths.json"); then
		ok "$name: $(grep -c ' paths=' "$d/stats") functions; $(tail -1 "$d/stats" | sed 's/.*interesting paths; //')"
	else
		fail "$name: $why"
	fi
	"$WPPTRACE" interesting -q "$d/r.wpp" -o "$d/r.int" || { fail "$name: interesting"; continue; }
	"$WPPCC" -O2 --wpp-interesting="$d/r.int" --wpp-stats="$d/stats2" -c -o "$d/p2.o" "$src"
	cmp -s "$d/stats" "$d/stats2" || fail "$name: the recording and its set give different stats"
done

# Chains of diamonds: compact despite the join's compounding holes.
for fn in diamonds45 diamonds70; do
	line=$(grep "wpp-stats: $fn " "$WORK/wide_paths/stats")
	g=$(sed -n 's/.* gamma=\([0-9.]*\) .*/\1/p' <<<"$line")
	if [ -n "$g" ] && awk -v g="$g" 'BEGIN { exit !(g <= 1.1) }'; then
		ok "wide_paths: $fn numbers its paths within Γ $g"
	else
		fail "wide_paths: $fn: '$line'"
	fi
done

# scripts/ppp-stats over every program: the sums of the per-unit summaries
cat "$WORK"/*/stats >"$WORK/all.stats"
want=$(sed -n 's/.*; gamma <= 1.0: \([0-9]*\), <= 1.1: \([0-9]*\), <= 2: \([0-9]*\), > 2: \([0-9]*\);.*/\1 \2 \3 \4/p' \
	"$WORK/all.stats" | awk '{a += $1; b += $2; c += $3; d += $4} END {print a, b, c, d}')
got=$("$ROOT/scripts/ppp-stats" "$WORK/all.stats" | sed -n 's/^gamma <= 1.0: \([0-9]*\), <= 1.1: \([0-9]*\), <= 2: \([0-9]*\), > 2: \([0-9]*\) .*/\1 \2 \3 \4/p')
[ -n "$got" ] && [ "$got" = "$want" ] && ok "ppp-stats: gamma bins $got over all programs" ||
	fail "ppp-stats says '$got', the units' summaries sum to '$want'"

# --top N keeps the N hottest paths; the listed form reads back the same.
d=$WORK/interp
"$WPPTRACE" interesting -q --top 5 "$d/r.wpp" -o "$d/top5.int"
n=$(grep -c '^p ' "$d/top5.int")
[ "$n" -eq 5 ] && ok "--top 5: 5 paths" || fail "--top 5 kept $n paths"
# --min-count 3: exactly the paths `wpptrace paths` shows run at least 3 times
"$WPPTRACE" interesting -q --min-count 3 "$d/r.wpp" -o "$d/min3.int"
want=$(python3 -c 'import json, sys
print(sorted((p["stable_id"], p["path"]) for p in json.load(open(sys.argv[1]))["paths"] if p["count"] >= 3))' "$d/paths.json")
got=$(python3 -c 'import sys
out, fn = [], None
for l in open(sys.argv[1]):
    f = l.split()
    if f[0] == "f": fn = f[1]
    elif f[0] == "p": out.append((fn, int(f[1])))
print(sorted(out))' "$d/min3.int")
[ "$want" != "[]" ] && [ "$got" = "$want" ] && ok "--min-count 3: the paths run at least 3 times" ||
	fail "--min-count 3 kept other paths than wpptrace paths shows"
awk '$1 == "f" { fn = $5 } $1 == "p" { print fn, $2 }' "$d/top5.int" >"$d/top5.txt"
"$WPPCC" -O2 --wpp-interesting="$d/top5.txt" --wpp-stats="$d/s-list" -c -o "$d/l.o" "$WORK/src/interp.c"
"$WPPCC" -O2 --wpp-interesting="$d/top5.int" --wpp-stats="$d/s-top" -c -o "$d/t.o" "$WORK/src/interp.c"
cmp -s "$d/s-list" "$d/s-top" && ok "a hand-written list reads as its recorded set" ||
	fail "list and set stats differ: $(diff "$d/s-list" "$d/s-top" | sed -n 2p)"

# A listed id beyond the function's paths: that function is stale, and
# the warning names the id, the function's path count and the line.
printf 'run 0\nrun 99999999\nmain 0\n' >"$d/beyond.txt"
"$WPPCC" -O2 --wpp-interesting="$d/beyond.txt" --wpp-stats="$d/s-beyond" -c -o "$d/x.o" \
	"$WORK/src/interp.c" 2>"$d/beyond.err"
npaths=$(sed -n 's/^wpp-stats: run paths=\([0-9]*\) .*/\1/p' "$d/s-beyond")
[ "$(wc -l <"$d/beyond.err")" -eq 1 ] && [ -n "$npaths" ] &&
	grep -q "warning: .*interp.c: path id 99999999 is past run's $npaths paths (its ids are 0 to $((npaths - 1)); line 2 of .*beyond.txt)" \
		"$d/beyond.err" &&
	grep -q "wpp-stats: run .*interesting=0 .* stale" "$d/s-beyond" &&
	grep -q "wpp-stats: main .*interesting=1 interval=1 gamma=1.000" "$d/s-beyond" &&
	ok "a listed id beyond the paths: $(cat "$d/beyond.err")" ||
	fail "a listed id beyond the paths: $(head -1 "$d/beyond.err")"

# Static functions of one name in two files are two functions: the one
# that never ran is not stale because its namesake ran.
mkdir -p "$WORK/twins"
for f in a:1 b:2; do
	cat >"$WORK/twins/${f%:*}.c" <<EOF
static int helper(int x) { return x > 3 ? x * 2 : x + ${f#*:}; }
int call_${f%:*}(int x) { return helper(x); }
EOF
done
printf 'int call_a(int);\nint call_b(int);\nint main(int c, char **v) { (void)v; return call_a(c) == 99 ? call_b(c) : 0; }\n' \
	>"$WORK/twins/main.c"
(cd "$WORK/twins" && "$WPPCC" -O1 -fno-inline -o twins a.c b.c main.c &&
	"$WPPTRACE" record -q -o r.wpp -- ./twins) || fail "twins: build and record"
(cd "$WORK/twins" && "$WPPCC" -O1 -fno-inline --wpp-interesting=r.wpp --wpp-stats=stats \
	-o twins2 a.c b.c main.c 2>err)
grep -c "wpp-stats: helper .*interesting=1 " "$WORK/twins/stats" >"$WORK/twins/n1"
if [ -s "$WORK/twins/err" ] || [ "$(cat "$WORK/twins/n1")" != 1 ] ||
	! grep -q "wpp-stats: helper .*interesting=0 interval=0" "$WORK/twins/stats"; then
	fail "static twins: $(head -1 "$WORK/twins/err")"
else
	ok "static twins: the one that ran has its path, the other is not stale"
fi

# --wpp-stats alone (every mode): Ball-Larus paths, no interesting ones
"$WPPCC" -O2 -fwpp-mode=blocks --wpp-stats -c -o "$d/b.o" "$WORK/src/interp.c" 2>"$d/blocks.err"
grep -q "wpp-stats: run paths=[0-9]* interesting=0 interval=0 gamma=-" "$d/blocks.err" &&
	ok "--wpp-stats in blocks mode" || fail "--wpp-stats in blocks mode: $(head -1 "$d/blocks.err")"

# A function changed since the recording: one warning naming it.
change_interp
"$WPPCC" -O2 --wpp-interesting="$d/r.wpp" --wpp-stats="$d/s-stale" -o "$d/changed" "$WORK/src/interp.c" 2>"$d/changed.err"
rc=$?
if [ $rc -ne 0 ] || [ "$(wc -l <"$d/changed.err")" -ne 1 ] ||
	! grep -q "warning: .*1 function changed since the interesting paths were recorded (run)" "$d/changed.err" ||
	! grep -q "wpp-stats: run .* stale" "$d/s-stale"; then
	fail "changed function: rc=$rc, said: $(head -2 "$d/changed.err" | tr '\n' '|')"
else
	ok "changed function: $(head -1 "$d/changed.err")"
fi
[ -x "$d/changed" ] && (cd "$d" && ./changed >/dev/null) || fail "changed build does not run"

# Bad sets: one error line, exit 1, no output file.
printf 'wpp-interesting 1\nf 00000000000000ff 3 2 f f.c\np 0 5\n' >"$WORK/short.int"
printf 'not a set at all\n' >"$WORK/garbage.int"
expect_refused --wpp-interesting short.int garbage.int missing.int "short.int,garbage.int"

# --wpp-stats=FILE appends, so it cannot create a fresh file: a planted
# symbolic link there is not followed and its target keeps its bytes.
echo "not yours" >"$d/victim"
ln -sf "$d/victim" "$d/stats-link"
"$WPPCC" -O2 --wpp-stats="$d/stats-link" -c -o "$d/sl.o" "$WORK/src/interp.c" 2>"$d/sl.err"
[ "$(cat "$d/victim")" = "not yours" ] && grep -q "symbolic link" "$d/sl.err" &&
	ok "--wpp-stats onto a symbolic link: $(cat "$d/sl.err")" ||
	fail "--wpp-stats followed a symbolic link: $(cat "$d/victim" | head -1)"

# --pid or --tid of no thread: one error line naming it, exit 2, no file
# (an empty set would build like no set at all); edges likewise.  Two
# recordings, the filter matching one: a warning for the other.
d=$WORK/interp
for cmd in interesting edges; do
	for f in pid tid; do
		rm -f "$d/none.out"
		"$WPPTRACE" $cmd "$d/r.wpp" --$f 999999999 -o "$d/none.out" >/dev/null 2>"$d/none.err"
		rc=$?
		if [ $rc -eq 2 ] && [ "$(wc -l <"$d/none.err")" -eq 1 ] && [ ! -e "$d/none.out" ] &&
			grep -q "no thread in .*r.wpp matches --$f 999999999" "$d/none.err"; then
			ok "$cmd --$f of no thread: $(cat "$d/none.err")"
		else
			fail "$cmd --$f of no thread: rc=$rc, $(head -1 "$d/none.err")"
		fi
	done
done
pid=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["processes"][0]["pid"])' \
	<("$WPPTRACE" info --format json "$d/r.wpp"))
"$WPPTRACE" interesting -q --pid "$pid" "$d/r.wpp" "$WORK/branches/r.wpp" -o "$d/one.int" 2>"$d/one.err"
rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^p ' "$d/one.int")" -eq "$(grep -c '^p ' "$d/r.int")" ] &&
	grep -q "warning: .*branches/r.wpp: no thread matches" "$d/one.err"; then
	ok "--pid matching one of two recordings: its paths, a warning for the other"
else
	fail "--pid matching one of two recordings: rc=$rc, $(head -1 "$d/one.err")"
fi
"$WPPTRACE" interesting --pid 999999999 "$d/r.wpp" "$WORK/branches/r.wpp" >/dev/null 2>"$d/none.err"
rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$d/none.err")" -eq 1 ] &&
	grep -q "no thread in any of the 2 recordings matches --pid 999999999" "$d/none.err" &&
	ok "--pid of no thread in two recordings: $(cat "$d/none.err")" ||
	fail "--pid of no thread in two recordings: rc=$rc, $(head -1 "$d/none.err")"

# --top N --min-count C: the N hottest of the paths run at least C times
# (ties by stable id, then path id), and the file says so.
"$WPPTRACE" interesting -q --top 4 --min-count 3 "$d/r.wpp" -o "$d/both.int"
want=$(python3 -c 'import json, sys
ps = [p for p in json.load(open(sys.argv[1]))["paths"] if p["count"] >= 3]
ps.sort(key=lambda p: (-p["count"], p["stable_id"], p["path"]))
print(sorted((p["stable_id"], p["path"]) for p in ps[:4]))' "$d/paths.json")
got=$(python3 -c 'import sys
out, fn = [], None
for l in open(sys.argv[1]):
    f = l.split()
    if f[0] == "f": fn = f[1]
    elif f[0] == "p": out.append((fn, int(f[1])))
print(sorted(out))' "$d/both.int")
if [ "$got" = "$want" ] && grep -qx "# kept: the 4 hottest of the paths executed at least 3 times" "$d/both.int" &&
	grep -qx "# kept: the 5 hottest paths" "$d/top5.int" &&
	grep -qx "# kept: every path executed at least 3 times" "$d/min3.int" &&
	grep -qx "# kept: every path executed" "$d/r.int"; then
	ok "--top 4 --min-count 3: the 4 hottest of those run 3 times or more, said in the file"
else
	fail "--top 4 --min-count 3: kept $got, want $want; $(grep '^# kept' "$d/both.int")"
fi

# A hand-written list naming functions the build does not compile: one
# warning for the whole build (three units here, each compiling one of
# the listed functions), with the number of such lines and the first.
t=$WORK/twins
printf '# twins\ncall_a 0\nmain 0\nnot_here 1\ncall_b 0\nnot_here 0\nmian 0\n' >"$t/list.txt"
(cd "$t" && "$WPPCC" -O1 -fno-inline --wpp-interesting=list.txt -o listed a.c b.c main.c 2>list.err)
rc=$?
if [ $rc -eq 0 ] && [ "$(wc -l <"$t/list.err")" -eq 1 ] &&
	grep -q "warning: --wpp-interesting: 3 listed lines name no function this wppcc run compiled (first: not_here, line 4 of .*list.txt)" \
		"$t/list.err"; then
	ok "listed names no unit compiled: $(cat "$t/list.err")"
else
	fail "listed names no unit compiled: rc=$rc, $(head -2 "$t/list.err" | tr '\n' '|')"
fi
# every listed name compiled somewhere: nothing said; a failed build: no
# word about the list, clang's status
printf 'call_a 0\nmain 0\ncall_b 0\n' >"$t/all.txt"
(cd "$t" && "$WPPCC" -O1 -fno-inline --wpp-interesting=all.txt -o listed2 a.c b.c main.c 2>all.err)
rc=$?
[ $rc -eq 0 ] && [ ! -s "$t/all.err" ] && [ -x "$t/listed2" ] && ok "a list whose names all compiled: no word" ||
	fail "a list whose names all compiled: rc=$rc, $(head -1 "$t/all.err")"
echo 'int broken(void) { return undeclared; }' >"$t/broken.c"
(cd "$t" && "$WPPCC" --wpp-interesting=list.txt -c -o broken.o broken.c 2>broken.err)
rc=$?
[ $rc -eq 1 ] && ! grep -q "wpp-interesting" "$t/broken.err" && ok "a failing compile: clang's status, no list warning" ||
	fail "a failing compile with a list: rc=$rc, $(grep wpp-interesting "$t/broken.err" | head -1)"

finish
