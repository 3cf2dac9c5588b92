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
#    metadata by the independent reader (wppmeta.py).
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
finish
