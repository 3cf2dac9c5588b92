#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# top-trace — `wpptrace top` on tracing builds (issue 26), against a
# recording of the same deterministic program as the oracle.
#
# tests/e2e/top/top_phases.c traces (its phase: step and spin, spin's loop
# path the hottest) and links a counting TU (counted): one process, both
# modes.  `record` + `paths` of one run give every path's count.  Then:
#   - top -p -n 2 -d 0.5 ends while the program waits: the program is not
#     left stopped, and later finishes its phases and its own check;
#   - top -p attached before the phase, until the program exits: summed
#     over the intervals, every path of phase/step/spin is exactly twice
#     the recording's (two phases), counted is between once and twice (its
#     counts are read from memory, and those the exit drains into the trace
#     are not counted again), the hottest row is spin's loop path, nothing
#     is lost;
#   - top -a picks up a program started after it, from its first batch;
#   - top -a --merge: two such programs give twice the counts, and two
#     steady programs rows with "processes": 2 (never more);
#   - as nobody: -a says how many processes it skipped, and that tracing
#     builds need root; -p on root's program is one line, exit 1.
. "$(dirname "$0")/bpf-lib.sh"
SRC=$ROOT/tests/e2e/top
cd "$WORK" || exit 1

"$WPPCC" -O2 -g -pthread -c -o top_phases.o "$SRC/top_phases.c" &&
	"$WPPCC" -O2 -g -fwpp-mode=count -c -o top_counted.o "$SRC/top_counted.c" &&
	"$WPPCC" -O2 -g -pthread -o prog top_phases.o top_counted.o >build.log 2>&1 ||
	{ fail "cannot build top_phases"; finish; }

# The oracle: one recorded run of the phase.
run_bounded "wpptrace at line $LINENO" "$WPPTRACE" record -q -o rec.wpp -- ./prog r >rec.out 2>rec.err && grep -q '^ok' rec.out ||
	{ fail "record of the phase: $(head -1 rec.err) $(head -1 rec.out)"; finish; }
"$WPPTRACE" paths --format json rec.wpp >rec.json 2>rec.paths.err ||
	{ fail "paths of the recording: $(head -1 rec.paths.err)"; finish; }

# check.py TOP.json PID TIMES [options]: top's intervals against the
# recording (see the checks at the top of this file).
cat >check.py <<'PY'
import json, os, sys
top, pid, times = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
opts = set(sys.argv[4:])
# Rows of this test's binary only: -a also shows what other programs on
# the machine run, and a merged row has no pid to tell them apart.
prog, real = os.path.realpath("prog"), {}
def ours(p):
    o = p["object"]
    if o not in real:
        real[o] = os.path.realpath(o) == prog
    return p.get("pid", pid) == pid and real[o]
traced = ("phase", "step", "spin")
rec = {}
for r in json.load(open("rec.json"))["paths"]:
    if r["function"] in traced + ("counted",):
        rec[(r["function"], r["path"])] = r["count"]
assert rec, "the recording has no path of the phase"
hot = max((k for k in rec if k[0] in traced), key=lambda k: rec[k])
got, lost, hottest, procs = {}, 0, set(), 0
intervals = [json.loads(l) for l in open(top) if l.strip()]
for i in intervals:
    lost += i["lost"]
    mine = [p for p in i["paths"] if ours(p)]
    for p in mine:
        k = (p["function"], p["path"])
        got[k] = got.get(k, 0) + p["count"]
        procs = max(procs, p.get("processes", 1))
    if mine:
        hottest.add((mine[0]["function"], mine[0]["path"]))
# -a watches the whole machine: what other programs lose there (a ring
# filled by someone else's trace) may be ours too, and then only bounds hold.
exact = lost == 0
assert exact or "system" in opts, "%d events lost" % lost
for k, c in rec.items():
    if k[0] in traced:
        n = got.get(k, 0)
        assert n == times * c if exact else n <= times * c, "%s path %d: %d, want %d" % (k + (n, times * c))
extra = [k for k in got if k[0] in traced and k not in rec]
assert not extra, "paths the recording does not have: %s" % extra
if "counted" in opts:
    for k, c in rec.items():
        if k[0] == "counted":
            n = got.get(k, 0)
            assert c <= n <= times * c, "counted path %d: %d, want %d to %d" % (k[1], n, c, times * c)
