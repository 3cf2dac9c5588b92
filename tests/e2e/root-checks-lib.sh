# SPDX-License-Identifier: MIT
# root-checks-lib.sh — sourced (bash) by the libraries of e2e scripts that
# need root and the built tools (bpf-lib.sh, counters-lib.sh): pass/fail
# counting, the closing verdict, and the prologue.  The caller sets WPPCC,
# WPPTRACE and WORK first.
FAILURES=0
CHECKS=0

fail() { FAILURES=$((FAILURES + 1)); echo "FAIL: $*"; }
pass() { CHECKS=$((CHECKS + 1)); echo "ok:   $*"; }
# A passing script leaves nothing behind (its recordings and decoded
# dumps run to gigabytes); a failing one keeps $WORK to look at.
finish() {
	echo "$CHECKS checks, $FAILURES failures"
	if [ "$CHECKS" -gt 0 ] && [ "$FAILURES" -eq 0 ]; then
		[ -z "${WORK:-}" ] || rm -rf "$WORK"
		exit 0
	fi
	exit 1
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

# Waiting for an event, never for a time: the bounds below guard against a
# hang and sit far above what the event takes on a busy machine; reaching
# one is a failure that names what did not happen.
WAIT_LIMIT_S=${WAIT_LIMIT_S:-300}

# wait_until WHAT COMMAND...: run COMMAND every 20 ms until it succeeds;
# after WAIT_LIMIT_S, FAIL naming WHAT and return 1.
wait_until() {
	local what=$1 deadline=$((SECONDS + WAIT_LIMIT_S))
	shift
	until "$@"; do
		if [ $SECONDS -ge $deadline ]; then
			fail "waited $WAIT_LIMIT_S s for $what"
			return 1
		fi
		sleep 0.02
	done
}

# wait_file FILE WHAT: until FILE exists and is not empty (a pid file a
# test program writes once it runs).
wait_file() { wait_until "$2" test -s "$1"; }

# start_record ERRFILE RECORD-ARGS...: `wpptrace record RECORD-ARGS` in the
# background (REC is its pid, its stderr goes to ERRFILE), returning once
# it has said on --ready-fd that every probe is attached and it records.
# A record that ends without saying so is a FAIL (and return 1).  With
# RECORD_VERBOSE=1, `wpptrace -v -v record`: what it attached, and when.
start_record() {
	local err=$1 fifo line= verbose=()
	shift
	[ "${RECORD_VERBOSE:-0}" = 1 ] && verbose=(-v -v)
	fifo=$(mktemp -u "$WORK/ready.XXXXXX")
	mkfifo "$fifo" || { fail "mkfifo $fifo"; return 1; }
	"$WPPTRACE" "${verbose[@]}" record --ready-fd 9 "$@" 9>"$fifo" 2>"$err" &
	REC=$!
	read -r -t "$WAIT_LIMIT_S" line <"$fifo"
	rm -f "$fifo"
	[ "$line" = ready ] && return 0
	fail "record $* did not report ready: $(cat "$err")"
	return 1
}
