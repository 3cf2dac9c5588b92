#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# `wpptrace hot` on the command line: a corpus program built with wppcc,
# recorded with --transport=shm (no root needed);
#   1. its thread's path stream written raw (`wpp --raw-out`, pN as N) and
#      built back into a grammar (`wpp --from-raw`): `hot` on that raw
#      grammar finds the same minimal hot subpaths (pN sequences, costs,
#      frequencies, in the same order) as `hot --tid T --cost count` on the
#      recording, for several lengths and thresholds (JSON, compared in
#      python); without --cost a raw grammar is costed by count, and the
#      header line says so;
#   2. raw grammars of sparse values (2000000000 + k: no table, each
#      symbol named pV by its value) and of values >= 2^31-1 (renumbered
#      into a table: pN with the value beside it) equal a brute force over
#      every substring of the stream;
#   3. --top 0 shows all subpaths, --top N says how many it shows;
#   4. each usage mistake (unknown option, missing or malformed value,
#      --cost insns or a counter or a thread filter on a raw grammar,
#      --cost naming no counter) is exactly one 'wpptrace: ' line on
#      stderr with exit 2.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WPPTRACE=$ROOT/bin/wpptrace
WPPCC=$ROOT/bin/wppcc
WORK=$ROOT/tests/work/hot-cli
rm -rf "$WORK" && mkdir -p "$WORK"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok:   $*"; }

# The minimal hot subpaths of one JSON report's first entry, as compared
# lines "cost frequency length p.. p..", in the report's order.
subpaths() {
	python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["threads"]
assert len(t) == 1, "%d entries" % len(t)
t = t[0]
assert t["hot_subpaths"] == len(t["subpaths"]), "not all shown"
print("paths", t["paths"], "hot", t["hot_subpaths"])
for s in t["subpaths"]:
    assert len(s["terminals"]) == s["length"] == len(s["sequence"])
    print(s["cost"], s["frequency"], s["length"], " ".join(s["terminals"]))' "$1"
}

