#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# harden-forged — WPP_SHM naming a forged region cannot crash or hang an
# instrumented program: a regular file (refused: only a sealed memfd is
# mapped), a sealed memfd whose ring tails are ahead of the heads (the
# ring is given up at once), and one whose rings are 0 slots long and
# never drained (the producer's own geometry ignores the length; the
# stall bound gives the ring up after 10 s).  Each run prints what it
# prints without WPP_SHM and exits 7.
. "$(dirname "$0")/harden-lib.sh"

build work "$SRC/work.c" -fwpp-no-runs || finish
build_forge || finish
run_capture "$WORK/ref" "$WORK/work" 300

# check NAME: same stdout and status as the reference (stderr may hold the
# runtime's one line saying it does not use the region).
check() {
	if cmp -s "$WORK/ref.out" "$WORK/$1.out" && cmp -s "$WORK/ref.rc" "$WORK/$1.rc"; then
		pass "$1: same output, status 7 ($2)"
	else
		fail "$1: the forged region changed the run"
		show_run "$WORK/$1"
	fi
}

"$WORK/forge" file "$WORK/forged" first_slot || fail "forge file"
run_capture "$WORK/file" env WPP_SHM="$WORK/forged" "$WORK/work" 300
check file "$(head -1 "$WORK/file.err")"

for damage in tail ring0; do
	"$WORK/forge" memfd $damage >"$WORK/$damage.path" &
	forger=$!
	if ! wait_file "$WORK/$damage.path" "the forger's $damage region"; then
		kill $forger
		wait $forger 2>/dev/null
		continue
	fi
	t0=$(now_ms)
	run_capture "$WORK/$damage" env WPP_SHM="$(cat "$WORK/$damage.path")" "$WORK/work" 300
	check $damage "$(($(now_ms) - t0)) ms"
	kill $forger
	wait $forger 2>/dev/null
done
finish
