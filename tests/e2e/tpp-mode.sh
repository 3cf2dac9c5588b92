#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# tpp-mode — targeted path profiling (wppcc -fwpp-mode=tpp, issue 27)
# against counting mode as the oracle.  Each deterministic corpus program
# is built in count mode and recorded (the training profile and the
# reference), then in tpp mode from that recording.  With thresholds 0 no
# edge is cold and no loop disconnected, so every path is either counted
# or obvious, and an obvious path's defining edge lies on that path alone:
# the path profile read back from the tpp recording (counters decoded
# through the plan tables of metadata mode 6) must equal the count build's,
# path by path and count by count, over shm and BPF, with the hash (a
# 16384-path function; every function through it; paths in the hash, or
# a path cache before it, and the other counters in the array) as well as
# arrays, and
# C++ exceptions (tests/e2e/tpp/tpp_eh.cpp: invokes and landing pads).  A
# stale profile (one function changed) is one warning line and that
# function counts plain Ball-Larus paths.  TPP(5,15) builds run the same
# and their recordings read.  Bad thresholds are one error line.
. "$(dirname "$0")/corpus-lib.sh"
COUNT_SRC=$ROOT/tests/e2e/count

paths_of() { "$WPPTRACE" paths "$1" 2>"${1%.wpp}.paths.err" | tail -n +2 >"${1%.wpp}.paths"; }

# build DIR TAG SOURCE [FLAGS...]: wppcc -O2 into DIR/TAG/prog
build() {
	local dir=$1/$2 src=$3
	shift 3
	mkdir -p "$dir"
	# shellcheck disable=SC2086
	"$WPPCC" -O2 -g -pthread -I"$CORPUS" "$@" -o "$dir/prog" "$src" ${LIBS:-} >"$dir/build.log" 2>&1 ||
		{ fail "$(basename "$1") $(basename "$dir"): build: $(head -1 "$dir/build.log")"; return 1; }
}

# rec DIR TAG TRANSPORT WANT_RC ARGS...: DIR/TAG-TRANSPORT.wpp (+ .out, .paths)
rec() {
	local dir=$1 tag=$2 t=$3 want=$4 rc
	shift 4
	(cd "$dir/$tag" && "$WPPTRACE" record -q --transport="$t" -o "$dir/$tag-$t.wpp" -- ./prog "$@" \
		>"$dir/$tag-$t.out" 2>"$dir/$tag-$t.err")
	rc=$?
	if [ $rc -ne "$want" ] || [ ! -s "$dir/$tag-$t.wpp" ]; then
		fail "$(basename "$dir") $tag: $t record exited $rc: $(head -1 "$dir/$tag-$t.err")"
		return 1
	fi
	paths_of "$dir/$tag-$t.wpp"
}

# same NAME DIR A B: A's and B's path profiles and outputs are equal
same() {
	local name=$1 dir=$2 a=$3 b=$4
	[ -s "$dir/$a.paths" ] || { fail "$name: empty path profile ($a)"; return 1; }
	if ! cmp -s "$dir/$a.paths" "$dir/$b.paths"; then
		fail "$name: $b paths differ from $a: $(diff "$dir/$a.paths" "$dir/$b.paths" | sed -n 2p)"
	elif ! cmp -s "$dir/$a.out" "$dir/$b.out"; then
		fail "$name: $b output differs from $a"
	else
		ok "$name: $b has $a's paths and counts ($(sed -n 1p "$dir/$a.paths" | cut -d, -f1))"
	fi
}

