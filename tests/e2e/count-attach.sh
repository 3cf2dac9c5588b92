#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# count-attach — `record -p` on a count build (-fwpp-mode=count) that is
# already running: the counts its threads still hold when recording stops
# are read after detach and written into the .wpp (record_live_counts.c);
# a thread that ends while attached hands its own over as it always did.
# The oracle is a paths-mode recording of the same deterministic program
# run to its end (tests/e2e/count/count_phases.c, mode b): every path of
# the phase functions, every count.  What a window holds is each live
# thread's counts since it started (docs/design.md, "Counts of attached
# processes are read at detach"), so the windows below all end with the
# same counts as that run:
#   q  pause 1 -> pause 2: the helper ends inside the window (its counts
#      come through its stream), main is alive at the stop (read);
#   p  pause 1 -> pause 2: both threads alive at the stop (two blocks read);
#      the same with -a (the process found among all, compared by its pid);
#   p  pause 2 -> the end: the helper and then the process end inside the
#      window (their drains hand everything over) and nothing is left to
#      read at detach, so nothing is counted twice;
#   p  pause 1 -> SIGKILL at pause 2, after two of record's periodic
#      snapshots (seen with -v -v): the process drains nothing, the last
#      snapshot is written, and the loss is said;
#   k  the same, but the helper ends after the snapshot and before the
#      kill: its counts come once, from its own drain.
. "$(dirname "$0")/bpf-lib.sh"
SRC=$ROOT/tests/e2e/count/count_phases.c
PHASE_FNS="alpha beta beta_wide beta_sparse shared"

# fns_of FILE.wpp [FUNCTION...]: "function path count" lines, sorted (all
# functions when none is named).
fns_of() {
	local f=$1 pid=()
	shift
	[ -s "${f%.wpp}.pid" ] && pid=(--pid "$(cat "${f%.wpp}.pid")")
	"$WPPTRACE" paths --format json "${pid[@]}" "$f" | python3 -c '
import json, sys
keep = set(sys.argv[1:])
rows = json.load(sys.stdin)["paths"]
for r in sorted((r["function"], r["path"], r["count"]) for r in rows if not keep or r["function"] in keep):
    print(*r)' "$@"
}

# window NAME MODE FROM TO [-a]: run the count build in MODE, attach
# `record -p` (or -a) at pause FROM, let it go, stop the recording at pause
# TO (SIGINT) or let it end with the program (TO = end); $WORK/NAME.wpp,
# .err, .prog, .pid (the program's, which the comparison keeps to).
window() {
	local name=$1 mode=$2 from=$3 to=$4 how=${5:--p} d=$WORK prog rec pid
	rm -f "$d/$name.in" "$d/$name.ready"
	mkfifo -m 600 "$d/$name.in"
	(cd "$d" && exec ./count "$mode" <"$name.in" >"$name.prog" 2>&1) &
	prog=$!
	exec 7>"$d/$name.in"
	for n in 1 2; do
		wait_until "$name: pause $n" grep -q "^paused $n" "$d/$name.prog" || break
		pid=$(sed -n "s/^paused $n //p" "$d/$name.prog")
		if [ "$n" = "$from" ]; then
			mkfifo -m 600 "$d/$name.ready"
			echo "$pid" >"$d/$name.pid"
			# shellcheck disable=SC2046
			"$WPPTRACE" record -q --ready-fd 9 -o "$d/$name.wpp" \
				$([ "$how" = -a ] && echo -a || echo -p "$pid") \
				9>"$d/$name.ready" 2>"$d/$name.err" &
			rec=$!
			read -r -t 60 _ <"$d/$name.ready" || fail "$name: record never got ready"
		fi
		[ "$n" = "$to" ] && { kill -INT "$rec"; wait_bounded "$name: record, sent SIGINT" "$rec" || fail "$name: record failed: $(head -1 "$d/$name.err")"; }
		echo go >&7
	done
	exec 7>&-
	wait_bounded "$name: the program" "$prog" || fail "$name: the program failed"
	[ "$to" = end ] && { wait_bounded "$name: record, its target ended" "$rec" || fail "$name: record failed: $(head -1 "$d/$name.err")"; }
}

