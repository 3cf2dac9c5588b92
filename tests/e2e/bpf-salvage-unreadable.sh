#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-salvage-unreadable — a thread that ends unflushed while its position
# descriptor names memory that is not there (progs/forgedpos.c) loses the
# words it had not published, in a number nobody can know: record warns
# so, and the file keeps salvage.unreadable=N for `info`.  The control is
# the same program without the forged descriptor: its unpublished words are
# salvaged, with neither the warning nor the INFO line.  Small buffers
# (WPP_BUFFER_WORDS) make both runs publish batches before the end.
. "$(dirname "$0")/bpf-lib.sh"

build forgedpos "$PROGS/forgedpos.c" -fwpp-static-rt -fwpp-no-runs -I"$ROOT/user/include" -I"$ROOT/user" ||
	finish

# rec NAME ARGS...: record forgedpos ARGS into NAME.wpp (NAME.out, NAME.err).
rec() {
	local name=$1
	shift
	WPP_BUFFER_WORDS=256 run_bounded "record $name" "$WPPTRACE" record -o "$WORK/$name.wpp" -- \
		"$WORK/forgedpos" "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" ||
		fail "record $name: status $? ($(grep -m1 error "$WORK/$name.err"))"
	info "$WORK/$name.wpp" >"$WORK/$name.info" 2>&1 || fail "info $name"
}

rec plain
rec forged f
cmp -s "$WORK/plain.out" "$WORK/forged.out" && pass "program output the same in both runs" ||
	fail "program output differs: $(cat "$WORK/plain.out") vs $(cat "$WORK/forged.out")"

if grep -q "batches salvaged from threads that ended unflushed" "$WORK/plain.err" &&
	! grep -q "salvage could not read" "$WORK/plain.err" && ! grep -q "^ *salvage\.unreadable=" "$WORK/plain.info"; then
	pass "control: the unpublished words salvaged, no unreadable salvage said"
else
	fail "control: expected a salvage and no unreadable one"
	sed 's/^/    /' "$WORK/plain.err" | head -5
fi

if grep -q "salvage could not read 1 states .*the events they held unpublished are lost, how many is unknown" "$WORK/forged.err"; then
	pass "forged: record warns that the thread's unpublished events are lost"
else
	fail "forged: no warning of the unreadable salvage"
	sed 's/^/    /' "$WORK/forged.err" | head -5
fi
n=$(sed -n 's/^ *salvage\.unreadable=\([0-9]*\)$/\1/p' "$WORK/forged.info")
if [ "${n:-0}" -ge 1 ] && grep -q "^ *and what $n thread or buffer level states .* (how many words is unknown" "$WORK/forged.info"; then
	pass "forged: info keeps salvage.unreadable=$n and says it under lost"
else
	fail "forged: info does not say the unreadable salvage (salvage.unreadable=${n:-none})"
fi
# What the control salvaged is what the forged run could not: the same
# program, the same words, minus the worker's tail.
pw=$(sed -n 's/^words *\([0-9]*\).*/\1/p' "$WORK/plain.info")
fw=$(sed -n 's/^words *\([0-9]*\).*/\1/p' "$WORK/forged.info")
sv=$(grep -o "[0-9]* events in [0-9]* batches salvaged" "$WORK/plain.err" | cut -d' ' -f1)
[ -n "$pw" ] && [ -n "$sv" ] && [ "$fw" = $((pw - sv)) ] &&
	pass "forged run has the control's $pw words less the $sv it salvaged" ||
	fail "words: control ${pw:-?}, salvaged ${sv:-?}, forged ${fw:-?}"
[ "$(lost_words "$WORK/plain.wpp")" = "" ] || [ "$(lost_words "$WORK/plain.wpp")" = 0 ] ||
	fail "control: lost $(lost_words "$WORK/plain.wpp") words"
finish