if "merged" in opts:
    # Whether both runs fell in one interval is up to the clock: that
    # rows do merge is checked on two steady programs (merged_row).
    assert procs <= times, "merged rows of %d processes, want %d at most" % (procs, times)
assert hot in hottest, "%s path %d is never the hottest row (%s)" % (hot + (hottest,))
note = "" if exact else " (at most: %d events lost on the system)" % lost
print("%s path %d: %d executions, as recorded x%d%s, in %d intervals" % (hot + (got[hot], times, note, len(intervals))))
PY

# start_top OUT ERR ARGS...: top in the background (TOP: its pid) with
# OUT/ERR, returning once it says it watches.
start_top() {
	local out=$1 err=$2 line=
	shift 2
	rm -f topready
	mkfifo topready
	"$WPPTRACE" top --ready-fd 9 "$@" 9>topready >"$out" 2>"$err" &
	TOP=$!
	read -r -t "$WAIT_LIMIT_S" line <topready
	rm -f topready
	[ "$line" = ready ] && return 0
	fail "top $* did not say it watches: $(head -1 "$err")"
	return 1
}
intervals() { grep -c '^{"interval"' "$1"; }
# has_intervals FILE N: FILE holds N intervals or more (re-read each call).
has_intervals() { [ "$(intervals "$1")" -ge "$2" ]; }

# ---- -p: detach, then the whole run ----
rm -f in
mkfifo in
./prog w <in >prog.out 2>&1 &
prog=$!
exec 7>in
if wait_until "the program's ready line" grep -q '^ready' prog.out; then
	start_top p1.json p1.err -p $prog -n 2 -d 0.5 --format json
	wait_bounded "top -p -n 2" $TOP
	rc=$?
	state=$(awk '{ print $3 }' /proc/$prog/stat 2>/dev/null)
	if [ $rc -eq 0 ] && [ "$(intervals p1.json)" -eq 2 ] && [ "$state" != T ] && [ "$state" != t ]; then
		pass "top -p -n 2 -d 0.5: two intervals, then detached (the program is in state $state)"
	else
		fail "top -p -n 2: rc=$rc, $(intervals p1.json) intervals, program state $state: $(head -1 p1.err)"
	fi
	# Attached again, before the phase, until the program exits.
	if start_top p2.json p2.err -p $prog -d 0.5 --top 0 --format json; then
		echo go >&7
		wait_until "the first phase" grep -q '^phase done' prog.out
		# two intervals while it waits: its counters are read alive
		n=$(intervals p2.json)
		wait_until "two intervals after the phase" has_intervals p2.json $((n + 2))
		echo finish >&7
		wait_bounded "top -p, its program finishing" $TOP
		rc=$?
		[ $rc -eq 0 ] || fail "top -p until the program exits: rc=$rc: $(head -1 p2.err)"
		if out=$(python3 check.py p2.json $prog 2 counted 2>&1); then
			pass "top -p: $out, counted from memory ($(sed -n 's/.*(\(.*\) of one CPU)/\1/p' p2.err) own CPU)"
		else
			fail "top -p: $(echo "$out" | tail -1)"
		fi
	fi
fi
exec 7>&-
wait_bounded "the watched program" $prog
rc=$?
if [ $rc -eq 0 ] && grep -q '^ok' prog.out; then
	pass "the watched program finished both phases and its own check after top detached"
else
	fail "the watched program: exit $rc, $(tail -1 prog.out)"
fi

# ---- -a: a program started after top, then two merged ----
# stop_top_when FILE CHECK-ARGS...: SIGINT top once FILE's intervals pass
# `check.py FILE CHECK-ARGS` (tried again at each new interval).  The
# programs have exited, but their last batches count when top's drain
# thread gets to them, which no number of intervals promises on a busy
# machine; a top that never gets there fails the wait, and the check
# after it says what is missing.
top_holds() {
	local n
	n=$(intervals "$1")
	[ "$n" != "$last_intervals" ] || return 1
	last_intervals=$n
	python3 check.py "$@" >/dev/null 2>&1
}
stop_top_when() {
	last_intervals=
	wait_until "top's intervals to hold the runs ($1)" top_holds "$@"
	kill -INT $TOP
	wait_bounded "top, sent SIGINT" $TOP
}
if start_top a.json a.err -a -d 0.5 --top 0 --format json; then
	./prog r >a.prog.out 2>&1 &
	p=$!
	wait_bounded "the program under top -a" $p || fail "top -a: the program failed: $(tail -1 a.prog.out)"
	stop_top_when a.json $p 1 system
	if out=$(python3 check.py a.json $p 1 system 2>&1); then
		pass "top -a, a program started after it: $out"
	else
		fail "top -a: $(echo "$out" | tail -1)"
	fi
