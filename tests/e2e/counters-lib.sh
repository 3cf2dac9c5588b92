# SPDX-License-Identifier: MIT
# counters-lib.sh — shared by tests/e2e/counters-*.sh (sourced, bash):
# counters recorded with real perf events and BPF (root; software events
# only, this VM has no PMU).  Without root every script says SKIP and passes.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WPPCC=$ROOT/bin/wppcc
WPPTRACE=$ROOT/bin/wpptrace
PROGS=$ROOT/tests/unit/costs/progs
WORK=$ROOT/tests/work/counters/$(basename "$0" .sh)
. "$ROOT/tests/e2e/root-checks-lib.sh"
check() { if eval "$2"; then pass "$1"; else fail "$1"; fi; }
require_root_and_tools "perf events, BPF"

# build NAME SOURCE [WPPCC FLAGS...]: wppcc -O1 -g into $WORK/NAME.
build() {
	local name=$1 src=$2
	shift 2
	"$WPPCC" -O1 -g "$@" -o "$WORK/$name" "$src" >"$WORK/$name.buildlog" 2>&1 ||
		{ fail "cannot build $name"; sed 's/^/    /' "$WORK/$name.buildlog" | head -20; finish; }
}

# fn_cost FILE.json FUNCTION: the function row's cost in a --by function JSON report.
fn_cost() {
	python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(sum(f["cost"] for f in r["functions"] if f["function"] == sys.argv[2]))
PY
}

# counters-throttle.sh lowers kernel.perf_event_max_sample_rate, which
# throttles every sampling recording on the machine while it is low, and
# restores what it found: two of them overlapping (checkouts tested side
# by side) would throttle each other's "normal" recording, and the later
# would restore the earlier's lowered rate for good.  So that one holds
# this lock exclusively and every other counters test shared: none runs
# in that window, whatever the load.
SAMPLE_RATE_LOCK=/run/lock/wpptrace-sample-rate.lock
# sample_rate_lock -s|-x: take it (shared or exclusive) until the script
# exits; waiting longer than WAIT_LIMIT_S is a FAIL that says so.
sample_rate_lock() {
	exec {SAMPLE_RATE_FD}>>"$SAMPLE_RATE_LOCK" ||
		{ fail "cannot open $SAMPLE_RATE_LOCK"; finish; }
	flock "$1" -w "$WAIT_LIMIT_S" "$SAMPLE_RATE_FD" ||
		{ fail "waited $WAIT_LIMIT_S s for $SAMPLE_RATE_LOCK (another test lowering the sample rate)"; finish; }
}
[ "$(basename "$0")" = counters-throttle.sh ] || sample_rate_lock -s
