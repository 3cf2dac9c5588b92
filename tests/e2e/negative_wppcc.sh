#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# wppcc on bad input behaves like clang: a source clang rejects fails with
# clang's status and clang's diagnostic; flags wppcc does not know are passed
# through to clang (accepted when clang accepts them, rejected as clang
# rejects them).
. "$(dirname "$0")/../oracle/lib.sh"
require_tools "$WPPCC"
w=$WORK/negative_wppcc
rm -rf "$w" && mkdir -p "$w"

# same_as_clang WHAT ARGS...: run clang-19 and wppcc with ARGS in $w;
# statuses must be equal and clang's first diagnostic must appear verbatim
# (minus the program name) in wppcc's stderr.
same_as_clang() {
	local what=$1
	shift
	check_done
	(cd "$w" && $CLANG "$@" >clang.out 2>clang.err; echo $? >clang.status)
	(cd "$w" && timeout 60 "$WPPCC" "$@" >wppcc.out 2>wppcc.err; echo $? >wppcc.status)
	local cs ws
	cs=$(cat "$w/clang.status") ws=$(cat "$w/wppcc.status")
	if [ "$cs" != "$ws" ]; then
		fail "$what: clang exits $cs, wppcc exits $ws"
		show_file_head "$w/wppcc.err"
		return
	fi
	if [ "$cs" -ne 0 ]; then
		local diag
		diag=$(grep -m1 -E 'error' "$w/clang.err" | sed -E 's/^[^ ]*clang[^:]*: //')
		if [ -z "$diag" ] || ! grep -qF -- "$diag" "$w/wppcc.err"; then
			fail "$what: clang's diagnostic [$diag] not in wppcc's stderr:"
			show_file_head "$w/wppcc.err"
			return
		fi
	fi
	pass "$what: status $cs"
}

cat >"$w/syntax.c" <<'C'
int main(void) { return 0 }
C
cat >"$w/type.c" <<'C'
struct s { int a; };
int main(void) { struct s v = {1}; return v.missing; }
C
cat >"$w/undef.c" <<'C'
int not_defined_anywhere(void);
int main(void) { return not_defined_anywhere(); }
C
cat >"$w/flags.c" <<'C'
#include <stdio.h>
#ifndef VALUE
#error VALUE not passed through
#endif
int main(void) { printf("value=%d\n", VALUE); return 0; }
C

same_as_clang "syntax error" -c syntax.c -o syntax.o
same_as_clang "type error" -c type.c -o type.o
same_as_clang "missing source file" -c does_not_exist.c -o x.o
same_as_clang "unknown flag rejected by clang" -fbogus-flag-for-wppcc-test -c flags.c -DVALUE=1 -o x.o
same_as_clang "link error (undefined symbol)" undef.c -o undef
same_as_clang "#error without the macro" -c flags.c -o x.o

# Flags wppcc has no reason to know pass through to clang and take effect.
check_done
if (cd "$w" && "$WPPCC" -DVALUE=42 -fno-strict-aliasing -Wno-unused-variable -fdiagnostics-color=never \
	-std=gnu99 -include stdio.h -Wl,--as-needed -O1 -o flags flags.c >flags.log 2>&1) &&
	[ "$("$w/flags")" = "value=42" ]; then
	pass "pass-through flags reach clang and the linker"
else
	fail "pass-through flags: build or run failed"
	show_file_head "$w/flags.log"
fi

# wppcc's own options with a value take it as OPT=VALUE or OPT VALUE; a
# missing or bad value is one line of wppcc's, not clang's (issue 27, F:
# "--tpp-cold 5" went to clang as two unknown words).
check_done
if (cd "$w" && "$WPPCC" --tpp-cold 5 --tpp-loop 20 -fwpp-mode paths -DVALUE=3 -O1 -o spaced flags.c \
	>spaced.log 2>&1) && [ "$("$w/spaced")" = "value=3" ]; then
	pass "wppcc options with a value take it as the next argument"
else
	fail "wppcc --tpp-cold 5 ...: build or run failed"
	show_file_head "$w/spaced.log"
fi
# own_error WHAT WANT ARGS...: wppcc fails with exactly one line, its own,
# containing WANT.
own_error() {
	local what=$1 want=$2
	shift 2
	check_done
	(cd "$w" && "$WPPCC" "$@" >own.out 2>own.err)
	local rc=$? lines
	lines=$(wc -l <"$w/own.err")
	if [ $rc -ne 0 ] && [ "$lines" = 1 ] && grep -q "^wppcc: .*$want" "$w/own.err"; then
		pass "$what: $(cat "$w/own.err")"
	else
		fail "$what: rc $rc, $lines lines:"
		show_file_head "$w/own.err"
	fi
}
own_error "--tpp-cold 200" "--tpp-cold and --tpp-loop take a percentage" --tpp-cold 200 -c flags.c -DVALUE=1 -o x.o
own_error "--wpp-interesting last, no value" "--wpp-interesting needs files" -c flags.c -DVALUE=1 -o x.o --wpp-interesting
own_error "-fwpp-mode bogus" "-fwpp-mode takes 'paths'" -fwpp-mode bogus -c flags.c -DVALUE=1 -o x.o

# Compile-only and preprocess-only modes keep clang's meaning.
check_done
if (cd "$w" && "$WPPCC" -DVALUE=7 -E flags.c -o flags.i 2>/dev/null) && grep -q 'printf("value=%d\\n", 7)' "$w/flags.i"; then
	pass "-E preprocesses"
else
	fail "-E did not produce preprocessed output"
fi
check_done
if (cd "$w" && "$WPPCC" -DVALUE=7 -S flags.c -o flags.s 2>/dev/null) && grep -q 'main:' "$w/flags.s"; then
	pass "-S emits assembly"
else
	fail "-S did not produce assembly"
fi
finish
