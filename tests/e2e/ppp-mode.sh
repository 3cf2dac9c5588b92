#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ppp-mode — preferential path counting (wppcc -fwpp-mode=ppp, issue 26)
# against counting mode as the oracle.  Each deterministic program is built
# in count mode and in ppp mode, the ppp build's interesting set coming
# from a recording of another input (or, for programs without input, only
# the hottest paths of the same run), so some executed paths are outside
# it; the same run is recorded from both builds, and
#   - `wpptrace paths` (every path, every count) and the program's output
#     are the same: an interesting path lands on its own counter, any other
#     is counted by Ball-Larus id, never for another path;
#   - `wpptrace residual --format json` lists exactly the executed paths
#     (the count build's recording) that the set file does not hold, with
#     their counts (brute force over the two files);
#   - --wpp-stats says which functions counted preferentially.
# ppp_mix (tests/e2e/ppp/ppp_mix.c: a 2^31-path function, threads, a
# signal handler) runs with the default policy (PPP only where counting
# would hash) and with every function forced to PPP, through shm and BPF;
# corpus programs run forced.  Also: a stale set (one warning, the changed
# function counts every path as residual), a corrupt set and a missing one
# (one error line each), residual on a count recording and the commands
# that need path order refusing a ppp recording (one line each), report
# reading a ppp recording as it reads a count one, and a live snapshot of a
# ppp build naming Ball-Larus ids.
. "$(dirname "$0")/bpf-lib.sh"
PPP_SRC=$ROOT/tests/e2e/ppp
COUNT_SRC=$ROOT/tests/e2e/count
PEEK=$ROOT/build/tests/e2e/count_peek

# profile_of FILE.wpp: the path profile without its title line (file name),
# into FILE.paths, and as JSON into FILE.json.
profile_of() {
	"$WPPTRACE" paths "$1" 2>"${1%.wpp}.paths.err" | tail -n +2 >"${1%.wpp}.paths"
	"$WPPTRACE" paths --format json "$1" >"${1%.wpp}.json" 2>>"${1%.wpp}.paths.err"
}

# rec DIR BUILD TAG TRANSPORT ARGS...: record DIR/BUILD/prog ARGS into
# DIR/TAG.wpp (+ .out, .err, .paths, .json).
rec() {
	local dir=$1 build=$2 tag=$3 t=$4
	shift 4
	(cd "$dir/$build" && "$WPPTRACE" record -q --transport="$t" -o "$dir/$tag.wpp" -- ./prog "$@" \
		>"$dir/$tag.out" 2>"$dir/$tag.err") ||
		{ fail "$(basename "$dir") $tag: record: $(head -1 "$dir/$tag.err")"; return 1; }
	profile_of "$dir/$tag.wpp"
}

# build DIR BUILD SOURCE FLAGS...: wppcc -O2 into DIR/BUILD/prog.
build() {
	local dir=$1/$2 src=$3 what
	what="$(basename "$1") $2"
	shift 3
	mkdir -p "$dir"
	"$WPPCC" -O2 -g -pthread -I"$CORPUS" "$@" -o "$dir/prog" "$src" >"$dir/build.log" 2>&1 ||
		{ fail "$what: build: $(head -1 "$dir/build.log")"; return 1; }
}

# residual_check EXECUTED.json SET RESIDUAL.json: the brute force; prints
# "N paths, M executions" or the first difference (exit 1).
residual_check() {
	python3 - "$@" <<'PY'
import json, sys
executed = {(p["stable_id"], p["path"]): p["count"] for p in json.load(open(sys.argv[1]))["paths"]}
interesting, fn = set(), None
for line in open(sys.argv[2]):
    f = line.split()
    if f and f[0] == "f":
        fn = f[1]
    elif f and f[0] == "p":
        interesting.add((fn, int(f[1])))
want = {k: c for k, c in executed.items() if k not in interesting}
doc = json.load(open(sys.argv[3]))
got = {(p["stable_id"], p["path"]): p["count"] for p in doc["paths"]}
if got != want:
    extra = sorted(set(got) - set(want))[:2]
    missing = sorted(set(want) - set(got))[:2]
    wrong = [k for k in want if k in got and got[k] != want[k]][:2]
    print("residual lists %s too many, misses %s, counts differ at %s" % (extra, missing, wrong))
    sys.exit(1)
t = doc["totals"]
if t["residual_distinct"] != len(want) or t["residual_executions"] != sum(want.values()) or \
        t["ppp_executions"] != sum(executed.values()) or t["ppp_distinct"] != len(executed):
    print("totals %s" % t)
    sys.exit(1)
if not want or len(want) == len(executed):
    print("no residual path, or no interesting one: the check proves little")
    sys.exit(1)
print("%d of %d paths residual, %d of %d executions" % (len(want), len(executed),
      sum(want.values()), sum(executed.values())))
PY
}

