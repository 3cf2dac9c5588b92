#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# wppcc as CC: a plain Makefile project (separate -c compiles, a link step,
# a -shared -fPIC library) builds with CC=bin/wppcc, behaves like the
# clang-19 build, and its recorded trace names functions of every TU.
. "$(dirname "$0")/../oracle/lib.sh"
require_tools "$WPPCC" "$WPPTRACE"
src=$ROOT/tests/e2e/cc_project
w=$WORK/cc_project
rm -rf "$w" && mkdir -p "$w/plain" "$w/wppcc"

for cc in plain wppcc; do
	check_done
	compiler=$CLANG
	[ $cc = wppcc ] && compiler=$WPPCC
	if make -s -C "$w/$cc" -f "$src/Makefile" SRC="$src" CC="$compiler" >"$w/$cc.log" 2>&1; then
		pass "make CC=$compiler"
	else
		fail "make CC=$compiler failed:"
		show_file_head "$w/$cc.log" 20
		finish
	fi
done

check_done
(cd "$w/plain" && ./calc >../plain.stdout; echo $? >../plain.status)
(cd "$w/wppcc" && ./calc >../wppcc.stdout; echo $? >../wppcc.status)
(cd "$w/wppcc" && timeout -k 5 "$RUN_TIMEOUT" "$WPPTRACE" record --transport=shm -o ../rec.wpp -- ./calc \
	>../rec.stdout 2>../rec.stderr; echo $? >../rec.status)
if cmp -s "$w/plain.stdout" "$w/wppcc.stdout" && cmp -s "$w/plain.status" "$w/wppcc.status" &&
	cmp -s "$w/plain.stdout" "$w/rec.stdout" && cmp -s "$w/plain.status" "$w/rec.status"; then
	pass "same output and status ($(cat "$w/plain.status")) plain / wppcc / recorded"
else
	fail "output differs: status plain $(cat "$w/plain.status") wppcc $(cat "$w/wppcc.status") recorded $(cat "$w/rec.status")"
	diff "$w/plain.stdout" "$w/rec.stdout" | head | sed 's/^/    /'
	show_file_head "$w/rec.stderr"
fi

check_done
# Every object and the library carry metadata.
missing=
for o in main.o stack.o libfmt.so calc; do
	readelf -S "$w/wppcc/$o" 2>/dev/null | grep -q ' wpp_meta ' || missing="$missing $o"
done
[ -z "$missing" ] && pass "wpp_meta section in every object" || fail "no wpp_meta section in:$missing"

check_done
if "$WPPTRACE" script "$w/rec.wpp" --format jsonl >"$w/rec.jsonl" 2>"$w/script.stderr"; then
	absent=
	for fn in main stack_push stack_pop fmt_result; do
		grep -q "\"$fn\"" "$w/rec.jsonl" || absent="$absent $fn"
	done
	[ -z "$absent" ] && pass "trace covers main.o, stack.o and libfmt.so" ||
		fail "functions absent from the decoded trace:$absent"
else
	fail "wpptrace script failed on the project's trace"
	show_file_head "$w/script.stderr"
fi
finish
