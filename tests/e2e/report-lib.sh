# SPDX-License-Identifier: MIT
# report-lib.sh — shared by tests/e2e/report-*.sh (sourced, bash): build
# helpers, a work directory, pass/fail bookkeeping.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WPPCC=$ROOT/bin/wppcc
WPPTRACE=$ROOT/bin/wpptrace
DATA=$ROOT/tests/e2e/report-data
WORK=$(mktemp -d /tmp/wpp-report-test.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
FAILS=0
pass() { echo "ok:   $*"; }
fail() { FAILS=$((FAILS + 1)); echo "FAIL: $*"; }
finish() { echo "$FAILS failures"; [ "$FAILS" -eq 0 ]; exit $?; }
# record OUT.wpp PROG ARGS...: shm transport explicitly (the default may change)
record() { local out=$1; shift; "$WPPTRACE" record --transport=shm -o "$out" -- "$@"; }
# Replace the work directory (a random temp dir) so outputs are comparable.
# Pids of the recorded processes (SCRUB_PIDS, set by pids_of) become PID.
SCRUB_PIDS=
scrub() {
	local args=(-e "s|$WORK|WORK|g") p
	for p in $SCRUB_PIDS; do args+=(-e "s/\\b$p\\b/PID/g"); done
	# a pid column is padded to the pid's width: make it width-free
	sed "${args[@]}" -e 's/^PID  */PID /'

}
pids_of() { SCRUB_PIDS=$("$WPPTRACE" report "$1" --by process --format json |
	python3 -c 'import json,sys; print(" ".join(str(p["pid"]) for p in json.load(sys.stdin)["processes"]))'); }