# same_run NAME DIR REF TAG: TAG's profile and output are REF's.
same_run() {
	local name=$1 dir=$2 ref=$3 tag=$4
	if ! [ -s "$dir/$ref.paths" ] || ! cmp -s "$dir/$ref.paths" "$dir/$tag.paths"; then
		fail "$name: $tag paths differ from $ref: $(diff "$dir/$ref.paths" "$dir/$tag.paths" | sed -n 2p)"
		return 1
	fi
	cmp -s "$dir/$ref.out" "$dir/$tag.out" || { fail "$name: $tag output differs"; return 1; }
}

# run_ppp NAME SOURCE SET_FROM FIELD_ARGS [ENV...]: SET_FROM is "args:A B"
# (the set is the recording of the count build run with A B) or "top:N"
# (the N hottest paths of the field run itself).
run_ppp() {
	local name=$1 src=$2 from=$3 field=$4 dir=$WORK/$1 why
	shift 4
	mkdir -p "$dir"
	build "$dir" count "$src" -fwpp-mode=count || return 1
	# shellcheck disable=SC2086
	rec "$dir" count c shm $field || return 1
	case $from in
	args:*)
		# shellcheck disable=SC2086
		rec "$dir" count train shm ${from#args:} || return 1
		"$WPPTRACE" interesting -q "$dir/train.wpp" -o "$dir/set.int" ;;
	top:*)
		"$WPPTRACE" interesting -q --top "${from#top:}" "$dir/c.wpp" -o "$dir/set.int" ;;
	esac || { fail "$name: interesting"; return 1; }
	env "$@" "$WPPCC" -O2 -g -pthread -I"$CORPUS" -fwpp-mode=ppp --wpp-interesting="$dir/set.int" \
		--wpp-stats="$dir/stats" -o "$dir/prog" "$src" >"$dir/build.log" 2>&1 ||
		{ fail "$name: ppp build: $(head -1 "$dir/build.log")"; return 1; }
	[ -s "$dir/build.log" ] && fail "$name: the ppp build said: $(head -1 "$dir/build.log")"
	mkdir -p "$dir/ppp" && mv "$dir/prog" "$dir/ppp/prog"
	# shellcheck disable=SC2086
	rec "$dir" ppp q shm $field || return 1
	same_run "$name" "$dir" c q || return 1
	"$WPPTRACE" residual --format json "$dir/q.wpp" >"$dir/resid.json" 2>"$dir/resid.err" ||
		{ fail "$name: residual: $(head -1 "$dir/resid.err")"; return 1; }
	why=$(residual_check "$dir/c.json" "$dir/set.int" "$dir/resid.json") ||
		{ fail "$name: $why"; return 1; }
	# PPP, or weighed against the path cache and found dearer (counted=cache)
	local nppp ncache
	nppp=$(grep -c " counted=ppp" "$dir/stats")
	ncache=$(grep -c " counted=cache" "$dir/stats")
	[ $((nppp + ncache)) -gt 0 ] ||
		{ fail "$name: no function counted preferentially or by the cost choice"; return 1; }
	pass "$name: same profile as count mode; residual exact: $why; $nppp functions by PPP, $ncache by the path cache"
}

