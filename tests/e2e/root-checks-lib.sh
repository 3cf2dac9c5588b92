# SPDX-License-Identifier: MIT
# root-checks-lib.sh — sourced (bash) by the libraries of e2e scripts that
# need root and the built tools (bpf-lib.sh, counters-lib.sh): pass/fail
# counting, the closing verdict, and the prologue.  The caller sets WPPCC,
# WPPTRACE and WORK first.
FAILURES=0
CHECKS=0

fail() { FAILURES=$((FAILURES + 1)); echo "FAIL: $*"; }
pass() { CHECKS=$((CHECKS + 1)); echo "ok:   $*"; }
finish() {
	echo "$CHECKS checks, $FAILURES failures"
	[ "$CHECKS" -gt 0 ] && [ "$FAILURES" -eq 0 ]
	exit $?
}

# require_root_and_tools WHAT: without root, say SKIP (WHAT needs it) and
# pass; without the tools, fail; then start from an empty $WORK.
require_root_and_tools() {
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: $(basename "$0") needs root ($1)"
		exit 0
	fi
	for t in "$WPPCC" "$WPPTRACE"; do
		[ -x "$t" ] || { echo "FAIL: $t not built (run make)"; exit 1; }
	done
	rm -rf "$WORK"
	mkdir -p "$WORK"
}
