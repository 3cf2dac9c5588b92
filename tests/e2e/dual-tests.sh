#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# dual-tests — where a dual build's plain copy tests the flag
# (docs/instrumentation.md, "Dual builds"), on tests/e2e/dual/loops.c at
# -O2, read from the assembly (`cmpb $0, .L__wpp_on(%rip)`):
#  * a loop that ends by itself and calls nothing (counted; a search with a
#    non-constant condition) has no test: its function tests only at its
#    entry, and that test tail-calls the instrumented copy, a function of
#    its own (NAME.wpp);
#  * a loop that reads a volatile, has a constant condition and no bound,
#    or calls, keeps its test;
#  * WPP_DUAL_ALL_LOOPS=1 puts the tests back into the first kind and
#    WPP_DUAL_ONE_FUNCTION=1 keeps the copies in one function (the A/B
#    builds of docs/benchmarks.md; also: the checks above can fail);
#  * the dual build prints what plain clang's does, and recorded with the
#    flags set from the start (shm) decodes to the paths build's blocks;
#  * a paths build with a training profile (--wpp-profile) is dual unless
#    -fno-wpp-dual says otherwise; a counting build with one is not.
. "$(dirname "$0")/corpus-lib.sh"
CLANG=${WPP_CLANG:-clang-19}
CMP="python3 $ROOT/tests/oracle/wppcmp.py"
SRC=$ROOT/tests/e2e/dual/loops.c

# tests ASM: "FUNCTION TESTS TAILCALLS" per function, TAILCALLS counting
# the tail calls of FUNCTION.wpp
tests() {
	awk '/^[A-Za-z_][A-Za-z0-9_.]*:/ { f = $1; sub(":", "", f); c[f] += 0 }
		/cmpb\t\$0, \.L__wpp_on\(%rip\)/ { c[f]++ }
		/TAILCALL/ && $2 == f ".wpp" { t[f]++ }
		END { for (k in c) print k, c[k], t[k] + 0 }' "$1"
}

# check ASM WHAT FUNCTION TESTS-WANTED(=N or >=N) TAILCALLS-WANTED
check() {
	local got n t
	got=$(tests "$1" | awk -v f="$3" '$1 == f { print $2, $3 }')
	read -r n t <<<"$got"
	case $4 in
	">="*) [ "${n:-0}" -ge "${4#>=}" ] ;;
	*) [ "${n:--1}" -eq "$4" ] ;;
	esac && [ "${t:--1}" -eq "$5" ] &&
		{ ok "$2: $3: $n tests, $t tail calls"; return 0; }
	fail "$2: $3: ${n:-no} tests (want $4), ${t:-no} tail calls of $3.wpp (want $5)"
}

asm() { # OUT [ENV=VALUE...]
	local out=$1
	shift
	env "$@" "$WPPCC" -fwpp-dual -O2 -S -o "$out" "$SRC" 2>"$out.err" ||
		{ fail "wppcc -S $*: $(head -3 "$out.err")"; return 1; }
}

if asm "$WORK/default.s"; then
	for f in ends_counted ends_search; do check "$WORK/default.s" default $f 1 1; done
	for f in tested_volatile tested_forever tested_calls; do check "$WORK/default.s" default $f ">=2" 0; done
fi
if asm "$WORK/all.s" WPP_DUAL_ALL_LOOPS=1; then
	for f in ends_counted ends_search; do check "$WORK/all.s" WPP_DUAL_ALL_LOOPS=1 $f ">=2" 0; done
fi
if asm "$WORK/one.s" WPP_DUAL_ONE_FUNCTION=1; then
	for f in ends_counted ends_search; do check "$WORK/one.s" WPP_DUAL_ONE_FUNCTION=1 $f 1 0; done
fi

run() { # OUT CMD...: stdout to OUT, status checked
	local out=$1
	shift
	timeout -k 5 60 "$@" >"$out" 2>"$out.err" || { fail "status $? of $*: $(head -3 "$out.err")"; return 1; }
}
w=$WORK/loops
if "$CLANG" -O2 -w -o "$w.plain" "$SRC" && "$WPPCC" -fwpp-dual -O2 -g -o "$w.dual" "$SRC" &&
	"$WPPCC" -O2 -g -o "$w.paths" "$SRC"; then
	run "$w.want" "$w.plain" 1000 && run "$w.direct" "$w.dual" 1000 &&
		run "$w.on" "$WPPTRACE" record -q --transport=shm -o "$w.on.wpp" -- "$w.dual" 1000 &&
		run "$w.ref" "$WPPTRACE" record -q --transport=shm -o "$w.ref.wpp" -- "$w.paths" 1000 &&
		for v in direct on ref; do
			cmp -s "$w.want" "$w.$v" && ok "$v run prints plain's output" ||
				fail "$v run printed $(head -c 200 "$w.$v"), plain $(cat "$w.want")"
		done &&
		"$WPPTRACE" script "$w.on.wpp" --format jsonl >"$w.on.jsonl" &&
		"$WPPTRACE" script "$w.ref.wpp" --format jsonl >"$w.ref.jsonl" &&
		if out=$($CMP blocks "$w.ref.jsonl" "$w.on.jsonl" --meta "$w.dual" 2>&1); then
			ok "recorded from the start: $out"
		else
			fail "the dual recording differs from the paths build's: $(echo "$out" | head -5)"
		fi
else
	fail "building loops.c"
fi

# Which command lines build dual: the flag tests in the whole assembly.
flag_tests() { tests "$1" | awk '{ n += $2 } END { print n + 0 }'; }
if [ -f "$w.ref.wpp" ] && "$WPPTRACE" edges -q "$w.ref.wpp" -o "$WORK/loops.edges"; then
	for b in "guided:>0:" "traced:0:-fno-wpp-dual" "count:0:-fwpp-mode=count"; do
		IFS=: read -r name want opt <<<"$b"
		# shellcheck disable=SC2086 # opt is one option or none
		if "$WPPCC" -O2 $opt --wpp-profile="$WORK/loops.edges" -S -o "$WORK/$name.s" "$SRC" \
			2>"$WORK/$name.err"; then
			n=$(flag_tests "$WORK/$name.s")
			if { [ "$want" = 0 ] && [ "$n" -eq 0 ]; } || { [ "$want" = ">0" ] && [ "$n" -gt 0 ]; }; then
				ok "--wpp-profile ${opt:-alone}: $n flag tests"
			else
				fail "--wpp-profile ${opt:-alone}: $n flag tests (want $want)"
			fi
		else
			fail "wppcc --wpp-profile $opt: $(head -3 "$WORK/$name.err")"
		fi
	done
else
	fail "an edge profile of the paths build's recording"
fi
finish
