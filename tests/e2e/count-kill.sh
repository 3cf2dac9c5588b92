#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# count-kill — a count build (-fwpp-mode=count) that record started
# (`record -- PROG`) and that ends without its runtime's end: SIGKILL (what
# the OOM killer sends too), a crash (SIGSEGV), SIGINT (record's Ctrl-C,
# passed on to the program), SIGABRT sent from outside
# (abort() itself drains: it must not be salvaged), a fork child killed
# while its parent runs on, a vfork child killed (its memory is its
# parent's), an exec'd image killed.  Its counts live in memory
# until its end drains them, so record reads each process per thread every
# --snapshot-interval and writes the last snapshot of a killed one
# (record_live_counts.c; docs/design.md, "Counts of killed processes are
# their last snapshot").
# Both transports: BPF reports exit statuses; over shm record knows those
# of the processes it reaps, and tells a killed child its parent reaped by
# its silence since a snapshot that held counts.
#
# The oracle is a paths build of the same program run in the mode that
# ends normally where the killed run stopped (tests/e2e/count/*.c): every
# path, every count of the named functions, summed over processes.  The
# loss line must name the process, and its path executions must be those
# the recording holds for it.  Runs that end normally with snapshots taken
# all along must not be salvaged: their counts come once, from their ends.
. "$(dirname "$0")/bpf-lib.sh"
PHASES=$ROOT/tests/e2e/count/count_phases.c
KIDS=$ROOT/tests/e2e/count/count_kids.c
PHASE_FNS="alpha beta beta_wide shared"
KID_FNS="gamma_ delta"
ulimit -c 0 # the crash below is a test, not a core to keep

# sums FILE.wpp FUNCTION...: "function path count" lines of FUNCTIONS,
# summed over processes and threads, sorted.
sums() {
	local f=$1
	shift
	"$WPPTRACE" paths --format json "$f" | python3 -c '
import collections, json, sys
keep = set(sys.argv[1:])
c = collections.Counter()
for r in json.load(sys.stdin)["paths"]:
    if r["function"] in keep:
        c[(r["function"], r["path"])] += r["count"]
for (fn, path), n in sorted(c.items()):
    print(fn, path, n)' "$@"
}

# same NAME ORACLE WHAT FUNCTIONS...: NAME.wpp's counts equal ORACLE.wpp's.
same() {
	local name=$1 oracle=$2 what=$3
	shift 3
	sums "$WORK/$name.wpp" "$@" >"$WORK/$name.got"
	sums "$WORK/$oracle.wpp" "$@" >"$WORK/$name.want"
	if [ -s "$WORK/$name.want" ] && cmp -s "$WORK/$name.got" "$WORK/$name.want"; then
		pass "$name: $what ($(wc -l <"$WORK/$name.want") paths, every count)"
	else
		fail "$name: $what: $(diff "$WORK/$name.got" "$WORK/$name.want" | sed -n 2p) (see $WORK)"
	fi
}

# start NAME TRANSPORT INTERVAL PROGRAM ARGS...: `record -v -v` of PROGRAM
# in $WORK (NAME.wpp, .err; its stdout NAME.prog), its stdin a FIFO held
# open on fd 7; $rec is record's pid.
start() {
	local name=$1 transport=$2 interval=$3
	shift 3
	rm -f "$WORK/$name.in"
	mkfifo -m 600 "$WORK/$name.in"
	(cd "$WORK" && exec "$WPPTRACE" -v -v record --transport "$transport" \
		--snapshot-interval "$interval" -o "$name.wpp" -- "$@" \
		<"$name.in" >"$name.prog" 2>"$name.err") &
	rec=$!
	exec 7>"$WORK/$name.in"
}

# snaps_past NAME PID N: record has said N snapshots of PID.
snaps() { grep -c "counts of process $2 read" "$WORK/$1.err"; }
snaps_past() { [ "$(snaps "$1" "$2")" -ge "$3" ]; }

