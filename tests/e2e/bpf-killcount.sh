#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# bpf-killcount — a traced multi-threaded program SIGKILLed while its
# threads record loses nothing that is not counted.  The oracle is the
# program's own count (progs/killcount.c): each worker runs a call-free
# loop, one trace word per iteration, and stores its iteration count in a
# file mapped shared, which the kill leaves behind.  For every worker the
# decoded paths plus the words `report` counts lost must be that count
# (+1: the path before its one call).  A worker caught with a part-filled
# buffer gets it salvaged at exit; one caught at a batch boundary (in the
# batch probe, or stopped there by back-pressure or preempted on a busy
# machine) has nothing to salvage — so a run where only some
# threads show a salvaged batch can be right, and this tells.  The kill
# comes while at least one worker is part way into a batch.
#   started by record: the whole count, exactly;
#   record -p: the trace starts at an unknown batch boundary, and every
#   batch the runtime publishes is whole (8192 words, the runtime's own
#   size before a collector sets one), so the tail must match modulo 8192.
. "$(dirname "$0")/bpf-lib.sh"

NT=3
build killcount "$PROGS/killcount.c" -fwpp-no-runs || finish

# oracle CMD ARGS: the slot file's reader (killcount.c's layout).
#   kill SLOTS N BY BATCH: once every worker has done BY iterations since
#     the call and one is part way into a BATCH-word batch, SIGKILL the
#     program (at once: a worker that waits for a CPU stays where it is,
#     and one left at a batch boundary would have nothing to salvage)
#   check SLOTS N WPP MOD LABEL: per worker, decoded + lost against the
#     count (modulo MOD if MOD > 0); prints one line, exits 1 on a mismatch
oracle() {
	python3 - "$WPPTRACE" "$@" <<'PY'
import json, os, struct, subprocess, sys, time
wpptrace, cmd, slots, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
def read():
    b = open(slots, 'rb').read()
    return [struct.unpack_from('<QQ', b, 16 * i) for i in range(n + 1)]
if cmd == 'kill':
    # the file may not be there yet, or not sized
    by, batch, t0, start = int(sys.argv[5]), int(sys.argv[6]), time.time(), None
    while time.time() - t0 < 300:
        try:
            s = read()
        except (OSError, struct.error):
            s = None
        if s and s[0][0] and start is None:
            start = [d for _, d in s[1:]]
        if (s and start and all(d >= b + by for (_, d), b in zip(s[1:], start)) and
                any((d + 1) % batch > 1 for _, d in s[1:])):
            os.kill(s[0][0], 9)
            sys.exit(0)
        time.sleep(0.002)
    sys.exit('the workers did not advance in 300 s')
wpp, mod, label = sys.argv[5], int(sys.argv[6]), sys.argv[7]
bad, out = 0, []
for tid, done in read()[1:]:
    r = subprocess.run([wpptrace, 'report', wpp, '--tid', str(tid), '--by', 'process',
                        '--format', 'json'], capture_output=True, text=True)
    tot = json.loads(r.stdout)['totals']
    miss = done + 1 - tot['count'] - tot['lost_words']
    if mod:
        miss %= mod
        bad += miss not in (0, 1, mod - 1)
    else:
        bad += miss not in (0, 1)
    out.append(f"tid {tid} counted {done} decoded {tot['count']} lost {tot['lost_words']}")
print(f"{label}: " + "; ".join(out))
sys.exit(1 if bad else 0)
PY
}

# check LABEL MOD: the oracle's verdict on the round's recording, and
# what record said it salvaged.
check() {
	local out salv
	salv=$(grep -o '[0-9]* events in [0-9]* batches salvaged' "$WORK/$1.err")
	if out=$(oracle check "$WORK/$1.slots" $NT "$WORK/$1.wpp" "$2" "$1"); then
		pass "${salv:-nothing salvaged}; $out"
	else
		fail "uncounted loss (${salv:-nothing salvaged}): $out"
	fi
}

# round_run LABEL RECORD-OPTS...: started by record (65536-word batches).
round_run() {
	local label=$1 rc
	shift
	"$WPPTRACE" record "$@" -o "$WORK/$label.wpp" -- \
		"$WORK/killcount" "$WORK/$label.slots" $NT >/dev/null 2>"$WORK/$label.err" &
	local rec=$!
	if ! oracle kill "$WORK/$label.slots" $NT 200000 65536; then
		fail "$label: no kill: $(cat "$WORK/$label.err")"
		pkill -9 -P $rec
	fi
	wait_bounded "record to end after its program was killed" $rec
	rc=$?
	[ $rc = 137 ] || { fail "$label: record exit $rc, not the program's SIGKILL: $(head -3 "$WORK/$label.err")"; return; }
	check "$label" 0
}

# round_attach LABEL RECORD-OPTS...: record -p (8192-word batches).
round_attach() {
	local label=$1 pid
	shift
	"$WORK/killcount" "$WORK/$label.slots" $NT >/dev/null &
	pid=$!
	wait_file "$WORK/$label.slots" "killcount to start" || { kill -9 $pid; return; }
	start_record "$WORK/$label.err" "$@" -p $pid -o "$WORK/$label.wpp" || { kill -9 $pid; return; }
	oracle kill "$WORK/$label.slots" $NT 16384 8192 || { fail "$label: no kill"; kill -9 $pid; }
	{ wait $pid; } 2>/dev/null
	wait_bounded "record -p to end after its process was killed" $REC || return
	check "$label" 8192
}

round_run run-pause
round_run run-drop --ring-full drop
round_attach attach-pause
round_attach attach-drop --ring-full drop
finish