# same NAME WHAT FUNCTIONS...: NAME.wpp's paths of FUNCTIONS equal the oracle's.
same() {
	local name=$1 what=$2
	shift 2
	fns_of "$WORK/$name.wpp" "$@" >"$WORK/$name.got"
	fns_of "$WORK/b.wpp" "$@" >"$WORK/$name.want"
	if [ -s "$WORK/$name.want" ] && cmp -s "$WORK/$name.got" "$WORK/$name.want"; then
		pass "$name: $what ($(wc -l <"$WORK/$name.want") paths, every count)"
	else
		fail "$name: $what: $(diff "$WORK/$name.got" "$WORK/$name.want" | sed -n 2p) (see $WORK)"
	fi
}

"$WPPCC" -O2 -g -pthread -o "$WORK/paths" "$SRC" >"$WORK/build.log" 2>&1 &&
	"$WPPCC" -O2 -g -pthread -fwpp-mode=count -o "$WORK/count" "$SRC" >>"$WORK/build.log" 2>&1 ||
	{ fail "count_phases builds: $(head -1 "$WORK/build.log")"; finish; }
(cd "$WORK" && "$WPPTRACE" record -q -o b.wpp -- ./paths b >b.out) || fail "the paths run"

window ended q 1 2
same ended "a thread ending in the window, one read at detach" $PHASE_FNS helper

window alive p 1 2
same alive "two threads alive at the stop, both read at detach" $PHASE_FNS

window all p 1 2 -a
same all "-a: the same process found system-wide, read at detach" $PHASE_FNS

window exits p 2 end
same exits "the process ends in the window: its own drain only" $PHASE_FNS helper
# killed NAME MODE LAST WHAT FUNCTIONS...: attach record -v -v -p at pause
# 1, let the program go; at pause 2 wait for two of record's periodic
# snapshots (it says each: two after the pause mean one began after it),
# let it go on to pause LAST, SIGKILL it there.  The recording must hold
# FUNCTIONS' paths as the paths run, and say the loss in one line.
killed() {
	local name=$1 mode=$2 last=$3 what=$4 d=$WORK prog rec pid n
	shift 4
	rm -f "$d/$name.in" "$d/$name.ready"
	mkfifo -m 600 "$d/$name.in" "$d/$name.ready"
	(cd "$d" && exec ./count "$mode" <"$name.in" >"$name.prog" 2>&1) &
	prog=$!
	exec 7>"$d/$name.in"
	snaps() { grep -c "counts of process $pid read" "$d/$name.err"; }
	snaps_past() { [ "$(snaps)" -ge "$1" ]; }
	if wait_until "$name: pause 1" grep -q "^paused 1" "$d/$name.prog"; then
		pid=$(sed -n 's/^paused 1 //p' "$d/$name.prog")
		"$WPPTRACE" -v -v record --ready-fd 9 -o "$d/$name.wpp" -p "$pid" 9>"$d/$name.ready" \
			2>"$d/$name.err" &
		rec=$!
		read -r -t 60 _ <"$d/$name.ready" || fail "$name: record never got ready"
		echo go >&7
		if wait_until "$name: pause 2" grep -q "^paused 2" "$d/$name.prog"; then
			n=$(snaps)
			wait_until "$name: two snapshots after the pause" snaps_past $((n + 2))
			[ "$last" = 3 ] && echo go >&7
			wait_until "$name: pause $last" grep -q "^paused $last" "$d/$name.prog"
			kill -KILL "$pid"
			# (the shell's "Killed" line for the program: not ours to show)
			{ wait_bounded "$name: record, its target SIGKILLed" "$rec"; } 2>/dev/null || fail "$name: record failed: $(grep -v '^wpptrace: record: counts of' "$d/$name.err" | head -1)"
		fi
	fi
	exec 7>&-
	{ wait_bounded "$name: the SIGKILLed program" "$prog"; } 2>/dev/null
	same "$name" "$what" "$@"
	if grep -q "process $pid was killed (signal 9): its [0-9]* path executions counted until .* s before its end are recorded, what ran after is lost" "$d/$name.err"; then
		pass "$name: $(grep -o "process $pid was killed.*" "$d/$name.err" | sed "s/$pid/PID/")"
	else
		fail "$name: no loss line: $(grep warning "$d/$name.err" | head -1)"
	fi
}
killed kill p 2 "killed: the last snapshot written" $PHASE_FNS
# The helper drains at its exit after the last snapshot, before the kill:
# its counts come from its stream, not a second time from the snapshot.
killed kill-ended k 3 "killed after a thread ended: that thread's counts once" $PHASE_FNS helper

if grep -q "draining\|missing\|incomplete" "$WORK"/*.err; then
	fail "a warning in a quiet window: $(grep -h "draining\|missing\|incomplete" "$WORK"/*.err | head -1)"
fi

finish
