#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Whole program path grammars end to end: corpus programs built with wppcc,
# recorded with --transport=shm; for each recording
#   1. the grammar `wpp` uses (recorded online by `record` when it stores
#      one, else rebuilt from the batches) expands to exactly the path
#      stream `script` decodes, thread by thread, gap by gap;
#   2. the record sink's online hook, replayed over the file in arrival
#      order (build/tests/unit/collect/replay_sink), stores GRAMMAR chunks
#      that expand to the same stream, and `wpp` reads them ("recorded");
#   3. `hot` (--cost count and insns) equals a brute force over every
#      substring of the decoded stream (tests/e2e/wpp-check.py);
#   4. the DAG queries answer like the stream: --freq of a pair of paths,
#      --order (first/last positions, "ran before") of four paths;
#   5. `wpp --raw-out` writes each thread's decoded stream as raw 32-bit
#      symbols; `wpp --from-raw` of it gives the same grammar as the
#      thread's own (one-segment threads);
#   6. `wpp --store` keeps the grammars it builds in the file (after END),
#      later runs read them ("stored"), with the same expansion; a file
#      without END is refused and left as it was.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WPPTRACE=$ROOT/bin/wpptrace
WPPCC=$ROOT/bin/wppcc
REPLAY=$ROOT/build/tests/unit/collect/replay_sink
CHECK="python3 $ROOT/tests/e2e/wpp-check.py"
WORK=$ROOT/tests/work/wpp-grammar
mkdir -p "$WORK"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok:   $*"; }

[ -x "$REPLAY" ] || make -C "$ROOT" --no-print-directory "$REPLAY" >/dev/null || exit 1

