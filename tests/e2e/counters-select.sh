#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# counters-select.sh — `--cost NAME` is selected the same way by every
# command that takes it (user/costs/cost_select.c): report, annotate,
# export, hot and kpaths.  On a recording without counters and on one with
# page-faults, a counter the file does not have is exactly one error line
# (naming the command, what --cost takes and the counters the file has),
# exit 2 and nothing on stdout; the recorded counter is accepted by all
# five, with its estimate line where the command prints one.
. "$(dirname "$0")/counters-lib.sh"
rm -rf "$WORK" && mkdir -p "$WORK"

build faults "$PROGS/faults.c"
"$WPPTRACE" record -q -o "$WORK/plain.wpp" -- "$WORK/faults" 3 3 2>/dev/null ||
	{ fail "record without counters"; finish; }
"$WPPTRACE" record -q -e page-faults -c 1 -o "$WORK/faults.wpp" -- "$WORK/faults" 3 3 \
	2>/dev/null || { fail "record -e page-faults"; finish; }

# run CMD FILE ARGS...: the command as the tests call it (annotate names a
# function; export writes pprof to a file).
run() {
	local cmd=$1 file=$2
	shift 2
	case $cmd in
	annotate) "$WPPTRACE" annotate "$file" touch_a "$@" ;;
	export) "$WPPTRACE" export "$file" --format pprof -o "$WORK/out.pb.gz" "$@" ;;
	*) "$WPPTRACE" "$cmd" "$file" "$@" ;;
	esac
}

# unrecorded FILE NAME PATTERN: every command exits 2 with one line matching PATTERN.
unrecorded() {
	local file=$1 name=$2 pat=$3
	for cmd in report annotate export hot kpaths; do
		run "$cmd" "$file" --cost "$name" >"$WORK/u.out" 2>"$WORK/u.err"
		local rc=$?
		check "$cmd --cost $name on $(basename "$file"): exit 2, one line (rc $rc: $(head -c 300 "$WORK/u.err"))" \
			'[ $rc = 2 ] && [ "$(wc -l <"$WORK/u.err")" = 1 ] && [ ! -s "$WORK/u.out" ] &&
			 grep -qE "^wpptrace: .*$cmd: --cost $name: --cost takes insns.* $pat" "$WORK/u.err"'
	done
}
unrecorded "$WORK/plain.wpp" page-faults "has none \(the trace has no counters\)$"
unrecorded "$WORK/faults.wpp" cpu-clock "not in .*faults.wpp \(it has: page-faults\)$"

# The recorded counter: accepted everywhere; report, hot and kpaths print
# the estimate line (text), which names the counter.
for cmd in report annotate export hot kpaths; do
	run "$cmd" "$WORK/faults.wpp" --cost page-faults >"$WORK/ok.out" 2>"$WORK/ok.err"
	rc=$?
	check "$cmd --cost page-faults: exit 0 (rc $rc: $(head -c 300 "$WORK/ok.err"))" '[ $rc = 0 ]'
done
for cmd in report hot kpaths; do
	"$WPPTRACE" "$cmd" "$WORK/faults.wpp" --cost page-faults 2>/dev/null >"$WORK/ok.out"
	check "$cmd --cost page-faults: its estimate line" 'grep -q "page-faults: ~[0-9]* on paths" "$WORK/ok.out"'
done
# What --cost takes besides counters differs only where the command can rank by count.
"$WPPTRACE" report "$WORK/plain.wpp" --cost count >/dev/null 2>"$WORK/c.err"
rc=$?
check "report --cost count: not a counter of report (exit 2, takes insns only)" \
	'[ $rc = 2 ] && grep -q "report: --cost count: --cost takes insns or" "$WORK/c.err"'
finish