# Brute force over a raw .u32 stream: every minimal hot subpath with
# count costs, named pV; and a JSON report of it checked against that.
# The "path" of each sequence entry must be the raw value.
brute_check() { # RAW JSON MIN_LEN MAX_LEN MIN_COST
	python3 - "$@" <<'PY'
import collections, json, struct, sys
raw, rep, lo, hi, mc = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
data = open(raw, "rb").read()
w = list(struct.unpack("<%dI" % (len(data) // 4), data))
occ = collections.Counter(tuple(w[i:i + n]) for n in range(1, hi + 1) for i in range(len(w) - n + 1))
hot = lambda x: lo <= len(x) <= hi and occ[x] * len(x) >= mc
want = sorted((occ[x] * len(x), occ[x], x) for x in occ
              if hot(x) and not any(hot(x[:k]) for k in range(lo, len(x))))
t = json.load(open(rep))["threads"]
assert len(t) == 1 and t[0]["grammar"] == "raw" and t[0]["pid"] == t[0]["tid"] == t[0]["gen"] == 0, t
t = t[0]
table = sorted(set(w)) if max(w) >= 0x7fffffff else None
def name(v):  # as wpp names it: the value, or the table entry (first appearance)
    return "p%d" % (v if table is None else list(dict.fromkeys(w)).index(v))
got, costs = [], []
for s in t["subpaths"]:
    vals = tuple(e["path"] for e in s["sequence"])
    assert [e["function"] for e in s["sequence"]] == [None] * len(vals)
    assert s["terminals"] == [name(v) for v in vals], (s["terminals"], vals)
    got.append((s["cost"], s["frequency"], vals))
    costs.append(s["cost"])
assert costs == sorted(costs, reverse=True), "not costliest first"
assert t["paths"] == len(w) and t["hot_subpaths"] == len(want), (t["paths"], t["hot_subpaths"], len(want))
if sorted(got) != want:
    sys.exit("got %s, brute force %s" % (sorted(got)[:5], want[:5]))
print("%d minimal hot subpaths of %d symbols, as the brute force" % (len(want), len(w)))
PY
}

# expect_usage WHAT PATTERN ARGS...: hot ARGS exits 2 with exactly one
# 'wpptrace: ' line on stderr matching PATTERN (grep -E), nothing on stdout.
expect_usage() {
	local what=$1 pat=$2
	shift 2
	"$WPPTRACE" hot "$@" >"$WORK/u.out" 2>"$WORK/u.err"
	local rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l <"$WORK/u.err")" = 1 ] && grep -q '^wpptrace: ' "$WORK/u.err" &&
		grep -qE -- "$pat" "$WORK/u.err" && [ ! -s "$WORK/u.out" ]; then
		ok "$what: exit 2, $(cat "$WORK/u.err")"
	else
		fail "$what: exit $rc (want 2), stderr: $(cat "$WORK/u.err"), stdout $(wc -c <"$WORK/u.out") bytes"
	fi
}

# ---- a recording and its raw grammar ----
prog=interp
bin=$WORK/$prog
if ! "$WPPCC" -O2 -o "$bin" "$ROOT/tests/corpus/$prog.c" 2>"$WORK/cc.err"; then
	fail "$prog: wppcc failed: $(cat "$WORK/cc.err")"
	exit 1
fi
run=$WORK/$prog.wpp
if ! "$WPPTRACE" -q record --transport=shm -o "$run" -- "$bin" >/dev/null 2>"$WORK/rec.err" </dev/null; then
	fail "$prog: record failed: $(cat "$WORK/rec.err")"
	exit 1
fi
"$WPPTRACE" wpp "$run" --max-rules 0 --format json >"$WORK/wpp.json" || { fail "wpp $run"; exit 1; }
read -r tid segments < <(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["threads"][0]
print(t["tid"], t["segments"])' "$WORK/wpp.json")
raw=$WORK/$prog.u32
g=$WORK/$prog.raw.wpp
if "$WPPTRACE" wpp "$run" --raw-out "$raw" --tid "$tid" 2>"$WORK/raw.err" &&
	"$WPPTRACE" wpp --from-raw "$raw" -o "$g" >/dev/null 2>"$WORK/from-raw.err"; then
	ok "$prog: thread $tid written raw ($(($(stat -c %s "$raw") / 4)) symbols) and built back into $(basename "$g")"
else
	fail "$prog: --raw-out / --from-raw: $(cat "$WORK/raw.err" "$WORK/from-raw.err")"
	exit 1
fi

# ---- 1. the raw grammar's hot subpaths are the thread's ----
if [ "$segments" != 1 ]; then
	# the raw format joins segments: subpaths across a gap would differ
	echo "note: thread $tid has $segments segments; raw/recorded comparison skipped"
else
	for spec in "2 20 100000" "2 20 200" "1 6 50" "3 12 30" "2 4 2"; do
		set -- $spec
		opts=(--cost count --min-len "$1" --max-len "$2" --min-cost "$3" --top 0 --format json)
		if "$WPPTRACE" hot "$run" --tid "$tid" "${opts[@]}" >"$WORK/thread.json" 2>"$WORK/thread.err" &&
			"$WPPTRACE" hot "$g" "${opts[@]}" >"$WORK/rawg.json" 2>"$WORK/rawg.err" &&
			[ ! -s "$WORK/rawg.err" ] &&
			subpaths "$WORK/thread.json" >"$WORK/thread.sub" &&
			subpaths "$WORK/rawg.json" >"$WORK/rawg.sub" &&
			cmp -s "$WORK/thread.sub" "$WORK/rawg.sub"; then
			ok "raw = thread, --min-len $1 --max-len $2 --min-cost $3: $(head -1 "$WORK/thread.sub" | cut -d' ' -f4) minimal hot subpaths, same pN, costs, frequencies, order"
		else
			fail "raw vs thread, --min-len $1 --max-len $2 --min-cost $3: $(cat "$WORK/thread.err" "$WORK/rawg.err";
				diff "$WORK/thread.sub" "$WORK/rawg.sub" 2>&1 | head -5)"
		fi
	done
	# the same in text: the thread's order, each path as pV
	"$WPPTRACE" hot "$g" --cost count --min-cost 200 --top 5 >"$WORK/rawg.txt" 2>"$WORK/rawg.err"
	"$WPPTRACE" hot "$run" --tid "$tid" --cost count --min-cost 200 --top 5 --format json >"$WORK/thread5.json"
	want=$(python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))["threads"][0]["subpaths"]
print(" ".join(" ".join(s["terminals"]) for s in t))' "$WORK/thread5.json")
	got=$(grep -oE '^      p[0-9]+ ' "$WORK/rawg.txt" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')
	if [ -n "$want" ] && [ "$got" = "$want" ] && [ ! -s "$WORK/rawg.err" ] &&
		head -1 "$WORK/rawg.txt" | grep -q '^raw grammar 1 .*cost >= 200 path executions)'; then
		ok "raw text: the 5 costliest subpaths' paths as pN, in the thread's order"
	else
		fail "raw text: got '$got', want '$want': $(head -1 "$WORK/rawg.txt") $(cat "$WORK/rawg.err")"
	fi
fi
# without --cost: count, said in the header line; JSON says count too
"$WPPTRACE" hot "$g" --min-cost 200 >"$WORK/default.txt" 2>"$WORK/default.err"
rc=$?
"$WPPTRACE" hot "$g" --min-cost 200 --format json >"$WORK/default.json" 2>>"$WORK/default.err"
if [ $rc = 0 ] && [ ! -s "$WORK/default.err" ] &&
	head -1 "$WORK/default.txt" | grep -q 'path executions; --cost count: a raw grammar has no instruction counts' &&
	grep -q '"cost": "count"' "$WORK/default.json" && grep -q '"grammar": "raw"' "$WORK/default.json"; then
	ok "raw grammar without --cost: costed by count, and the header says so"
else
	fail "raw grammar without --cost (exit $rc): $(head -1 "$WORK/default.txt") $(cat "$WORK/default.err")"
fi

# ---- 2. sparse and huge raw values against brute force ----
python3 - "$WORK/sparse.u32" "$WORK/huge.u32" <<'PY'
import random, struct, sys
random.seed(7)
motif = [5, 1, 5, 1, 5, 1, 9, 7, 5, 1, 5, 1]
w = []
for _ in range(40):
    w += motif + random.choices([3, 11, 2147483646 - 2000000000, 0], k=random.randint(0, 4))
open(sys.argv[1], "wb").write(struct.pack("<%dI" % len(w), *(2000000000 + x for x in w)))
h = [4000000000 + x if x % 2 else x for x in w]  # >= 2^31-1: renumbered into a table
open(sys.argv[2], "wb").write(struct.pack("<%dI" % len(h), *h))
PY
for kind in sparse huge; do
	"$WPPTRACE" wpp --from-raw "$WORK/$kind.u32" -o "$WORK/$kind.wpp" >"$WORK/$kind.from" 2>&1 ||
		{ fail "$kind: --from-raw: $(cat "$WORK/$kind.from")"; continue; }
	for spec in "2 20 60" "1 8 40" "3 5 10"; do
		set -- $spec
		if "$WPPTRACE" hot "$WORK/$kind.wpp" --cost count --min-len "$1" --max-len "$2" \
			--min-cost "$3" --top 0 --format json >"$WORK/$kind.json" 2>"$WORK/$kind.err" &&
			[ ! -s "$WORK/$kind.err" ] &&
			out=$(brute_check "$WORK/$kind.u32" "$WORK/$kind.json" "$1" "$2" "$3" 2>&1); then
			ok "$kind values, --min-len $1 --max-len $2 --min-cost $3: $out"
		else
			fail "$kind values, $spec: ${out:-} $(cat "$WORK/$kind.err")"
		fi
	done
done
"$WPPTRACE" hot "$WORK/sparse.wpp" --min-cost 60 --top 1 >"$WORK/sparse.txt" 2>&1
if grep -qE '^      p2000000005 +raw symbol 2000000005$' "$WORK/sparse.txt" &&
	head -1 "$WORK/sparse.txt" | grep -q 'pV is raw value V'; then
	ok "sparse values print as pV with V the raw value"
else
	fail "sparse values in text: $(cat "$WORK/sparse.txt")"
fi
"$WPPTRACE" hot "$WORK/huge.wpp" --min-cost 60 --top 1 >"$WORK/huge.txt" 2>&1
if grep -qE '^      p[0-9] +raw symbol 4000000005$' "$WORK/huge.txt"; then
	ok "values >= 2^31-1 print as their table entry pN with the raw value"
else
	fail "huge values in text: $(cat "$WORK/huge.txt")"
fi

# ---- 3. --top ----
"$WPPTRACE" hot "$run" --cost count --min-cost 100 --top 0 >"$WORK/top0.txt" 2>"$WORK/top0.err"
n=$(head -1 "$WORK/top0.txt" | sed -n 's/.* paths, \([0-9]*\) minimal hot.*/\1/p')
if [ -n "$n" ] && [ "$n" -gt 2 ] && [ "$(grep -c '^  #' "$WORK/top0.txt")" = "$n" ] &&
	! head -1 "$WORK/top0.txt" | grep -q costliest && [ ! -s "$WORK/top0.err" ]; then
	ok "--top 0: all $n subpaths shown, and the header claims no cut"
else
	fail "--top 0: header '$(head -1 "$WORK/top0.txt")', $(grep -c '^  #' "$WORK/top0.txt") shown"
fi
"$WPPTRACE" hot "$g" --cost count --min-cost 100 --top 2 >"$WORK/top2.txt" 2>&1
if [ "$(grep -c '^  #' "$WORK/top2.txt")" = 2 ] && head -1 "$WORK/top2.txt" | grep -q ', the 2 costliest shown$'; then
	ok "--top 2: 2 shown, and the header says so"
else
	fail "--top 2: $(head -1 "$WORK/top2.txt"), $(grep -c '^  #' "$WORK/top2.txt") shown"
fi

# ---- 4. usage mistakes: one line, exit 2 ----
expect_usage "raw grammar, --cost insns" "hot: a raw grammar has no instruction counts; use --cost count" "$g" --cost insns
expect_usage "raw grammar, --cost COUNTER" "hot: --cost cycles: a raw grammar has no counters" "$g" --cost cycles
expect_usage "raw grammar, --tid" "no threads: --pid, --tid and --gen do not apply" "$g" --tid "$tid" --cost count
expect_usage "raw grammar, --pid" "no threads: --pid, --tid and --gen do not apply" "$g" --pid 1
expect_usage "raw grammar, --gen" "no threads: --pid, --tid and --gen do not apply" "$g" --gen 0
expect_usage "unknown option" "hot: unknown option '--bogus' \(try wpptrace help hot\)" "$run" --bogus
expect_usage "unknown option with a value" "hot: unknown option '--bogus' " "$run" --bogus=3
expect_usage "unknown short option" "hot: unknown option '-z'" "$run" -z
expect_usage "ambiguous option" "hot: '--m' is ambiguous" "$run" --m 3
expect_usage "missing value" "hot: --min-len needs a value$" "$run" --min-len
expect_usage "missing short value" "hot: -p \(--pid\) needs a value$" "$run" -p
expect_usage "negative --max-len" "hot: --max-len needs a number, not '-3'$" "$run" --max-len -3
expect_usage "malformed --min-len" "hot: --min-len needs a number, not '2x'$" "$run" --min-len 2x
expect_usage "malformed --top" "hot: --top needs a number, not 'all'$" "$run" --top all
expect_usage "malformed --tid" "hot: --tid needs a number, not '1.5'$" "$run" --tid 1.5
expect_usage "--min-len 0" "hot: need 1 <= --min-len <= --max-len <= 4096" "$run" --min-len 0
expect_usage "--max-len < --min-len" "hot: need 1 <= --min-len <= --max-len <= 4096" "$run" --min-len 5 --max-len 3
expect_usage "--max-len > 4096" "hot: need 1 <= --min-len <= --max-len <= 4096" "$run" --max-len 4097
expect_usage "--cost naming no counter" \
	"hot: --cost foo: --cost takes insns, count, or the name of a counter recorded with .record -e.; .*$prog.wpp has none" \
	"$run" --cost foo
expect_usage "--tid of no thread" "no thread in .* matches --tid" "$run" --tid 999999999

[ "$fails" -eq 0 ] && echo "all hot command-line checks passed"
exit $((fails > 0))
