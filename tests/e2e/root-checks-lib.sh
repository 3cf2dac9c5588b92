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
	# bounds reached, in subshells too (wait_bounded)
	[ -s "${WORK:-}/.timeouts" ] && FAILURES=$((FAILURES + $(wc -l <"$WORK/.timeouts")))
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

# state_of DIR [2]: the state letter of the process or thread whose /proc
# directory is DIR ("S"), with its name when the second argument is 2
# ("S (sleeping)"); empty once it has gone.
state_of() {
	awk -v n="${2:-1}" '$1 == "State:" { print (n == 2 ? $2 " " $3 : $2) }' "$1/status" 2>/dev/null
}

# proc_report PID: what PID is doing, one line: its state and wchan, and
# each other thread's ("gone" once it has ended).
proc_report() {
	local pid=$1 t line
	[ -d "/proc/$pid" ] || { echo "pid $pid: gone"; return; }
	line="pid $pid ($(cat "/proc/$pid/comm" 2>/dev/null)): $(state_of "/proc/$pid" 2), wchan $(cat "/proc/$pid/wchan" 2>/dev/null)"
	for t in /proc/"$pid"/task/*; do
		[ "${t##*/}" = "$pid" ] && continue
		line+="; thread ${t##*/}: $(state_of "$t") $(cat "$t/wchan" 2>/dev/null)"
	done
	echo "$line"
}

# running PID: PID has not ended (a zombie has).
running() {
	local state
	state=$(state_of "/proc/$1")
	[ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

# wait_bounded WHAT PID...: `wait PID...` (the status of the last), each no
# later than WAIT_LIMIT_S from the call.  One that has not ended by then is
# a FAIL naming WHAT with its state (proc_report), its threads' kernel
# stacks below, and is killed; the status is then 124.  (The FAIL is
# counted through $WORK/.timeouts, which finish reads: the wait may run in
# a subshell, whose own count would be lost.)
wait_bounded() {
	local what=$1 pid t rc=0 deadline=$((SECONDS + WAIT_LIMIT_S))
	shift
	for pid; do
		while running "$pid" && [ $SECONDS -lt $deadline ]; do
			sleep 0.05
		done
		if running "$pid"; then
			echo "FAIL: $what did not end within $WAIT_LIMIT_S s: $(proc_report "$pid")"
			echo "$what" >>"$WORK/.timeouts"
			for t in /proc/"$pid"/task/*; do
				echo "    kernel stack of ${t##*/}:"
				sed 's/^/      /' "$t/stack" 2>/dev/null
			done
			kill -CONT "$pid" 2>/dev/null
			kill -KILL "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			rc=124
		else
			wait "$pid"
			rc=$?
		fi
	done
	return $rc
}

# run_bounded WHAT COMMAND...: COMMAND in the foreground as far as the
# caller sees (its status, its redirections, its standard input), but
# bounded as wait_bounded.
run_bounded() {
	local what=$1
	shift
	"$@" <&0 &
	wait_bounded "$what" $!
}

# not_stopped PID WHAT: FAIL if PID is stopped (state T): nothing a test
# runs may leave a process stopped (a stopped process never acts on the
# SIGTERM that ends it); it is continued, so that the test goes on.
not_stopped() {
	[ "$(state_of "/proc/$1")" = T ] || return 0
	fail "$2: pid $1 was left stopped: $(proc_report "$1")"
	kill -CONT "$1"
	return 1
}

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
