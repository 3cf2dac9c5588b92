#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# dual-attach — dual builds (wppcc -fwpp-dual) with the BPF collector:
#  * recorded from the start (`record -- PROG`: WPP_TRACE_ON=1 sets the
#    flags) a dual build decodes exactly as its ordinary paths build
#    recorded through shm;
#  * run with no collector, a dual build never records: its thread never
#    calls __wpp_flush (counted with a gdb breakpoint), where the paths
#    build calls it for its first record already;
#  * `record -p` attaching to a frame that sits in its loops since before
#    the attach (tests/e2e/dual/spin.c) switches it at the next path start
#    on the loops: paths of that frame appear within the 2 s recording,
#    none from its entry, and every path id is regenerated from the
#    metadata by the independent reader (wppmeta.py);
#  * `record -a` switches a dual build that was running plain before it
#    started (its paths are in the file) and back when it ends (the next
#    `record -p` finds it off again);
#  * a process whose flags were on before the collector came (WPP_TRACE_ON)
#    is left on: a second `record -p` still finds them on.
. "$(dirname "$0")/bpf-lib.sh"
ORACLE_CMP="python3 $ROOT/tests/oracle/wppcmp.py"

build threads-paths "$CORPUS/threads.c" || finish
build threads-dual "$CORPUS/threads.c" -fwpp-dual || finish
build signals-paths "$CORPUS/signals.c" || finish
build signals-dual "$CORPUS/signals.c" -fwpp-dual || finish
build recursion-paths "$CORPUS/recursion.c" || finish
build recursion-dual "$CORPUS/recursion.c" -fwpp-dual || finish
build spin-dual "$ROOT/tests/e2e/dual/spin.c" -fwpp-dual || finish

for name in threads signals; do
	(cd "$WORK" && "$WPPTRACE" record -q --transport=shm -o "$name-shm.wpp" -- "./$name-paths" >/dev/null) ||
		{ fail "$name: shm record failed"; continue; }
	(cd "$WORK" && run_bounded "wpptrace at line $LINENO" "$WPPTRACE" record -q -o "$name-bpf.wpp" -- "./$name-dual" >/dev/null 2>"$name.err") ||
		{ fail "$name: bpf record failed: $(head -3 "$WORK/$name.err")"; continue; }
	jsonl "$WORK/$name-shm.wpp" && jsonl "$WORK/$name-bpf.wpp" || { fail "$name: decode failed"; continue; }
	if out=$($CMP same "$WORK/$name-shm.jsonl" "$WORK/$name-bpf.jsonl"); then
		pass "$name: dual under BPF from the start as paths under shm: $out"
	else
		fail "$name: dual under BPF differs from paths under shm: $out"
	fi
done

# flushes PROGRAM ARGS...: how often the run calls __wpp_flush.
flushes() {
	(cd "$WORK" && gdb -batch -nx -ex 'set breakpoint pending on' -ex 'break __wpp_flush' \
		-ex 'commands 1' -ex 'silent' -ex 'continue' -ex 'end' -ex run -ex 'info breakpoints' \
		--args "$@" 2>/dev/null) | awk '/already hit/ { n = $4 } END { print n + 0 }'
}
if command -v gdb >/dev/null; then
	fd=$(flushes ./recursion-dual 12) fp=$(flushes ./recursion-paths 12)
	if [ "$fd" -eq 0 ] && [ "$fp" -gt 0 ]; then
		pass "no collector: the dual build calls __wpp_flush $fd times, the paths build $fp"
	else
		fail "no collector: __wpp_flush called $fd times by the dual build, $fp by the paths build"
	fi
else
	echo "SKIP: no gdb for the no-collector check"
fi

(cd "$WORK" && exec ./spin-dual >spin.out) &
spin=$!
for _ in $(seq 50); do grep -q ready "$WORK/spin.out" 2>/dev/null && break; sleep 0.1; done
sleep 0.3 # well inside its loops
run_bounded "record -p spin-dual -d 2" "$WPPTRACE" -v record -p "$spin" -d 2 -o "$WORK/spin.wpp" 2>"$WORK/spin.err"
not_stopped "$spin" "record -p spin-dual -d 2"
kill -USR1 "$spin"
wait_bounded "spin-dual, sent SIGUSR1" "$spin"
st=$?
[ $st -eq 0 ] && grep -q "done 1" "$WORK/spin.out" || fail "spin: status $st after the recording"
grep -q "set 1 dual flags" "$WORK/spin.err" && grep -q "cleared 1 dual flags" "$WORK/spin.err" ||
	fail "spin: record -p did not say it set and cleared the flag: $(grep dual "$WORK/spin.err")"
