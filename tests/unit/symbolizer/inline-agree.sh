#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# inline-agree — the metadata's inlined_from (wppcc, from the IR's debug
# locations) names the same innermost inlined function as DWARF's inlined
# instances (libdw, what reports use) for every position both know, on
# programs with inlined calls: the report test's inline program (header and
# same-file inlining, nested), built with -g and with the line tables wppcc
# adds by itself, and corpus programs whose static inline helpers inline.
set -u
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
WORK=$ROOT/tests/work/symbolizer
CHECK=$ROOT/build/tests/unit/symbolizer/inline_agree
mkdir -p "$WORK"
failures=0
check() { # NAME WPPCC-ARGS...
	local name=$1
	shift
	if ! "$ROOT/bin/wppcc" "$@" -o "$WORK/$name" >"$WORK/$name.buildlog" 2>&1; then
		echo "FAIL: cannot build $name"
		sed 's/^/    /' "$WORK/$name.buildlog" | head -n 10
		failures=$((failures + 1))
	elif out=$("$CHECK" "$WORK/$name"); then
		echo "ok:   $(tail -n 1 <<<"$out")"
	else
		echo "FAIL: $name"
		head -n 20 <<<"$out" | sed 's/^/    /'
		failures=$((failures + 1))
	fi
}
DATA=$ROOT/tests/e2e/report-data
check inline-g -O2 -g "$DATA/inline.c"
check inline-lines -O2 "$DATA/inline.c"
for p in branches recursion interp; do
	check "corpus-$p" -O2 -g -I"$ROOT/tests/corpus" "$ROOT/tests/corpus/$p.c"
done
echo "$failures failures"
[ "$failures" -eq 0 ]
