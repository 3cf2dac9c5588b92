#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# harden-setuid — a setuid-root instrumented program run by another user
# (AT_SECURE) reads no WPP_* variable: with WPP_SHM pointing at a forged
# region, at a root-only file, at a missing file or at a real root
# collector, with a bad WPP_BUFFER_WORDS or WPP_DISABLE, it prints and
# exits exactly as without them, touches no file and joins no recording
# (docs/security.md).
. "$(dirname "$0")/harden-lib.sh"

build work "$SRC/work.c" -fwpp-no-runs || finish
build_forge || finish
# A directory the other user can reach, holding the setuid copy.
DIR=$(mktemp -d /tmp/wpp-setuid.XXXXXX)
trap 'rm -rf "$DIR"' EXIT
chmod 0755 "$DIR"
install -o root -g root -m 4755 "$WORK/work" "$DIR/work"
AS_NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
cd "$DIR" || finish

run_capture "$WORK/ref" env -u WPP_SHM -u WPP_BUFFER_WORDS -u WPP_DISABLE \
	"${AS_NOBODY[@]}" "$DIR/work" 300
if grep -q "^secure 1, euid != ruid" "$WORK/ref.out" && [ "$(cat "$WORK/ref.rc")" = 7 ]; then
	pass "the setuid copy runs as nobody with AT_SECURE"
else
	fail "the setuid copy did not run setuid (nosuid mount?)"
	show_run "$WORK/ref"
	finish
fi

"$WORK/forge" file "$DIR/forged" first_slot || fail "forge"
chmod 0666 "$DIR/forged"
printf 'root only\n' >"$DIR/secret"
chmod 0600 "$DIR/secret"
cp -p "$DIR/secret" "$WORK/secret.orig"

# case NAME VAR=VALUE...: the run with these variables must be the reference.
case_env() {
	local name=$1
	shift
	run_capture "$WORK/$name" env "$@" "${AS_NOBODY[@]}" "$DIR/work" 300
	if same_run "$WORK/ref" "$WORK/$name"; then
		pass "$name: same output and status as without the variables"
	else
		fail "$name: the run differs from the one without the variables"
		show_run "$WORK/$name"
	fi
}
case_env forged-region WPP_SHM="$DIR/forged" WPP_BUFFER_WORDS=64
case_env root-only-file WPP_SHM="$DIR/secret"
case_env missing-file WPP_SHM="$DIR/missing"
case_env bad-buffer-words WPP_BUFFER_WORDS=12345678901
case_env disable WPP_DISABLE=1 WPP_SHM="$DIR/secret"
cmp -s "$DIR/secret" "$WORK/secret.orig" && pass "the root-only file is untouched" ||
	fail "the root-only file changed"

# A real root collector: its region must not take the setuid program in.
"$WPPTRACE" record --transport=shm -q -o "$WORK/join.wpp" -- \
	"${AS_NOBODY[@]}" "$DIR/work" 300 >"$WORK/join.out" 2>"$WORK/join.err"
echo $? >"$WORK/join.rc"
procs=$("$WPPTRACE" info "$WORK/join.wpp" 2>/dev/null | awk '$1 == "processes" { print $2 }')
if [ "$procs" = 0 ] && cmp -s "$WORK/ref.out" "$WORK/join.out" && cmp -s "$WORK/ref.rc" "$WORK/join.rc"; then
	pass "a root shm collector's region is not joined (0 processes recorded)"
else
	fail "the setuid program joined root's recording: processes '$procs'"
	show_run "$WORK/join"
fi
finish
