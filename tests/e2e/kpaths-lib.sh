# SPDX-License-Identifier: MIT
# kpaths-lib.sh — sourced by the kpaths e2e tests: build corpus programs with
# bin/wppcc and record them with --transport=shm into tests/work/kpaths/.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WPPCC=${WPPCC:-$ROOT/bin/wppcc}
WPPTRACE=${WPPTRACE:-$ROOT/bin/wpptrace}
WORK=$ROOT/tests/work/kpaths
FAILURES=0
CHECKS=0
mkdir -p "$WORK"

fail() {
	FAILURES=$((FAILURES + 1))
	echo "FAIL: $*"
}
ok() {
	CHECKS=$((CHECKS + 1))
	echo "ok:   $*"
}
finish() {
	echo "$CHECKS checks, $FAILURES failures"
	[ "$CHECKS" -gt 0 ] && [ "$FAILURES" -eq 0 ]
	exit $?
}

# record NAME [ARGS...]: build tests/corpus/NAME.c at -O1 and record a run
# into $WORK/NAME.wpp (the program's output is discarded).
record() {
	local name=$1
	shift
	for t in "$WPPCC" "$WPPTRACE"; do
		[ -x "$t" ] || { echo "FAIL: $t missing (run make)"; exit 1; }
	done
	"$WPPCC" -O1 -pthread -o "$WORK/$name" "$ROOT/tests/corpus/$name.c" ||
		{ fail "$name: wppcc failed"; return 1; }
	"$WPPTRACE" -q record --transport=shm -o "$WORK/$name.wpp" -- "$WORK/$name" "$@" \
		>/dev/null 2>"$WORK/$name.record.err" </dev/null ||
		{ fail "$name: record failed: $(head -3 "$WORK/$name.record.err")"; return 1; }
}

# record_corpus NAME: record NAME with the arguments every kpaths test runs it
# with (recursion 12: deep enough to repeat, small enough to stay fast).
record_corpus() {
	local name=$1 args=()
	[ "$name" = recursion ] && args=(12)
	record "$name" "${args[@]}"
}
