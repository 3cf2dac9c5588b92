#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# harden-corrupt — a traced process that rewrites its own rings in the shm
# region (start slot far away, head far past the tail) does not crash the
# root collector: record reports "producer N misbehaved (...): cut off",
# ends the program's run with its status, and writes a complete file in
# which every thread has its exit and the honest process's records are
# all there (as many as in a recording where nobody misbehaves).  A child
# that rewrites the other threads' ring geometry instead (start slot, ring
# length: fields neither side reads back) changes nothing at all.
. "$(dirname "$0")/harden-lib.sh"

build corrupt "$SRC/corrupt.c" -fwpp-no-runs || finish

# first_proc_records FILE.wpp: the records of the first process (the
# parent: it registers before it forks).
first_proc_records() {
	"$WPPTRACE" info "$1" | awk '/^  pid / { n++ } n == 1 && /records/ {
		for (i = 1; i < NF; i++) if ($i == "records") { print $(i + 1); exit } }'
}

for mode in honest corrupt others; do
	timeout 60 "$WPPTRACE" record --transport=shm -q -o "$WORK/$mode.wpp" -- \
		"$WORK/corrupt" $mode 200 >"$WORK/$mode.out" 2>"$WORK/$mode.err"
	echo $? >"$WORK/$mode.rc"
	"$WPPTRACE" info "$WORK/$mode.wpp" >"$WORK/$mode.info" 2>&1
done
rc=$(cat "$WORK/corrupt.rc")
if [ "$rc" = 7 ] && cmp -s "$WORK/honest.out" "$WORK/corrupt.out"; then
	pass "record ended with the program's status and output (rc $rc)"
else
	fail "record with a corrupting producer: rc $rc: $(head -3 "$WORK/corrupt.err")"
fi
child=$(awk '/^  pid / { n++; if (n == 2) print $2 }' "$WORK/corrupt.info")
if grep -q "producer ${child:-?} misbehaved (.*): cut off" "$WORK/corrupt.err"; then
	pass "reported: $(grep misbehaved "$WORK/corrupt.err" | head -1)"
else
	fail "no cut-off report for pid ${child:-?}: $(head -3 "$WORK/corrupt.err")"
fi
if grep -q "^status      complete" "$WORK/corrupt.info" &&
	grep -q "(0 without an exit record)" "$WORK/corrupt.info"; then
	pass "the file is complete and every thread has its exit"
else
	fail "the file: $(grep -E '^status|^threads' "$WORK/corrupt.info" | tr '\n' '|')"
fi
want=$(first_proc_records "$WORK/honest.wpp")
got=$(first_proc_records "$WORK/corrupt.wpp")
if [ -n "$want" ] && [ "$got" = "$want" ]; then
	pass "the honest process's $got records are all there"
else
	fail "the honest process has $got records, $want without the corruption"
fi
rc=$(cat "$WORK/others.rc")
got=$(first_proc_records "$WORK/others.wpp")
if [ "$rc" = 7 ] && cmp -s "$WORK/honest.out" "$WORK/others.out" && [ "$got" = "$want" ] &&
	! grep -q misbehaved "$WORK/others.err" &&
	grep -q "(0 without an exit record)" "$WORK/others.info"; then
	pass "another thread's ring geometry rewritten: nothing changes ($got records)"
else
	fail "ring geometry rewritten by another process: rc $rc, $got records (want $want): $(head -3 "$WORK/others.err")"
fi
finish
