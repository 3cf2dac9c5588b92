#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# harden-squat — another user binds the four hello names (@wpptrace-all-N)
# and never accepts, so a blocking connect() would sleep for ever.  An
# instrumented program still starts at once (the hello connects without
# blocking and trusts only a root listener: each connect fails at once,
# as strace shows), and a root `record --` over BPF records it completely.
. "$(dirname "$0")/harden-lib.sh"

build work "$SRC/work.c" || finish
run_capture "$WORK/ref" "$WORK/work" 300
"$WPPTRACE" record -q -o "$WORK/before.wpp" -- "$WORK/work" 300 >/dev/null 2>&1
before=$("$WPPTRACE" info "$WORK/before.wpp" | awk '$1 == "records" { print $2 }')

setpriv --reuid=nobody --regid=nogroup --clear-groups /usr/bin/python3 "$SRC/squat.py" \
	>"$WORK/squat.out" 2>&1 &
squatter=$!
trap 'kill $squatter 2>/dev/null' EXIT
wait_until "the squatter's ready line" grep -q ready "$WORK/squat.out" ||
	{ fail "the squatter did not start: $(cat "$WORK/squat.out")"; finish; }

# Whether the program was held is what its hello's system calls say, not
# the clock (a loaded machine makes any run slow): each of the four
# connects must fail at once (EAGAIN: non-blocking, the backlog is full),
# so no hello socket is ever waited on.  A blocking connect would sleep
# until `timeout` (status 124, and no result in the trace).
command -v strace >/dev/null || { fail "strace missing (scripts/install-deps)"; finish; }
t0=$(now_ms)
run_capture "$WORK/squatted" timeout 20 strace -f -qq -o "$WORK/squatted.strace" -e trace=connect \
	"$WORK/work" 300
ms=$(($(now_ms) - t0))
hellos=$(grep -c 'connect(.*@"wpptrace-all-' "$WORK/squatted.strace")
refused=$(grep -c 'connect(.*@"wpptrace-all-.*= -1 EAGAIN' "$WORK/squatted.strace")
if same_run "$WORK/ref" "$WORK/squatted" && [ "$hellos" = 4 ] && [ "$refused" = 4 ]; then
	pass "with every hello name squatted the program ran on at once: 4 hello connects, each EAGAIN ($ms ms), same output"
else
	fail "the squatter held the program: $refused of $hellos hello connects failed at once (want 4 of 4), $ms ms"
	show_run "$WORK/squatted"
	grep 'wpptrace-all-' "$WORK/squatted.strace" | head -4 | sed 's/^/    /'
fi

t0=$(now_ms)
timeout 60 "$WPPTRACE" record -q -o "$WORK/squatted.wpp" -- "$WORK/work" 300 \
	>"$WORK/rec.out" 2>"$WORK/rec.err"
rc=$?
ms=$(($(now_ms) - t0))
after=$("$WPPTRACE" info "$WORK/squatted.wpp" 2>/dev/null | awk '$1 == "records" { print $2 }')
if [ $rc = 7 ] && cmp -s "$WORK/ref.out" "$WORK/rec.out" && [ -n "$before" ] &&
	[ "$after" = "$before" ]; then
	pass "record -- over BPF with the names squatted: $after records as without ($ms ms)"
else
	fail "record -- with the names squatted: rc $rc, $after records (without: $before), $ms ms: $(head -2 "$WORK/rec.err")"
fi
finish