# exact_loops NAME DIR WANT_RC [ARGS...]: TPP(0,15) disconnects loops and
# makes nothing cold, so its profile is exact piece by piece: AoDF 100 %,
# nothing cold.  The edge counters of loops that call nothing count in
# registers there (tpp_accum.h); a build that counts them in memory
# (WPP_TPP_ACCUM=0) must give the same tpp-quality, function by function.
accum_differs=0
exact_loops() {
	local name=$1 dir=$2 want=$3 m q
	shift 3
	for m in tpp015 tpp015m; do
		[ $m = tpp015 ] || export WPP_TPP_ACCUM=0
		build "$dir" $m "$src" -fwpp-mode=tpp --wpp-profile="$dir/count-shm.wpp" --tpp-cold=0 \
			--tpp-loop=15 || { unset WPP_TPP_ACCUM; return 1; }
		unset WPP_TPP_ACCUM
		rec "$dir" $m shm "$want" "$@" || return 1
		"$WPPTRACE" tpp-quality "$dir/$m-shm.wpp" --against "$dir/count-shm.wpp" \
			>"$dir/q-$m.txt" 2>&1 || { fail "$name: tpp-quality of $m: $(tail -1 "$dir/q-$m.txt")"; return 1; }
	done
	q=$dir/q-tpp015.txt
	cmp -s "$dir/tpp015/prog" "$dir/tpp015m/prog" || accum_differs=$((accum_differs + 1))
	if ! grep -q "^AoDF 100.00%: over 0.00%, under 0.00%.*; 0 of [0-9]* path (piece) executions counted cold" "$q"; then
		fail "$name: TPP(0,15) is not exact: $(grep '^AoDF' "$q")"
	elif ! cmp -s <(tail -n +2 "$q") <(tail -n +2 "$dir/q-tpp015m.txt"); then
		fail "$name: TPP(0,15) with edge counters in registers differs from memory: $(diff <(tail -n +2 "$q") <(tail -n +2 "$dir/q-tpp015m.txt") | sed -n 2p)"
	else
		ok "$name: TPP(0,15) exact, registers = memory ($(grep -o '[0-9]* in loop pieces' "$q"))"
	fi
}

# one NAME SOURCE WANT_RC TRANSPORTS [ARGS...]
one() {
	local name=$1 src=$2 want=$3 transports=$4 dir=$WORK/$1 t
	shift 4
	mkdir -p "$dir"
	build "$dir" count "$src" -fwpp-mode=count || return 1
	rec "$dir" count shm "$want" "$@" || return 1
	build "$dir" tpp0 "$src" -fwpp-mode=tpp --wpp-profile="$dir/count-shm.wpp" --tpp-cold=0 \
		--tpp-loop=0 || return 1
	for t in $transports; do
		rec "$dir" tpp0 "$t" "$want" "$@" && same "$name" "$dir" count-shm "tpp0-$t"
	done
	# AoDF of the exact profile: 100 %, nothing cold; every execution of
	# the full profile paid for once, at a recording point or on an edge
	if "$WPPTRACE" tpp-quality "$dir/tpp0-shm.wpp" --against "$dir/count-shm.wpp" \
		>"$dir/q0.txt" 2>&1 && grep -q "^AoDF 100.00%: over 0.00%, under 0.00%.*; 0 of [0-9]* path (piece) executions counted cold, 0 in loop pieces" "$dir/q0.txt" &&
		[ "$(sed -n 's/^AoDF.*; 0 of \([0-9]*\) path.*/\1/p' "$dir/q0.txt")" = \
			"$(sed -n 's/^TPP increments: \([0-9]*\) at recording points, \([0-9]*\) on defining edges, 0 cold.*/\1 \2/p' "$dir/q0.txt" | awk '{ print $1 + $2 }')" ]; then
		ok "$name: tpp-quality of TPP(0,0): $(grep '^AoDF' "$dir/q0.txt" | cut -d';' -f1); $(tail -1 "$dir/q0.txt")"
	else
		fail "$name: tpp-quality of TPP(0,0): $(tail -2 "$dir/q0.txt" | tr '\n' '|')"
	fi
	exact_loops "$name" "$dir" "$want" "$@"
	build "$dir" tpp515 "$src" -fwpp-mode=tpp --wpp-profile="$dir/count-shm.wpp" || return 1
	if rec "$dir" tpp515 shm "$want" "$@"; then
		if ! cmp -s "$dir/count-shm.out" "$dir/tpp515-shm.out"; then
			fail "$name: TPP(5,15) output differs"
		elif [ -s "$dir/tpp515-shm.paths.err" ] && grep -q corrupt "$dir/tpp515-shm.paths.err"; then
			fail "$name: TPP(5,15) recording: $(head -1 "$dir/tpp515-shm.paths.err")"
		else
			ok "$name: TPP(5,15) runs alike and its recording reads"
			"$WPPTRACE" tpp-quality "$dir/tpp515-shm.wpp" --against "$dir/count-shm.wpp" \
				>"$dir/q515.txt" 2>&1 || fail "$name: tpp-quality: $(tail -1 "$dir/q515.txt")"
		fi
	fi
}