# exec last: it exec()s into recursion, built next to it just before, and
# its one thread has a stream per image (generations 0 and 1).
for prog in interp signals threads recursion exec; do
	src=$ROOT/tests/corpus/$prog.c
	bin=$WORK/$prog
	args=
	[ "$prog" = recursion ] && args=12
	if ! "$WPPCC" -O2 -o "$bin" "$src" -lpthread 2>"$WORK/$prog.cc.err"; then
		fail "$prog: wppcc failed"; cat "$WORK/$prog.cc.err"; continue
	fi
	run=$WORK/$prog.wpp
	"$WPPTRACE" -q record --transport=shm --grammar -o "$run" -- "$bin" $args >/dev/null 2>"$WORK/$prog.rec.err" </dev/null
	"$WPPTRACE" script "$run" --format jsonl >"$WORK/$prog.jsonl" || { fail "$prog: script"; continue; }

	# 1. the grammar wpp uses
	"$WPPTRACE" wpp "$run" --expand >"$WORK/$prog.exp" || { fail "$prog: wpp --expand"; continue; }
	if out=$($CHECK stream "$WORK/$prog.jsonl" "$WORK/$prog.exp"); then
		ok "$prog: grammar ($("$WPPTRACE" wpp "$run" | grep -o 'grammar [a-z ]*' | head -1)) $out"
	else
		fail "$prog: $out"
	fi
	# 1b. the builder travels in the GRAMMAR chunk: chunked by default,
	#     SEQUITUR(1) with --grammar-builder sequitur, the same stream
	if [ "$prog" = interp ]; then
		s1=$WORK/$prog.s1
		"$WPPTRACE" -q record --transport=shm --grammar-builder sequitur -o "$s1.wpp" \
			-- "$bin" $args >/dev/null 2>&1 </dev/null
		by=$("$WPPTRACE" wpp "$run" | sed -n 's/^  built by *//p' | sort -u)
		by1=$("$WPPTRACE" wpp "$s1.wpp" | sed -n 's/^  built by *//p' | sort -u)
		if "$WPPTRACE" script "$s1.wpp" --format jsonl >"$s1.jsonl" &&
			"$WPPTRACE" wpp "$s1.wpp" --expand >"$s1.exp" &&
			"$WPPTRACE" wpp "$s1.wpp" | grep -q 'grammar recorded online' &&
			[ "$by" = chunked ] && [ "$by1" = "SEQUITUR(1)" ] &&
			out=$($CHECK stream "$s1.jsonl" "$s1.exp"); then
			ok "$prog: built by $by, by $by1 with --grammar-builder sequitur; $out"
		else
			fail "$prog: builders: default '$by', sequitur '$by1' ${out:-}"
		fi
	fi
	# 2. online grammars through the sink hook
	if "$REPLAY" "$run" "$WORK/$prog.online.wpp" 2>"$WORK/$prog.replay.err" &&
		"$WPPTRACE" wpp "$WORK/$prog.online.wpp" --expand >"$WORK/$prog.online.exp" &&
		out=$($CHECK stream "$WORK/$prog.jsonl" "$WORK/$prog.online.exp"); then
		if "$WPPTRACE" wpp "$WORK/$prog.online.wpp" | grep -q 'grammar rebuilt'; then
			fail "$prog: online file has threads without a recorded grammar"
		else
			ok "$prog: online grammar chunks, $out"
		fi
	else
		fail "$prog: online grammar: ${out:-$(cat "$WORK/$prog.replay.err")}"
	fi
	# 3. hot subpaths against brute force
	"$WPPTRACE" paths "$run" --format json >"$WORK/$prog.paths.json"
	for spec in "count 2 5 40" "insns 3 8 2000" "count 1 12 300" "count 2 4 3"; do
		set -- $spec
		if "$WPPTRACE" hot "$WORK/$prog.online.wpp" --cost "$1" --min-len "$2" --max-len "$3" \
			--min-cost "$4" --top 100000000 --format json >"$WORK/$prog.hot.json" &&
			out=$($CHECK hot "$WORK/$prog.jsonl" "$WORK/$prog.paths.json" "$WORK/$prog.hot.json" \
				"$2" "$3" "$4" "$1"); then
			ok "$prog: hot --cost $1 --min-len $2 --max-len $3 --min-cost $4: $out"
		else
			fail "$prog: hot $spec: $out"
		fi
	done
	# 4. --freq of the most frequent adjacent pair of the first thread vs
	#    the stream (pN = N-th distinct path in order of first appearance)
	want=$(python3 - "$WORK/$prog.exp" "$WORK/$prog.order.want" <<'PY'
import collections, sys
lines = open(sys.argv[1]).read().split("\n")
tid = lines[0].split()[2]
segs, cur, ids = [], [], {}
for l in lines[1:]:
    if l.startswith("thread") or not l:
        break
    if l == "gap":
        segs.append(cur); cur = []
    else:
        ids.setdefault(l, len(ids)); cur.append(ids[l])
segs.append(cur)
pairs = collections.Counter((s[i], s[i + 1]) for s in segs for i in range(len(s) - 1))
(a, b), n = sorted(pairs.items(), key=lambda kv: (-kv[1], kv[0]))[0]
# --order: the pair, the rarest path and the last new one, against the
# stream (positions count every segment, one after another)
stream = [x for s in segs for x in s]
counts = collections.Counter(stream)
rare = min(counts, key=lambda x: (counts[x], x))
order = list(dict.fromkeys([a, b, rare, len(ids) - 1]))
want = {"paths": [{"path": "p%d" % x, "count": counts[x], "first": stream.index(x),
                   "last": len(stream) - 1 - stream[::-1].index(x)} for x in order]}
want["before"] = [{"path": "p%d" % x, "then": "p%d" % y,
                   "ran_before": any(u == x for u in stream[:len(stream) - 1 - stream[::-1].index(y)])}
                  for x in order for y in order if x != y]
open(sys.argv[2], "w").write(__import__("json").dumps(want, sort_keys=True))
print(tid, "p%d,p%d" % (a, b), n, ",".join("p%d" % x for x in order))
PY
)
	set -- $want
	got=$("$WPPTRACE" wpp "$run" --tid "$1" --freq "$2" --max-rules 0 | sed -n 's/.*frequency of .*: //p' | head -1)
	if [ "$got" = "$3" ]; then
		ok "$prog: --freq $2 = $got (stream count)"
	else
		fail "$prog: --freq $2 = '$got', stream says $3"
	fi
	"$WPPTRACE" wpp "$run" --tid "$1" --order "$4" --max-rules 0 --format json >"$WORK/$prog.order.json"
	if python3 -c '
