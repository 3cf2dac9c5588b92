# SPDX-License-Identifier: MIT
# bpf-lib.sh — shared by tests/e2e/bpf-*.sh (sourced, bash): the BPF
# transport end to end with real BPF, real programs built with bin/wppcc and
# the shm transport as the reference (lossless: its producers wait).
# Needs root; without it every script says SKIP and passes.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
WPPCC=$ROOT/bin/wppcc
WPPTRACE=$ROOT/bin/wpptrace
CORPUS=$ROOT/tests/corpus
PROGS=$ROOT/tests/unit/bpfcollect/progs
CMP="python3 $ROOT/tests/unit/bpfcollect/trace_cmp.py"
WORK=$ROOT/tests/work/bpf/$(basename "$0" .sh)
. "$ROOT/tests/e2e/root-checks-lib.sh"
require_root_and_tools BPF

# build NAME SOURCE... [-- EXTRA FLAGS]: wppcc -O2 into $WORK/NAME.
build() {
	local name=$1
	shift
	"$WPPCC" -O2 -g -pthread -I"$CORPUS" -o "$WORK/$name" "$@" >"$WORK/$name.buildlog" 2>&1 ||
		{ fail "cannot build $name"; sed 's/^/    /' "$WORK/$name.buildlog" | head -20; return 1; }
}

# jsonl FILE.wpp [SCRIPT OPTIONS]: the decoded trace next to it (FILE.jsonl).
jsonl() {
	local f=$1
	shift
	"$WPPTRACE" script "$f" --format jsonl "$@" >"${f%.wpp}.jsonl" 2>"${f%.wpp}.script.err"
}

# info FILE.wpp: `wpptrace info`; lost_words FILE.wpp: the events it says were lost.
info() { "$WPPTRACE" info "$1"; }
lost_words() { info "$1" | awk '$1 == "lost" { print $2 }'; }