# NAME:ARGS:EXIT-STATUS:TRANSPORTS
for spec in branches:::shm switches:::shm computed_goto:::shm longjmp:::shm variadic:::shm \
	recursion:12::shm inline_asm:::shm callbacks:::shm wide_paths:::shm interp:::shm,bpf \
	threads:::shm,bpf signals:::shm; do
	IFS=: read -r name args want transports <<<"$spec"
	# shellcheck disable=SC2086
	one "$name" "$CORPUS/$name.c" "${want:-0}" "${transports//,/ }" $args
done
one count_mix "$COUNT_SRC/count_mix.c" 0 "shm bpf"
WPP_COUNT_ARRAY_MAX_PATHS=0 one interp_hash "$CORPUS/interp.c" 0 shm
# small arrays: functions with more counters count their paths in the hash
# and their cold and edge counters in the array (WPP_TPP_HOW_SPLIT), the
# paths through a path cache first: of 4096 pairs (every path claims
# one), of 2 (paths collide: the losers count in the hash), and none
# (every path probes the hash)
WPP_COUNT_ARRAY_MAX_PATHS=6 one interp_split "$CORPUS/interp.c" 0 shm
WPP_COUNT_ARRAY_MAX_PATHS=6 WPP_COUNT_CACHE_PAIRS=2 one interp_split_cache2 "$CORPUS/interp.c" 0 shm
WPP_COUNT_ARRAY_MAX_PATHS=24 one branches_split "$CORPUS/branches.c" 0 shm
WPP_COUNT_ARRAY_MAX_PATHS=24 WPP_COUNT_CACHE_PAIRS=0 one branches_split_hash "$CORPUS/branches.c" 0 shm
# C++ exceptions: landing pads, unwind edges hot and cold
LIBS=-lstdc++ one tpp_eh "$ROOT/tests/e2e/tpp/tpp_eh.cpp" 0 "shm bpf" x
# the register builds must have differed somewhere, or nothing was tested
[ "$accum_differs" -gt 0 ] && ok "edge counters in registers changed $accum_differs of the programs" ||
	fail "no program had an edge counter in a register"

# A stale profile: interp's `run` changed since the recording (the same
# source file, so the profile knows it by name).
corpus_prepare interp:
d=$WORK/interp_stale
mkdir -p "$d"
build "$d" train "$src" -fwpp-mode=count && rec "$d" train shm 0
change_interp
build "$d" count "$src" -fwpp-mode=count && rec "$d" count shm 0 &&
	build "$d" tpp0 "$src" -fwpp-mode=tpp --wpp-profile="$d/train-shm.wpp" \
		--tpp-cold=0 --tpp-loop=0 && rec "$d" tpp0 shm 0 && same interp-stale "$d" count-shm tpp0-shm
# (naming the recording given, not the edge profile cached from it)
n=$(grep -cF "warning: run changed since the profile $d/train-shm.wpp was recorded" "$d/tpp0/build.log")
[ "$n" = 1 ] && [ "$(wc -l <"$d/tpp0/build.log")" = 1 ] &&
	ok "stale profile: one warning line, its paths all counted" ||
	fail "stale profile: $(wc -l <"$d/tpp0/build.log") lines: $(head -2 "$d/tpp0/build.log")"

# Bad thresholds and a missing profile: one error line, exit 1, no output.
for bad in "--tpp-cold=abc" "--tpp-loop=101" "--tpp-cold=" "--tpp-loop=-1"; do
	rm -f "$WORK/bad.out"
	"$WPPCC" -O2 -fwpp-mode=tpp --wpp-profile="$WORK/interp/count-shm.wpp" "$bad" \
		-o "$WORK/bad.out" "$CORPUS/branches.c" 2>"$WORK/bad.err"
	rc=$?
	[ $rc -eq 1 ] && [ "$(wc -l <"$WORK/bad.err")" -eq 1 ] && [ ! -e "$WORK/bad.out" ] &&
		ok "$bad refused: $(cat "$WORK/bad.err")" ||
		fail "$bad: rc=$rc: $(head -1 "$WORK/bad.err")"