import json, sys
got = json.load(open(sys.argv[1]))["threads"][0]["order"]
sys.exit(json.dumps(got, sort_keys=True) != open(sys.argv[2]).read())' \
		"$WORK/$prog.order.json" "$WORK/$prog.order.want"; then
		ok "$prog: --order $4: first/last positions and 'ran before' as in the stream"
	else
		fail "$prog: --order $4: $(cat "$WORK/$prog.order.json") vs $(cat "$WORK/$prog.order.want")"
	fi
	# 5. --raw-out, and --from-raw of it, thread by thread
	raw_ok=0
	while read -r _ pid tid gen; do
		raw=$WORK/$prog.$tid.$gen.u32
		one=(--pid "$pid" --tid "$tid" --gen "$gen")
		if ! "$WPPTRACE" wpp "$run" "${one[@]}" --raw-out "$raw" 2>"$WORK/$prog.raw.err" ||
			! out=$($CHECK raw "$WORK/$prog.jsonl" "$pid" "$tid" "$gen" "$raw"); then
			fail "$prog: --raw-out of thread $tid generation $gen: ${out:-$(cat "$WORK/$prog.raw.err")}"
			continue
		fi
		if [ "$("$WPPTRACE" wpp "$run" "${one[@]}" --format json | grep -o '"segments": [0-9]*')" = '"segments": 1' ]; then
			"$WPPTRACE" wpp "$run" "${one[@]}" --format json --max-rules 100000000 >"$WORK/$prog.g.json"
			if ! "$WPPTRACE" wpp --from-raw "$raw" -o "$WORK/$prog.raw.wpp" >/dev/null ||
				! "$WPPTRACE" wpp "$WORK/$prog.raw.wpp" --format json --max-rules 100000000 >"$WORK/$prog.rawg.json" ||
				! same=$($CHECK same-grammar "$WORK/$prog.g.json" "$WORK/$prog.rawg.json"); then
				fail "$prog: thread $tid: --from-raw of --raw-out: ${same:-failed}"
				continue
			fi
			out="$out; $same"
		fi
		raw_ok=$((raw_ok + 1))
		echo "      thread $tid (generation $gen): $out"
	done < <(grep '^thread ' "$WORK/$prog.exp")
	[ "$raw_ok" -gt 0 ] && ok "$prog: --raw-out of $raw_ok thread(s) is the decoded stream, and its --from-raw grammar the thread's"
done
# exec's thread ran two images: its tid alone matches two streams, and the
# error says how to choose; each generation's --raw-out was checked above.
tid=$(grep -m1 '^thread ' "$WORK/exec.exp" | cut -d' ' -f3)
if [ "$(grep -c "^thread [0-9]* $tid " "$WORK/exec.exp")" = 2 ] &&
	! "$WPPTRACE" wpp "$WORK/exec.wpp" --tid "$tid" --raw-out "$WORK/exec.u32" 2>"$WORK/raw.err" &&
	[ "$(wc -l <"$WORK/raw.err")" = 1 ] && grep -q '2 in .* match .*--gen' "$WORK/raw.err" &&
	[ "$("$WPPTRACE" hot "$WORK/exec.wpp" --tid "$tid" --gen 1 --format json | grep -c '"gen": 1')" = 1 ] &&
	[ "$("$WPPTRACE" hot "$WORK/exec.wpp" --tid "$tid" --gen 1 --format json | grep -c '"gen": 0')" = 0 ] &&
	[ "$("$WPPTRACE" script "$WORK/exec.wpp" --gen 0 --format jsonl | grep -vc '"gen":0,')" = 0 ]; then
	ok "exec: --gen picks one image's stream (--raw-out error names it; hot, script filter by it)"
else
	fail "exec: two generations of thread $tid: $(cat "$WORK/raw.err")"
fi
# --raw-out refuses anything but one thread, and reports a failed write
if ! "$WPPTRACE" wpp "$WORK/threads.wpp" --raw-out "$WORK/many.u32" 2>"$WORK/raw.err" &&
	[ "$(wc -l <"$WORK/raw.err")" = 1 ] && grep -q 'writes one thread; [0-9]* in .* match' "$WORK/raw.err"; then
	ok "--raw-out without a thread filter on a threaded file: one error line"
else
	fail "--raw-out on several threads: $(cat "$WORK/raw.err")"
