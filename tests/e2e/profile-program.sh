#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A training profile of another program (issue 27, D): wppcc --wpp-profile
# given program A's recording while building program B matched none of
# B's functions and said nothing.  Now the unit defining main says, in one
# warning line, that the profile's (or recorded interesting set's) main
# comes from another file
# (instrument/profile_program.h).  Not said: A rebuilt with its own
# profile (from another directory, the path spelt differently); a unit of
# A without main that the training run never entered; a unit of B without
# main.  The rule works per unit; this checks it on both sides of it.
. "$(dirname "$0")/corpus-lib.sh"

mkdir -p "$WORK/a" "$WORK/b"
cat >"$WORK/a/alpha.c" <<'C'
int helper(int x);
int unused(int x);
int main(int argc, char **argv)
{
	(void)argv;
	int s = 0;
	for (int i = 0; i < 1000; i++)
		s += helper(i + argc);
	return s == 42 ? unused(s) : 0;
}
C
cat >"$WORK/a/helper.c" <<'C'
int helper(int x) { return x % 3 ? x * 2 : x - 1; }
C
cat >"$WORK/a/cold.c" <<'C'
int unused(int x) { return x > 10 ? x / 2 : x + 7; }
C
cat >"$WORK/b/beta.c" <<'C'
int work(int n);
int main(int argc, char **argv) { (void)argv; return work(argc) > 99; }
C
cat >"$WORK/b/work.c" <<'C'
int work(int n) { int s = 0; for (int i = 0; i < n * 50; i++) s += i & 1 ? i : -i; return s; }
C

# wppcc_quiet WHAT ARGS...: builds and says nothing on stderr.
wppcc_quiet() {
	local what=$1
	shift
	if "$WPPCC" "$@" 2>"$WORK/quiet.err" && [ ! -s "$WORK/quiet.err" ]; then
		ok "$what: no warning"
	else
		fail "$what: $(cat "$WORK/quiet.err")"
	fi
}

(cd "$WORK/a" && "$WPPCC" -O1 -o alpha alpha.c helper.c cold.c) || fail "cannot build alpha"
"$WPPTRACE" record -q --transport=shm -o "$WORK/alpha.wpp" -- "$WORK/a/alpha" ||
	fail "cannot record alpha"

# B with A's profile: one line, naming both files.
"$WPPCC" -O1 --wpp-profile="$WORK/alpha.wpp" -o "$WORK/b/beta" "$WORK/b/beta.c" "$WORK/b/work.c" \
	2>"$WORK/beta.err"
rc=$?
if [ $rc = 0 ] && [ "$(wc -l <"$WORK/beta.err")" = 1 ] &&
	grep -q "^wppcc: warning: the profile $WORK/alpha.wpp was recorded from another program: its main is in alpha.c, this program's in $WORK/b/beta.c" "$WORK/beta.err"; then
	ok "another program's profile: $(cat "$WORK/beta.err")"
else
	fail "another program's profile: rc $rc: $(cat "$WORK/beta.err")"
fi
# The same for an interesting set recorded from A.
"$WPPCC" -O1 --wpp-interesting="$WORK/alpha.wpp" -o "$WORK/b/beta-i" "$WORK/b/beta.c" \
	"$WORK/b/work.c" 2>"$WORK/beta-i.err"
rc=$?
if [ $rc = 0 ] && [ "$(wc -l <"$WORK/beta-i.err")" = 1 ] &&
	grep -q "^wppcc: warning: the interesting paths of $WORK/alpha.wpp were recorded from another program: its main is in alpha.c, this program's in $WORK/b/beta.c" "$WORK/beta-i.err"; then
	ok "another program's interesting set: $(cat "$WORK/beta-i.err")"
else
	fail "another program's interesting set: rc $rc: $(cat "$WORK/beta-i.err")"
fi
wppcc_quiet "A rebuilt with its own interesting set" -O1 --wpp-interesting="$WORK/alpha.wpp" \
	-o "$WORK/alpha3" "$WORK/a/alpha.c" "$WORK/a/helper.c" "$WORK/a/cold.c"
# ... file by file: only the unit with main says it.
wppcc_quiet "B's unit without main, with A's profile" -O1 --wpp-profile="$WORK/alpha.wpp" \
	-c -o "$WORK/b/work.o" "$WORK/b/work.c"

# A with its own profile, from elsewhere and the paths spelt otherwise.
wppcc_quiet "A rebuilt with its own profile (absolute paths)" -O1 \
	--wpp-profile="$WORK/alpha.wpp" -o "$WORK/alpha2" "$WORK/a/alpha.c" "$WORK/a/helper.c" \
	"$WORK/a/cold.c"
wppcc_quiet "A's unit the training run never entered" -O1 --wpp-profile="$WORK/alpha.wpp" \
	-c -o "$WORK/cold.o" "$WORK/a/cold.c"
finish