done
# A corrupt training profile: one error line, nothing built.
printf 'not a profile\n' >"$WORK/corrupt.edges"
head -c 300 "$WORK/interp/count-shm.wpp" >"$WORK/truncated.wpp"
for bad in corrupt.edges truncated.wpp; do
	rm -f "$WORK/bad.out"
	"$WPPCC" -O2 -fwpp-mode=tpp --wpp-profile="$WORK/$bad" -o "$WORK/bad.out" \
		"$CORPUS/branches.c" 2>"$WORK/bad.err"
	rc=$?
	# a truncated recording: the reader's notice of what it salvaged
	# comes first (wppcc converts recordings with wpptrace edges)
	lines=1
	[ $bad = truncated.wpp ] && lines=2
	[ $rc -eq 1 ] && [ "$(wc -l <"$WORK/bad.err")" -le $lines ] && [ ! -e "$WORK/bad.out" ] &&
		tail -1 "$WORK/bad.err" | grep -q "^wppcc: " &&
		{ [ $bad != truncated.wpp ] || tail -1 "$WORK/bad.err" | grep -q "truncated.wpp ends early"; } &&
		ok "$bad refused: $(tail -1 "$WORK/bad.err")" ||
		fail "$bad: rc=$rc, $(wc -l <"$WORK/bad.err") lines: $(head -1 "$WORK/bad.err")"
done
"$WPPCC" -O2 -fwpp-mode=tpp -o "$WORK/bad.out" "$CORPUS/branches.c" 2>"$WORK/bad.err"
rc=$?
[ $rc -eq 1 ] && [ "$(wc -l <"$WORK/bad.err")" -eq 1 ] && ok "tpp without a profile refused" ||
	fail "tpp without a profile: rc=$rc: $(head -1 "$WORK/bad.err")"
# tpp-quality refuses what it cannot compare, in one line: also a full
# profile of another program (no function in common; it was AoDF 0 %).
for args in "$WORK/interp/count-shm.wpp --against $WORK/interp/count-shm.wpp" \
	"$WORK/interp/tpp0-shm.wpp --against $WORK/interp/tpp515-shm.wpp" \
	"$WORK/interp/tpp0-shm.wpp --against $WORK/branches/count-shm.wpp" \
	"$WORK/interp/tpp0-shm.wpp"; do
	# shellcheck disable=SC2086
	"$WPPTRACE" tpp-quality $args >"$WORK/q.out" 2>"$WORK/q.err"
	rc=$?
	[ $rc -ne 0 ] && [ "$(wc -l <"$WORK/q.err")" -eq 1 ] && [ ! -s "$WORK/q.out" ] &&
		ok "tpp-quality refuses: $(cat "$WORK/q.err")" ||
		fail "tpp-quality $args: rc=$rc: $(head -2 "$WORK/q.err")"
done
# Either file cut short: the intact part is compared and the exit status
# says the file ended early (3), as every analysis says it.
f=$WORK/interp/count-shm.wpp
head -c $(($(stat -c %s "$f") - 1)) "$f" >"$WORK/short-count.wpp"
f=$WORK/interp/tpp0-shm.wpp
head -c $(($(stat -c %s "$f") - 1)) "$f" >"$WORK/short-tpp.wpp"
for args in "$WORK/short-tpp.wpp --against $WORK/interp/count-shm.wpp" \
	"$WORK/interp/tpp0-shm.wpp --against $WORK/short-count.wpp"; do
	# shellcheck disable=SC2086
	"$WPPTRACE" tpp-quality $args >"$WORK/q.out" 2>"$WORK/q.err"
	rc=$?
	[ $rc -eq 3 ] && grep -q "^AoDF " "$WORK/q.out" && ok "tpp-quality of a cut file: exit 3" ||
		fail "tpp-quality $args: rc=$rc (want 3): $(head -2 "$WORK/q.err")"
done
finish