fi
if start_top m.json m.err -a --merge -d 2 --top 0 --format json; then
	./prog r >m1.out 2>&1 &
	p1=$!
	./prog r >m2.out 2>&1 &
	p2=$!
	wait_bounded "program 1 under top -a --merge" $p1 && wait_bounded "program 2 under top -a --merge" $p2 || fail "top -a --merge: a program failed"
	stop_top_when m.json 0 2 merged system
	if out=$(python3 check.py m.json 0 2 merged system 2>&1); then
		pass "top -a --merge, two programs: $out"
	else
		fail "top -a --merge: $(echo "$out" | tail -1)"
	fi
fi
# merged_rows FILE [N]: the largest number of processes a row of this
# test's binary sums in FILE's complete intervals (0: no row yet), or N
# once a row sums N (-a --top 0 on a busy machine writes megabytes of
# other programs' rows an interval: read no further than needed).
merged_rows() {
	python3 - "$1" "${2:-0}" <<'PY'
import json, os, sys
prog, want, most = os.path.realpath("prog"), int(sys.argv[2]), 0
for line in open(sys.argv[1]):
    if not line.endswith("\n") or prog not in line:
        continue
    for p in json.loads(line)["paths"]:
        if p["object"] == prog:
            most = max(most, p.get("processes", 1))
    if want and most >= want:
        break
print(most)
PY
}
# has_merged FILE N: a row of FILE sums N processes of this binary.
has_merged() { [ "$(merged_rows "$1" "$2")" -ge "$2" ]; }
# Rows of two processes merge.  Whether the two short runs above share an
# interval is up to the clock; two steady programs (a batch of step's
# paths every ~0.1 s each, until killed) certainly do, so this waits for
# the row that sums both, and no row may sum more.
if start_top ms.json ms.err -a --merge -d 1 --top 0 --format json; then
	./prog s >s1.out 2>&1 &
	s1=$!
	./prog s >s2.out 2>&1 &
	s2=$!
	wait_until "a row summing both steady programs" has_merged ms.json 2 && merged=1 || merged=0
	kill $s1 $s2
	wait_bounded "the steady programs, sent SIGTERM" $s1 $s2 2>/dev/null
	kill -INT $TOP
	wait_bounded "top -a --merge, sent SIGINT" $TOP || fail "top -a --merge on steady programs: $(head -1 ms.err)"
	most=$(merged_rows ms.json)
	if [ $merged = 1 ] && [ "$most" = 2 ]; then
		pass "top -a --merge, two steady programs: rows sum both processes, never more"
	else
		fail "top -a --merge, two steady programs: rows sum $most processes at most, want 2"
	fi
fi

# ---- without privilege ----
if command -v setpriv >/dev/null; then
	nobody() { (cd /tmp && setpriv --reuid=65534 --regid=65534 --clear-groups "$@"); }
	nobody "$WPPTRACE" top -a -n 1 -d 0.2 >u.txt 2>u.err
	rc=$?
	skipped=$(sed -n 's/.*, \([0-9]*\) process\(es\)\? skipped (cannot read \(it\|them\)).*/\1/p' u.txt)
	if [ $rc -eq 0 ] && [ "${skipped:-0}" -gt 0 ] && grep -q "not watched without root" u.err; then
		pass "unprivileged top -a: $(head -1 u.txt | cut -d: -f3-); $(head -1 u.err)"
	else
		fail "unprivileged top -a: rc=$rc, $(head -1 u.txt), $(head -1 u.err)"
	fi
	rm -f in
	mkfifo in
	./prog w <in >np.out 2>&1 &
	p=$!
	exec 7>in
	wait_until "the program's ready line" grep -q '^ready' np.out
	nobody "$WPPTRACE" top -p $p -n 1 >/dev/null 2>np.err
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <np.err)" -eq 1 ]; then
		pass "unprivileged top -p on root's program: $(cat np.err)"
	else
		fail "unprivileged top -p: rc=$rc, $(head -2 np.err)"
	fi
	exec 7>&- # its phases run, untraced
	wait_bounded "the program after the unprivileged top" $p || fail "the program after the unprivileged top: $(tail -1 np.out)"
else
	fail "setpriv missing: the unprivileged cases cannot run"
fi
finish
