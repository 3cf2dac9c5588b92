# SPDX-License-Identifier: MIT
# harden-lib.sh — shared by tests/e2e/harden-*.sh (sourced, bash): the
# runtime and the shm transport against a hostile local user (issue 24,
# docs/security.md).  Real programs built with bin/wppcc from
# tests/e2e/harden/; the scripts need root (setuid copies, another user,
# BPF) and say SKIP without it.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WPPCC=$ROOT/bin/wppcc
WPPTRACE=$ROOT/bin/wpptrace
SRC=$ROOT/tests/e2e/harden
WORK=$ROOT/tests/work/harden/$(basename "$0" .sh)
. "$ROOT/tests/e2e/root-checks-lib.sh"
require_root_and_tools "setuid programs, another user, BPF"

# build NAME SOURCE [FLAGS...]: wppcc -O2 into $WORK/NAME.
build() {
	local name=$1 src=$2
	shift 2
	"$WPPCC" -O2 -g -I"$ROOT" -o "$WORK/$name" "$src" "$@" \
		>"$WORK/$name.buildlog" 2>&1 ||
		{ fail "cannot build $name"; sed 's/^/    /' "$WORK/$name.buildlog" | head -20; return 1; }
}

# run_capture OUT CMD...: stdout, stderr and the exit status of CMD in
# OUT.out, OUT.err, OUT.rc (a timeout of 60 s: a hang fails, status 124).
run_capture() {
	local out=$1
	shift
	timeout -k 5 60 "$@" >"$out.out" 2>"$out.err"
	echo $? >"$out.rc"
}

# same_run A B: A and B printed the same and ended the same.
same_run() {
	cmp -s "$1.out" "$2.out" && cmp -s "$1.err" "$2.err" && cmp -s "$1.rc" "$2.rc"
}

# show_run A: what a run did, for a failure message.
show_run() {
	echo "    rc $(cat "$1.rc"); out: $(head -c 300 "$1.out" | tr '\n' '|'); err: $(head -c 300 "$1.err" | tr '\n' '|')"
}

# now_ms: a monotonic-enough clock for elapsed times.
now_ms() { date +%s%3N; }

# build_forge: the region forger (tests/e2e/harden/forge.c), a plain build
# with the real layout code.
build_forge() {
	clang-19 -O2 -D_GNU_SOURCE -iquote "$ROOT" -I"$ROOT/user/include" -o "$WORK/forge" \
		"$SRC/forge.c" "$ROOT/kmod-free/shm_layout.c" >"$WORK/forge.buildlog" 2>&1 ||
		{ fail "cannot build forge"; head -20 "$WORK/forge.buildlog"; return 1; }
}