if jsonl "$WORK/spin.wpp"; then
	counts=$(python3 - "$WORK/spin.jsonl" <<'PY'
import collections, json, sys
c = collections.Counter()
for line in open(sys.argv[1]):
    j = json.loads(line)
    if j.get("type") == "path":
        c[(j["function"], j["start"])] += 1
print(c[("spin", "back-edge")], c[("spin", "call")], sum(c.values()) - c[("spin", "back-edge")] - c[("spin", "call")])
PY
)
	read -r back call other <<<"$counts"
	if [ "${back:-0}" -gt 0 ] && [ "${call:-0}" -gt 0 ] && [ "${other:-1}" -eq 0 ]; then
		pass "record -p switched the running loops: $back paths from the inner back edge, $call after the call"
	else
		fail "record -p: paths from back edges $back, after calls $call, others $other"
	fi
	if out=$($ORACLE_CMP blocks "$WORK/spin.jsonl" "$WORK/spin.jsonl" --meta "$WORK/spin-dual" 2>&1); then
		pass "spin: every path id decodes as the metadata says ($out)"
	else
		fail "spin: $out"
	fi
else
	fail "spin: decode failed: $(head -3 "$WORK/spin.script.err")"
fi

# start_spin NAME [ENV...]: a spin-dual in its loops, its pid in $spin.
start_spin() {
	local name=$1
	shift
	(cd "$WORK" && exec env "$@" ./spin-dual >"$name.out") &
	spin=$!
	for _ in $(seq 50); do grep -q ready "$WORK/$name.out" 2>/dev/null && break; sleep 0.1; done
	sleep 0.3
}
# stop_spin NAME: ends it, checks it ran to its end.
stop_spin() {
	kill -USR1 "$spin"
	wait_bounded "spin-dual ($1), sent SIGUSR1" "$spin"
	local st=$?
	[ $st -eq 0 ] && grep -q "done 1" "$WORK/$1.out" || fail "$1: spin status $st"
}

start_spin all
run_bounded "record -a -d 1" "$WPPTRACE" -v record -a -d 1 -o "$WORK/all.wpp" 2>"$WORK/all.err"
not_stopped "$spin" "record -a -d 1"
run_bounded "record -p after -a" "$WPPTRACE" -v record -p "$spin" -d 1 -o "$WORK/after.wpp" 2>"$WORK/after.err"
stop_spin all
if grep -q "pid $spin: set 1 dual flags" "$WORK/all.err" &&
	grep -q "pid $spin: cleared 1 dual flags" "$WORK/all.err" &&
	grep -q "pid $spin: set 1 dual flags" "$WORK/after.err"; then
	pass "record -a set the running dual build's flag and cleared it at its end"
else
	fail "record -a and the flag of pid $spin: $(grep "pid $spin" "$WORK/all.err" "$WORK/after.err")"
fi
if jsonl "$WORK/all.wpp" -p "$spin"; then # (-a caught every traced process)
	n=$(python3 - "$WORK/all.jsonl" "$spin" <<'PY'
import json, sys
pid = int(sys.argv[2])
print(sum(1 for line in open(sys.argv[1])
          if (j := json.loads(line)).get("type") == "path" and j.get("pid") == pid
          and j["function"] == "spin"))
PY
)
	[ "${n:-0}" -gt 0 ] && pass "record -a: $n paths of the dual build running before it" ||
		fail "record -a: no path of pid $spin in spin"
else
	fail "record -a: decode failed: $(head -3 "$WORK/all.script.err")"
fi

start_spin on WPP_TRACE_ON=1
run_bounded "record -p (on already)" "$WPPTRACE" -v record -p "$spin" -d 1 -o "$WORK/on1.wpp" 2>"$WORK/on1.err"
run_bounded "record -p (on still)" "$WPPTRACE" -v record -p "$spin" -d 1 -o "$WORK/on2.wpp" 2>"$WORK/on2.err"
stop_spin on
if grep -q "dual flags were set already" "$WORK/on1.err" && ! grep -q "cleared" "$WORK/on1.err" &&
	grep -q "dual flags were set already" "$WORK/on2.err"; then
	pass "flags set before record -p came are left set"
else
	fail "flags on before record -p: $(grep dual "$WORK/on1.err" "$WORK/on2.err")"
fi
finish
