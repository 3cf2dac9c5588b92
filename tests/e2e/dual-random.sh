#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# dual-random — random CFGs (tests/e2e/dual/gen.py: nested loops, switches,
# gotos both ways, early returns, calls, bounded recursion, computed-goto
# loops) through dual builds (wppcc -fwpp-dual), at -O2 and -O0:
#  * with the flags set from the start (shm), the dual build's recording
#    decodes to the paths build's block sequences, every path id
#    regenerated from the metadata by the independent reader (wppmeta.py):
#    the cloning leaves the numbering alone;
#  * run directly (plain copies only) it prints plain clang's checksum;
#  * recorded while the program itself flips its flags off and on inside
#    its loops (frames leave the instrumented copies and re-enter them at
#    path starts), it still prints plain clang's checksum (the SSA repair
#    of both copies) and every recorded path is one the metadata allows.
# DUAL_SEEDS (default 1..6) picks the programs.
. "$(dirname "$0")/corpus-lib.sh"
CLANG=${WPP_CLANG:-clang-19}
CMP="python3 $ROOT/tests/oracle/wppcmp.py"
checks=0

run() { # OUT CMD...: stdout to OUT, status checked
	local out=$1
	shift
	timeout -k 5 60 "$@" >"$out" 2>"$out.err" || { echo "status $? of $*: $(head -3 "$out.err")"; return 1; }
}

for seed in ${DUAL_SEEDS:-$(seq 1 6)}; do
	opt=O2
	[ $((seed % 3)) -eq 0 ] && opt=O0
	w=$WORK/r$seed
	python3 "$ROOT/tests/e2e/dual/gen.py" "$seed" >"$w.c" || { fail "seed $seed: gen.py"; continue; }
	flags=(-"$opt" -g -w -I"$ROOT/user")
	"$CLANG" "${flags[@]}" -o "$w.plain" "$w.c" &&
		"$WPPCC" "${flags[@]}" -o "$w.paths" "$w.c" &&
		"$WPPCC" "${flags[@]}" -fwpp-dual -o "$w.dual" "$w.c" 2>"$w.build.err" ||
		{ fail "seed $seed: build failed"; continue; }
	if [ -s "$w.build.err" ]; then
		fail "seed $seed: wppcc said: $(head -3 "$w.build.err")"
		continue
	fi
	checks=$((checks + 1))
	what="seed $seed -$opt"
	run "$w.want" "$w.plain" 6 && run "$w.direct" "$w.dual" 6 &&
		run "$w.tog" "$WPPTRACE" record -q --transport=shm -o "$w.tog.wpp" -- "$w.dual" 6 toggle &&
		run "$w.on" "$WPPTRACE" record -q --transport=shm -o "$w.on.wpp" -- "$w.dual" 6 &&
		run "$w.ref" "$WPPTRACE" record -q --transport=shm -o "$w.ref.wpp" -- "$w.paths" 6 ||
		{ fail "$what: a run failed"; continue; }
	for v in direct tog on ref; do
		cmp -s "$w.want" "$w.$v" || fail "$what: $v printed $(cat "$w.$v"), plain $(cat "$w.want")"
	done
	for v in tog on ref; do
		"$WPPTRACE" script "$w.$v.wpp" --format jsonl >"$w.$v.jsonl" 2>"$w.$v.script.err" ||
			{ fail "$what: decoding $v: $(head -3 "$w.$v.script.err")"; continue 2; }
	done
	if out=$($CMP blocks "$w.ref.jsonl" "$w.on.jsonl" --meta "$w.dual" 2>&1); then
		ok "$what: flags set from the start: $out"
	else
		fail "$what: the dual recording differs from the paths build's"
		echo "$out" | head -n 12 | sed 's/^/    /'
	fi
	# flipping must have changed what was recorded
	n_tog=$(wc -l <"$w.tog.jsonl") n_on=$(wc -l <"$w.on.jsonl")
	if out=$($CMP blocks "$w.tog.jsonl" "$w.tog.jsonl" --meta "$w.dual" 2>&1) &&
		! $CMP blocks "$w.on.jsonl" "$w.tog.jsonl" >/dev/null 2>&1; then
		ok "$what: flags flipped while running: $n_tog paths (all $n_on without flips), all valid, checksum $(cat "$w.want")"
	else
		fail "$what: flipping the flags: $n_tog paths ($n_on without), invalid or unchanged; $(echo "$out" | head -3)"
	fi
done
echo "dual-random: $checks programs"
finish