# Corpus programs, every function with interesting paths forced to PPP.
for spec in branches:top:3: switches:top:4: computed_goto:top:3: interp:top:6: \
	recursion:args::12 wide_paths:top:3: callbacks:top:3: threads:top:4: signals:top:3: \
	longjmp:top:3:; do
	IFS=: read -r name kind n args <<<"$spec"
	run_ppp "$name" "$CORPUS/$name.c" "$kind:$n" "$args" WPP_PPP_MIN_PATHS=0
done

# ppp_mix: the default policy (where counting would hash, PPP if cheaper
# than the path cache: many_paths's 256 interesting paths take 256 of the
# 4096 pairs without a conflict, so the cache, ppp_cost.h), the same with
# a 64-pair cache (most of them lose their pair: PPP), and every function
# forced, trained on one input and run on another: either choice counts
# exactly and keeps the set for residual.  (Built from a copy: the stale
# check below changes it at the same path, which a set names its
# functions by.)
mkdir -p "$WORK/src"
cp "$PPP_SRC/ppp_mix.c" "$WORK/src/ppp_mix.c"
run_ppp ppp_mix "$WORK/src/ppp_mix.c" args:train field &&
	grep -q "wpp-stats: many_paths .*counted=cache (per path execution: .* 0 of 256 " "$WORK/ppp_mix/stats" &&
	grep -q "wpp-stats: few_paths .*counted=plain" "$WORK/ppp_mix/stats" &&
	pass "ppp_mix: by default many_paths (2^31 paths) counts in its path cache, few_paths by Ball-Larus" ||
	fail "ppp_mix: default policy: $(grep -E 'many_paths|few_paths' "$WORK/ppp_mix/stats" | tr '\n' '|')"
run_ppp ppp_mix_conflicts "$WORK/src/ppp_mix.c" args:train field WPP_COUNT_CACHE_PAIRS=64 &&
	grep -q "wpp-stats: many_paths .*counted=ppp (per path execution: " "$WORK/ppp_mix_conflicts/stats" &&
	pass "ppp_mix, 64-pair caches: many_paths counts by PPP ($(sed -n 's/.*many_paths.*counted=ppp (//p' "$WORK/ppp_mix_conflicts/stats" | tr -d ')'))" ||
	fail "ppp_mix, 64-pair caches: $(grep -E 'many_paths' "$WORK/ppp_mix_conflicts/stats")"
run_ppp ppp_mix_all "$WORK/src/ppp_mix.c" args:train field WPP_PPP_MIN_PATHS=0 &&
	grep -q "wpp-stats: few_paths .*counted=ppp" "$WORK/ppp_mix_all/stats" &&
	grep -q "ppp mode: [1-9][0-9]* count preferentially" "$WORK/ppp_mix_all/stats" &&
	pass "ppp_mix forced: $(sed -n 's/.*ppp mode: //p' "$WORK/ppp_mix_all/stats")" ||
	fail "ppp_mix forced: $(grep 'ppp mode' "$WORK/ppp_mix_all/stats")"
# The BPF transport carries the drained counts the same way.
for t in ppp_mix ppp_mix_conflicts ppp_mix_all; do
	d=$WORK/$t
	[ -x "$d/ppp/prog" ] || continue
	rec "$d" ppp qb bpf field && same_run "$t" "$d" c qb && pass "$t: the same through BPF"
done

d=$WORK/ppp_mix
# The residual paths' source lines: rare()'s field-only branch is one.
"$WPPTRACE" residual "$d/q.wpp" >"$d/resid.txt" 2>"$d/resid.txt.err"
if grep -q " rare " "$d/resid.txt" && grep -q "^residual: .* in ppp units" "$d/resid.txt" &&
	grep -qE "^ +[0-9]+ +[0-9.]+ rare +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ [0-9]+-[0-9]+ " "$d/resid.txt"; then
	pass "residual text: $(grep '^residual:' "$d/resid.txt")"
else
	fail "residual text: $(head -3 "$d/resid.txt" | tr '\n' '|') $(head -1 "$d/resid.txt.err")"
