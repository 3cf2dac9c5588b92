# SPDX-License-Identifier: MIT
# counters-lib.sh — shared by tests/e2e/counters-*.sh (sourced, bash):
# counters recorded with real perf events and BPF (root; software events
# only, this VM has no PMU).  Without root every script says SKIP and passes.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WPPCC=$ROOT/bin/wppcc
WPPTRACE=$ROOT/bin/wpptrace
PROGS=$ROOT/tests/unit/counters/progs
WORK=$ROOT/tests/work/counters/$(basename "$0" .sh)
FAILURES=0
CHECKS=0

fail() { FAILURES=$((FAILURES + 1)); echo "FAIL: $*"; }
pass() { CHECKS=$((CHECKS + 1)); echo "ok:   $*"; }
check() { if eval "$2"; then pass "$1"; else fail "$1"; fi; }
finish() {
	echo "$CHECKS checks, $FAILURES failures"
	[ "$CHECKS" -gt 0 ] && [ "$FAILURES" -eq 0 ]
	exit $?
}

if [ "$(id -u)" != 0 ]; then
	echo "SKIP: $(basename "$0") needs root (perf events, BPF)"
	exit 0
fi
for t in "$WPPCC" "$WPPTRACE"; do
	[ -x "$t" ] || { echo "FAIL: $t not built (run make)"; exit 1; }
done
rm -rf "$WORK"
mkdir -p "$WORK"

# build NAME SOURCE: wppcc -O1 -g into $WORK/NAME.
build() {
	"$WPPCC" -O1 -g -o "$WORK/$1" "$2" >"$WORK/$1.buildlog" 2>&1 ||
		{ fail "cannot build $1"; sed 's/^/    /' "$WORK/$1.buildlog" | head -20; finish; }
}

# fn_cost FILE.json FUNCTION: the function row's cost in a --by function JSON report.
fn_cost() {
	python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(sum(f["cost"] for f in r["functions"] if f["function"] == sys.argv[2]))
PY
}
