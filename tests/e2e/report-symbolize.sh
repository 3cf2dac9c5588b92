#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Symbolization of a PIE executable and a shared library at random load
# addresses: the program prints run-time addresses inside inlined code with
# the expected function/line of each frame (__LINE__); two recordings must
# load the objects at different addresses (ASLR), and both must symbolize
# through the load biases their traces recorded (symbolize_check).
. "$(dirname "$0")/report-lib.sh"
CHECK=$ROOT/build/tests/unit/report/symbolize_check
[ -x "$CHECK" ] || { fail "$CHECK not built"; finish; }
[ "$(cat /proc/sys/kernel/randomize_va_space)" != 0 ] || echo "note: ASLR is off on this machine"
( cd "$WORK" && "$WPPCC" -O2 -g -fPIC -shared "$DATA/aslr_lib.c" -o libaslr.so &&
	"$WPPCC" -O2 -g -fPIE -pie "$DATA/aslr_main.c" -L. -laslr -Wl,-rpath,"$WORK" -o aslr ) ||
	{ fail build; finish; }
for i in 1 2; do
	record "$WORK/r$i.wpp" "$WORK/aslr" >"$WORK/r$i.out" 2>/dev/null || fail "record $i"
	if "$CHECK" "$WORK/r$i.wpp" "$WORK/r$i.out" >"$WORK/c$i.txt"; then pass "run $i: $(tr '\n' ';' <"$WORK/c$i.txt")"
	else fail "run $i"; cat "$WORK/c$i.txt"; fi
done
b1=$(grep -o 'bias 0x[0-9a-f]*' "$WORK/c1.txt" | tr '\n' ' ')
b2=$(grep -o 'bias 0x[0-9a-f]*' "$WORK/c2.txt" | tr '\n' ' ')
if [ "$(cat /proc/sys/kernel/randomize_va_space)" != 0 ]; then
	[ "$b1" != "$b2" ] && pass "load biases differ between runs ($b1/ $b2)" || fail "same biases: $b1"
fi
# Inline context by position (what reports name inlined code with), run
# under ASan/UBSan: the lines the program names as inlined (ADDR lines:
# inner function and line) must carry "inner, inlined into outer", and the
# outer function's call line (which may have no instruction of its own at
# -O2) must never be taken for the inlined function.
while read -r _ kind _ inner iline outer oline; do
	obj=$WORK/aslr; [ "$kind" = lib ] && obj=$WORK/libaslr.so
	"$CHECK" --inlines "$obj" "$outer" >"$WORK/inl-$kind.txt" 2>"$WORK/inl-$kind.err" ||
		{ fail "--inlines $kind: $(cat "$WORK/inl-$kind.err")"; continue; }
	if grep -q ":$iline:[0-9]*	$inner, inlined into $outer\$" "$WORK/inl-$kind.txt" &&
		! grep ":$iline:" "$WORK/inl-$kind.txt" | grep -vq "	$inner, inlined into $outer\$" &&
		! grep -q ":$oline:[0-9]*	$inner" "$WORK/inl-$kind.txt"; then
		pass "$kind: line $iline is $inner inlined into $outer, line $oline is not"
	else
		fail "$kind: inline positions"; grep -E ":($iline|$oline):" "$WORK/inl-$kind.txt"
	fi
done < <(grep '^ADDR' "$WORK/r1.out")
# The object is gone: a clear message naming the build-id.
rm "$WORK/libaslr.so"
"$WPPTRACE" report "$WORK/r1.wpp" >"$WORK/gone.out" 2>"$WORK/gone.err"
if grep -q 'libaslr.so (build-id [0-9a-f]\{8,\})' "$WORK/gone.err" && grep -q 'main' "$WORK/gone.out"; then
	pass "deleted library named with its build-id; the rest still reported"
else
	fail "deleted library: $(cat "$WORK/gone.err")"
fi
finish