fi
# --tid: the main thread (tid = pid) holds fewer executions than the run;
# a --pid of no process is said in one line.
pid=$("$WPPTRACE" info --format json "$d/q.wpp" 2>/dev/null |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["processes"][0]["pid"])' 2>/dev/null)
total() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["totals"]["residual_executions"])' "$1" 2>/dev/null; }
if [ -n "$pid" ]; then
	"$WPPTRACE" residual --format json --tid "$pid" "$d/q.wpp" >"$d/tid.json" 2>/dev/null
	a=$(total "$d/resid.json") b=$(total "$d/tid.json")
	[ -n "$b" ] && [ -n "$a" ] && [ "$b" -lt "$a" ] && [ "$b" -gt 0 ] &&
		pass "residual --tid $pid: $b of $a residual executions" || fail "residual --tid $pid: '$b' of '$a'"
	"$WPPTRACE" residual --pid 999999999 "$d/q.wpp" >/dev/null 2>"$d/nopid.err"
	[ -s "$d/nopid.err" ] && pass "residual --pid of no process: $(head -1 "$d/nopid.err")" ||
		fail "residual --pid of no process said nothing"
else
	fail "residual --tid: info --format json names no process"
fi

# Report reads a ppp recording as it reads the count recording of the run.
for r in c q; do
	"$WPPTRACE" report "$d/$r.wpp" 2>/dev/null | sed "s|\b$r\.wpp|X.wpp|g" >"$d/$r.report"
done
[ -s "$d/q.report" ] && cmp -s "$d/c.report" "$d/q.report" &&
	pass "report prints the same for the ppp and the count recording" ||
	fail "report differs: $(diff "$d/c.report" "$d/q.report" | sed -n 2p)"

# Commands that need path order refuse a ppp recording in one line.
for cmd in wpp hot; do
	"$WPPTRACE" $cmd "$d/q.wpp" >/dev/null 2>"$d/refuse.err"
	rc=$?
	[ $rc -eq 1 ] && [ "$(wc -l <"$d/refuse.err")" -eq 1 ] && grep -q "fwpp-mode=ppp" "$d/refuse.err" &&
		pass "$cmd refuses a ppp recording" || fail "$cmd on a ppp recording: rc=$rc, $(head -1 "$d/refuse.err")"
done
# residual needs a ppp unit
"$WPPTRACE" residual "$d/c.wpp" >"$d/nr.out" 2>"$d/nr.err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$d/nr.err")" -eq 1 ] && [ ! -s "$d/nr.out" ] &&
	pass "residual on a count recording: $(cut -c1-90 "$d/nr.err")..." ||
	fail "residual on a count recording: rc=$rc, $(head -1 "$d/nr.err")"

# A stale set: rare() changed since the set was recorded.  One warning line
# naming it; it counts by Ball-Larus id; residual lists every path it ran.
s=$WORK/stale
mkdir -p "$s/ppp"
# (a volatile store keeps the new branch a branch: the CFG changes)
sed 's|return x + 2;|{ if (x \& 1) sink++; return x + 2; }|' "$PPP_SRC/ppp_mix.c" >"$WORK/src/ppp_mix.c"
"$WPPCC" -O2 -g -pthread -I"$CORPUS" -fwpp-mode=ppp --wpp-interesting="$d/set.int" \
	--wpp-stats="$s/stats" -o "$s/ppp/prog" "$WORK/src/ppp_mix.c" 2>"$s/build.err"
rc=$?
if [ $rc -ne 0 ] || [ "$(wc -l <"$s/build.err")" -ne 1 ] || ! grep -q "warning: .*(rare)" "$s/build.err" ||
	! grep -q "wpp-stats: rare .*counted=stale" "$s/stats"; then
	fail "stale set: rc=$rc, $(head -2 "$s/build.err" | tr '\n' '|')"
elif rec "$s" ppp q shm field; then
	"$WPPTRACE" residual --format json "$s/q.wpp" >"$s/resid.json" 2>/dev/null
	if python3 - "$s/q.json" "$s/resid.json" <<'PY'; then
