#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-thread-table — more threads at once than --max-threads: the BPF
# thread and position tables fill, and what cannot be kept is counted and
# said, never silent.  progs/mtwork.c with a pause holds all its workers
# alive together at half way; with a table of 16 the workers beyond it
# have no thread slot (their batches are lost, counted) and no position
# (nothing of theirs could be salvaged: said with its count).  The control
# is the same run at the default table size: nothing lost, nothing said.
. "$(dirname "$0")/bpf-lib.sh"

build mtwork "$PROGS/mtwork.c" -fwpp-no-runs || finish

# rec NAME RECORD-OPTIONS...: 40 workers, small batches so that each
# publishes some before the end; NAME.err, NAME.wpp.
rec() {
	local name=$1
	shift
	WPP_BUFFER_WORDS=256 run_bounded "record $name" "$WPPTRACE" record "$@" -o "$WORK/$name.wpp" -- \
		"$WORK/mtwork" 40 20000 200 >/dev/null 2>"$WORK/$name.err" ||
		fail "record $name: status $? ($(grep -m1 error "$WORK/$name.err"))"
}

rec full --max-threads 16
rec control

full=$(sed -n 's/.*bpf: \([0-9]*\) threads started while the thread table was full.*raise --max-threads.*/\1/p' "$WORK/full.err")
# 40 workers and the main thread alive at once, 16 places.
if [ -n "$full" ] && [ "$full" -ge 25 ] && [ "$full" -le 41 ]; then
	pass "a full table: $full threads without a position, said with the option to raise"
else
	fail "a full table: expected 25..41 threads without a position, got '${full:-none}'"
	sed 's/^/    /' "$WORK/full.err" | head -5
fi
# Every loss here is a batch with no thread slot: stderr's count and the
# file's (for `info`, since no stream reports them) must agree.
said=$(sed -n 's/.*lost \([0-9]*\) events in \([0-9]*\) batches (ring full: 0, unreadable: 0, no thread slot: \2;.*/\1 \2/p' "$WORK/full.err")
kept=$(info "$WORK/full.wpp" | sed -n 's/^ *and \([0-9]*\) words in \([0-9]*\) batches of threads the thread table had no room for.*/\1 \2/p')
if [ -n "$said" ] && [ "${said%% *}" -gt 0 ] && [ "$said" = "$kept" ] &&
	grep -q "more threads at once than the thread table holds (raise --max-threads)" "$WORK/full.err"; then
	pass "a full table: ${said% *} words in ${said#* } batches without a thread slot, said and kept for info"
else
	fail "a full table: said '${said:-none}', info keeps '${kept:-none}' (words batches)"
	sed 's/^/    /' "$WORK/full.err" | head -5
fi
if [ "$(lost_words "$WORK/control.wpp")" = 0 ] && ! grep -q "thread table" "$WORK/control.err"; then
	pass "control: 41 threads in the default table, nothing lost or said"
else
	fail "control: lost $(lost_words "$WORK/control.wpp") words, or a thread table warning"
	sed 's/^/    /' "$WORK/control.err" | head -5
fi
finish