fi
tid=$(grep -m1 '^thread ' "$WORK/threads.exp" | cut -d' ' -f3)
if ! "$WPPTRACE" wpp "$WORK/threads.wpp" --tid "$tid" --raw-out /dev/full 2>"$WORK/raw.err" &&
	[ "$(wc -l <"$WORK/raw.err")" = 1 ] && grep -q 'writing /dev/full failed' "$WORK/raw.err"; then
	ok "--raw-out to a full device: one error line, non-zero exit"
else
	fail "--raw-out to /dev/full: $(cat "$WORK/raw.err")"
fi
# --raw-max: the first N symbols of the same stream, and the info line says
# how many of how many
raw=$WORK/threads.$tid.0.u32 # generation 0: threads does not exec
if "$WPPTRACE" wpp "$WORK/threads.wpp" --tid "$tid" --raw-out "$WORK/head.u32" --raw-max 3 2>"$WORK/raw.err" &&
	[ "$(stat -c %s "$WORK/head.u32")" = 12 ] && cmp -s "$WORK/head.u32" <(head -c 12 "$raw") &&
	grep -q "the first 3 of $(($(stat -c %s "$raw") / 4)) symbols" "$WORK/raw.err"; then
	ok "--raw-max 3: the stream's first 3 symbols, and said so"
else
	fail "--raw-max 3: $(cat "$WORK/raw.err")"
fi
# 6. --store on a recording without grammars (threads: several threads)
run=$WORK/store.wpp
"$WPPTRACE" -q record --transport=shm --no-grammar -o "$run" -- "$WORK/threads" >/dev/null 2>&1 </dev/null
nthreads=$("$WPPTRACE" wpp "$run" | grep -c '^thread .*grammar rebuilt from the batches')
"$WPPTRACE" wpp "$run" --expand >"$WORK/store.before"
if "$WPPTRACE" wpp --store "$run" >/dev/null 2>"$WORK/store.err" &&
	grep -q "stored $nthreads grammars in" "$WORK/store.err" && [ "$nthreads" -gt 1 ]; then
	ok "store: $nthreads grammars stored"
else
	fail "store: expected $nthreads grammars stored: $(cat "$WORK/store.err")"
fi
stored=$("$WPPTRACE" wpp "$run" 2>"$WORK/store.read.err" | grep -c '^thread .*grammar stored from the batches')
"$WPPTRACE" wpp "$run" --expand >"$WORK/store.after" 2>>"$WORK/store.read.err"
if [ "$stored" = "$nthreads" ] && cmp -s "$WORK/store.before" "$WORK/store.after" &&
	[ ! -s "$WORK/store.read.err" ] && "$WPPTRACE" info "$run" >/dev/null 2>"$WORK/store.info.err" &&
	[ ! -s "$WORK/store.info.err" ]; then
	ok "store: later runs read the $stored stored grammars, same expansion, no warnings"
else
	fail "store: $stored of $nthreads read as stored; expansion $(cmp -s "$WORK/store.before" \
		"$WORK/store.after" && echo same || echo differs); $(cat "$WORK/store.read.err" "$WORK/store.info.err")"
fi
if "$WPPTRACE" wpp --store "$run" >/dev/null 2>"$WORK/store.err" && grep -q 'stored 0 grammars' "$WORK/store.err"; then
	ok "store: nothing left to store the second time"
else
	fail "store: second --store: $(cat "$WORK/store.err")"
fi
# a recording without END (cut inside its END chunk) is refused, untouched
cut=$WORK/store-cut.wpp
"$WPPTRACE" -q record --transport=shm --no-grammar -o "$cut" -- "$WORK/threads" >/dev/null 2>&1 </dev/null
truncate -s -8 "$cut" && cp "$cut" "$cut.orig"
if ! "$WPPTRACE" wpp --store "$cut" >/dev/null 2>"$WORK/store.err" &&
	[ "$(grep -c . "$WORK/store.err")" -ge 1 ] && grep -q 'needs a finished recording' "$WORK/store.err" &&
	cmp -s "$cut" "$cut.orig"; then
	ok "store: a file without END is refused and unchanged"
else
	fail "store: on a file without END: $(cat "$WORK/store.err")"
fi

[ "$fails" -eq 0 ] && echo "all wpp grammar checks passed"
exit $((fails > 0))