import json, sys
ran = {(p["path"], p["count"]) for p in json.load(open(sys.argv[1]))["paths"] if p["function"] == "rare"}
doc = json.load(open(sys.argv[2]))
res = {(p["path"], p["count"]) for p in doc["paths"] if p["function"] == "rare"}
assert ran and ran == res and doc["totals"]["stale_functions"] == 1
PY
		pass "stale set: $(cut -c1-80 "$s/build.err")...; every path of rare is residual"
	else
		fail "stale set: residual does not list exactly rare's paths"
	fi
fi

# Bad and missing sets: one error line, exit 1, no output.
printf 'not a set at all\n' >"$WORK/garbage.int"
for bad in "--wpp-interesting=$WORK/garbage.int" "--wpp-interesting=$WORK/missing.int" ""; do
	rm -f "$WORK/bad.out"
	# shellcheck disable=SC2086
	"$WPPCC" -O2 -fwpp-mode=ppp $bad -o "$WORK/bad.out" "$CORPUS/branches.c" 2>"$WORK/bad.err"
	rc=$?
	if [ $rc -ne 1 ] || [ "$(wc -l <"$WORK/bad.err")" -ne 1 ] || [ -e "$WORK/bad.out" ]; then
		fail "ppp with '${bad:-no set}': rc=$rc, $(head -1 "$WORK/bad.err")"
	else
		pass "ppp with '${bad:-no set}': $(cat "$WORK/bad.err")"
	fi
done

# Live counts of a ppp build (count_snapshot.c through count_peek): at the
# first pause of count_phases, its paths by Ball-Larus id are the paths
# build's after phase A, as in count-mode.sh.
l=$WORK/live
mkdir -p "$l"
if [ ! -x "$PEEK" ]; then
	fail "live: $PEEK not built (make $PEEK)"
elif "$WPPCC" -O2 -g -pthread -o "$l/paths" "$COUNT_SRC/count_phases.c" &&
	(cd "$l" && "$WPPTRACE" record -q -o a.wpp -- ./paths a >a.out) &&
	"$WPPTRACE" interesting -q --top 4 "$l/a.wpp" -o "$l/set.int" &&
	WPP_PPP_MIN_PATHS=0 "$WPPCC" -O2 -g -pthread -fwpp-mode=ppp --wpp-interesting="$l/set.int" \
		-o "$l/ppp" "$COUNT_SRC/count_phases.c"; then
	"$WPPTRACE" paths --format json "$l/a.wpp" | python3 -c '
import json, sys
for r in sorted((r["function"], r["path"], r["count"]) for r in json.load(sys.stdin)["paths"]
                if r["function"] in ("alpha", "shared")):
    print(*r)' >"$l/want"
	rm -f "$l/in"
	mkfifo -m 600 "$l/in"
	(cd "$l" && exec ./ppp p <in >live.out 2>live.err) &
	prog=$!
	exec 7>"$l/in"
	if wait_until "the first pause" grep -q "^paused 1" "$l/live.out"; then
		pid=$(sed -n 's/^paused 1 //p' "$l/live.out")
		coproc PEEK_IO { "$PEEK" "$pid"; }
		peek_in=${PEEK_IO[1]} peek_out=${PEEK_IO[0]}
		echo snap >&"$peek_in"
		: >"$l/snap"
		while IFS= read -r -t 60 line <&"$peek_out"; do
			[ "${line%% *}" = end ] && break
			echo "$line" >>"$l/snap"
		done
		exec {peek_in}>&-
		echo go >&7
		wait_until "the second pause" grep -q "^paused 2" "$l/live.out"
		echo go >&7
	fi
	exec 7>&-
	wait $prog
	if awk '$1 == "alpha" || $1 == "shared"' "$l/snap" | cmp -s - "$l/want" && [ -s "$l/want" ]; then
		pass "live snapshot of a ppp build: alpha's and shared's Ball-Larus paths and counts"
	else
		fail "live snapshot of a ppp build: $(awk '$1 == "alpha" || $1 == "shared"' "$l/snap" | diff - "$l/want" | sed -n 2p)"
	fi
else
	fail "live: count_phases builds"
fi
finish