# at_pause NAME [N]: wait for the program's "paused N PID" ($pid; N 1 by
# default), then for two of record's snapshots of PID after it (two: one
# began after the pause).
at_pause() {
	local name=$1 at=${2:-1} n
	wait_until "$name: pause $at" grep -qs "^paused $at" "$WORK/$name.prog" || return 1
	pid=$(sed -n "s/^paused $at //p" "$WORK/$name.prog")
	n=$(snaps "$name" "$pid")
	wait_until "$name: two snapshots after the pause" snaps_past "$name" "$pid" $((n + 2))
}

# end NAME RC: let the program's stdin go, wait for record, which must exit
# with RC (the program's status, 128 + signal when it was killed).
end() {
	local name=$1 want=$2 rc=0
	exec 7>&-
	wait "$rec" || rc=$?
	[ "$rc" = "$want" ] ||
		fail "$name: record exited $rc, not $want: $(grep -v 'counts of process' "$WORK/$name.err" | head -1)"
	return 0
}

# loss NAME PID HOW: the one loss line of PID says HOW it ended, and its
# path executions are those of PID's counts read from memory (info); sets
# $lost_s to the time it says was lost.
loss() {
	local name=$1 pid=$2 how=$3 line said read
	line=$(grep "warning: record: process $pid " "$WORK/$name.err")
	said=$(sed -n 's/.*: its \([0-9]*\) path executions counted until .*/\1/p' <<<"$line")
	lost_s=$(sed -n 's/.* until \([0-9.]*\) s before its end are recorded, what ran after is lost$/\1/p' <<<"$line")
	read=$("$WPPTRACE" info --format json "$WORK/$name.wpp" | python3 -c '
import json, sys
print(sum(p["counts_read_from_memory"] for p in json.load(sys.stdin)["processes"] if p["pid"] == int(sys.argv[1])))' "$pid")
	if [ "$(grep -c "warning: record: process $pid " "$WORK/$name.err")" = 1 ] &&
		grep -q "process $pid $how: its" <<<"$line" && [ -n "$lost_s" ] && [ "$said" = "$read" ] &&
		[ "$read" -gt 0 ]; then
		pass "$name: one line: ${line#*warning: record: }"
	else
		fail "$name: loss line of $pid ($how, $read read): '${line:-none}'"
	fi
}

# gone PID: no such process (record reaps its program at once).
gone() { ! kill -0 "$1" 2>/dev/null; }

# quiet NAME: no loss said.
quiet() {
	if grep -q "warning" "$WORK/$1.err"; then
		fail "$1: $2: $(grep warning "$WORK/$1.err" | head -1)"
	else
		pass "$1: $2"
	fi
}

# the audit module holds the loader: plain cc, not wppcc
clang-19 -O2 -shared -fPIC -o "$WORK/hold_loader.so" "$ROOT/tests/e2e/count/hold_loader.c" \
	>>"$WORK/build.log" 2>&1 || { fail "hold_loader.so: $(head -1 "$WORK/build.log")"; finish; }
for m in count paths; do
	mode=()
	[ $m = count ] && mode=(-fwpp-mode=count)
	"$WPPCC" -O2 -g -pthread "${mode[@]}" -o "$WORK/phases-$m" "$PHASES" >>"$WORK/build.log" 2>&1 &&
		"$WPPCC" -O2 -g -pthread "${mode[@]}" -o "$WORK/kids-$m" "$KIDS" >>"$WORK/build.log" 2>&1 ||
		{ fail "builds: $(head -1 "$WORK/build.log")"; finish; }
done
(cd "$WORK" && "$WPPTRACE" record -q -o a.wpp -- ./phases-paths a >/dev/null &&
	"$WPPTRACE" record -q -o b.wpp -- ./phases-paths b >/dev/null &&
	"$WPPTRACE" record -q -o F.wpp -- ./kids-paths F >/dev/null &&
	"$WPPTRACE" record -q -o E.wpp -- ./kids-paths E >/dev/null &&
	"$WPPTRACE" record -q -o G.wpp -- ./kids-paths G >/dev/null &&
	"$WPPTRACE" record -q -o V.wpp -- ./kids-paths V >/dev/null) || fail "the paths runs"

pid=0
for t in bpf shm; do
	n=-1 gap=0 lost_s=
	# Phase A, two snapshots at the pause, then phase B runs and the
	# process is killed at once at the next pause, long before the next
	# snapshot (2 s): phase A is recorded whole, phase B lost whole, and
	# the line's time covers at least the time from the snapshot to the
	# kill.
	start after-$t $t 2 ./phases-count p
	if at_pause after-$t; then
		seen=$(date +%s.%N)
		echo go >&7
		wait_until "after-$t: pause 2" grep -qs "^paused 2" "$WORK/after-$t.prog"
		kill -KILL "$pid"
		gap=$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$seen" "$(date +%s.%N)")
		n=$(snaps after-$t "$pid")
	fi
	end after-$t 137
	same after-$t a "$t: killed after phase B, the snapshot before it kept" $PHASE_FNS
	loss after-$t "$pid" "was killed (signal 9)"
	if [ "$(snaps after-$t "$pid")" = "$n" ] && python3 -c "import sys; sys.exit(not float(sys.argv[2]) <= float(sys.argv[1]) + 0.01 <= float(sys.argv[2]) + 1)" "$lost_s" "$gap"; then
		pass "after-$t: $lost_s s said lost, $gap s from the snapshot to the kill"
	else
		fail "after-$t: $lost_s s said lost, $gap s from the snapshot to the kill"
	fi

	# A loader caught by a snapshot: held (hold_loader.c) after mapping
	# libwpprt, before relocating it, for seven intervals — what a loaded
	# machine does briefly when the first snapshot comes as the program
	# starts — its registry holds the file's link-time `counts`, no
	# address; and held before mapping the runtime for thirty intervals,
	# far more looks than record makes before it takes a process for one
	# without a counting runtime.  Either way the program's counts must
	# be read once it runs, and its last snapshot kept when killed.
	# (the static TLS libwpprt needs is left to it beside the audit
	# module's; WAIT_LIMIT_S=30: a miss is a fail, not a five-minute wait)
	for hold in libwpprt:libwpprt:0.2 program::0.05; do
		IFS=: read -r what object interval <<<"$hold"
		name=loader-$what-$t
		start $name $t "$interval" env GLIBC_TUNABLES=glibc.rtld.optional_static_tls=65536 \
			LD_AUDIT="$WORK/hold_loader.so" WPP_HOLD_OBJECT="$object" WPP_HOLD_MS=1500 \
			./phases-count p
		WAIT_LIMIT_S=30 at_pause $name && kill -KILL "$pid"
		end $name 137
		same $name a "$t: held in its loader ($what), then killed at a pause" $PHASE_FNS
		loss $name "$pid" "was killed (signal 9)"
	done

	# A crash drains nothing either (abort does: it is not salvaged).
	start crash-$t $t 1 ./phases-count p
	at_pause crash-$t && kill -SEGV "$pid"
	end crash-$t 139
	same crash-$t a "$t: crashed (SIGSEGV) at a pause" $PHASE_FNS
	loss crash-$t "$pid" "was killed (signal 11)"

	# Ctrl-C on record: it passes SIGINT on to its program, which dies of
	# it (no handler, no drain) — how a started server usually ends.
	# (record passes it on when it next runs: the program's stdin stays
	# open until the program is gone)
	start ctrlc-$t $t 0.2 ./phases-count p
	at_pause ctrlc-$t && kill -INT "$rec" && wait_until "ctrlc-$t: the program gone" gone "$pid"
	end ctrlc-$t 130
	same ctrlc-$t a "$t: record interrupted, its program dies of SIGINT" $PHASE_FNS
	loss ctrlc-$t "$pid" "was killed (signal 2)"

	# SIGABRT: abort() drains first, so its end is trusted only when the
	# process was silent since its last snapshot.  Sent from outside it
	# drains nothing (salvaged); abort() called after the snapshots drains
	# (its counts once, nothing said).
	start sigabrt-$t $t 0.2 ./kids-count a
	at_pause sigabrt-$t && kill -ABRT "$pid"
	end sigabrt-$t 134
	same sigabrt-$t G "$t: SIGABRT sent at a pause" $KID_FNS
	loss sigabrt-$t "$pid" "was killed (signal 6) without handing its counts over"
	start abort-$t $t 0.2 ./kids-count a
	at_pause abort-$t && echo go >&7
	end abort-$t 134
	same abort-$t G "$t: abort() after the snapshots" $KID_FNS
	quiet abort-$t "nothing said lost"

	# A fork child killed while its parent waits, which then counts on
	# and ends normally: the child's snapshot and the parent's own drain.
	# Over shm the parent takes the child's status: record tells the kill
	# by the child's silence since a snapshot with counts.
	start fork-$t $t 0.2 ./kids-count f
	at_pause fork-$t && kill -KILL "$pid"
	end fork-$t 0
	same fork-$t F "$t: a fork child killed, its parent ends normally" $KID_FNS
	if [ $t = bpf ]; then
		loss fork-$t "$pid" "was killed (signal 9)"
	else
		loss fork-$t "$pid" "ended without handing its counts over (killed; its parent took its status)"
	fi
	# The threads: the parent, the child's second thread (it exited and
	# drained) and, over BPF, which sees threads start, the child's main
	# thread (over shm a thread is known once it publishes, which the
	# killed one never did).  The stream of the counts read from the
	# child's memory is no thread.
	threads=3
	[ $t = shm ] && threads=2
	"$WPPTRACE" info --format json "$WORK/fork-$t.wpp" >"$WORK/fork-$t.info"
	if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not (d["threads"] == int(sys.argv[2]) and d["memory_count_streams"] == 1))' \
		"$WORK/fork-$t.info" $threads; then
		pass "fork-$t: info counts $threads threads and 1 stream of counts read from memory"
	else
		fail "fork-$t: info: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["threads"], d["memory_count_streams"])' "$WORK/fork-$t.info")"
	fi

	# The same child let go at its pause: it exits normally after its
	# snapshots, its parent reaps it; nothing salvaged, nothing twice.
	start forkok-$t $t 0.2 ./kids-count f
	at_pause forkok-$t && echo go >&7
	end forkok-$t 0
	same forkok-$t F "$t: a fork child that exits after its snapshots" $KID_FNS
	quiet forkok-$t "nothing said lost"

	# A vfork child killed while its parent is suspended: it shares its
	# parent's memory, so a read of it finds the parent's counters, named
	# by the parent's threads — not its own, not to be salvaged (they
	# come once, from the parent's end).
	start vfork-$t $t 0.2 ./kids-count v
	at_pause vfork-$t && kill -KILL "$pid"
	end vfork-$t 0
	same vfork-$t V "$t: a vfork child killed, its parent ends normally" $KID_FNS
	quiet vfork-$t "nothing salvaged from the parent's counters"

	# An exec'd image killed: the old image drained at its exec, the new
	# one's last snapshot is kept (same pid, the next image).
	start exec-$t $t 0.2 ./kids-count e
	at_pause exec-$t && kill -KILL "$pid"
	end exec-$t 137
	same exec-$t E "$t: the image exec'd, then killed" $KID_FNS
	loss exec-$t "$pid" "was killed (signal 9)"

	# Read every 10 ms, counts held by two threads and a hash at each
	# pause, then the helper and the process end normally: every count
	# once, from their own drains; nothing said.
	start normal-$t $t 0.01 ./phases-count p
	at_pause normal-$t 1 && echo go >&7 && at_pause normal-$t 2 && echo go >&7
	end normal-$t 0
	same normal-$t b "$t: an end after snapshots every 10 ms" $PHASE_FNS
	quiet normal-$t "nothing said lost ($(grep -c 'counts of process' "$WORK/normal-$t.err") reads)"
done

# The option: bounds and words, one line and exit 2 each.
for bad in 0 0.001 3601 -1 1s abc ""; do
	out=$("$WPPTRACE" record --snapshot-interval "$bad" -o "$WORK/bad.wpp" -- true 2>&1)
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "snapshot-interval" <<<"$out" &&
		[ ! -e "$WORK/bad.wpp" ]; then
		pass "--snapshot-interval '$bad': $out"
	else
		fail "--snapshot-interval '$bad': exit $rc: $out"
	fi
done
if "$WPPTRACE" record --help | grep -q -- "--snapshot-interval SECS"; then
	pass "record --help shows --snapshot-interval"
else
	fail "record --help does not show --snapshot-interval"
fi

finish
