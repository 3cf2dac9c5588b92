#!/bin/bash
# SPDX-License-Identifier: MIT
# counters-classes.sh — every sample of a trace with forced losses is
# classified (docs/counters.md, "Unattributed samples") exactly as an
# independent reading of the file says: churn.c writes many small batches
# (WPP_BUFFER_WORDS=1024) into a tiny ring drained late (--ring-full drop),
# so part of them are lost; cpu-clock samples land on records, in lost
# batches, before the exec, in start-up, after the last record.  The
# reference below reads the raw chunks with its own parser and its own
# rules for a single-threaded program without signals: a sample's batch
# number (or the next number, for a buffer not open yet) and word; past a
# batch's end the next number; a missing number below the last present one
# is lost, above it is after the end (or lost, if a GAP chunk says batches
# were lost after the last present one).
. "$(dirname "$0")/counters-lib.sh"

build churn "$PROGS/churn.c" -fwpp-no-runs
out=$WORK/churn.wpp
if ! (cd "$WORK" && WPP_BUFFER_WORDS=1024 "$WPPTRACE" record -q --ring-size 128K --record-words 256 \
	--ring-full drop --debug-drain-delay-us 100 -e cpu-clock -F 4999 -o "$out" -- ./churn 30000000) \
	2>"$WORK/rec.err"; then
	fail "record: $(head -1 "$WORK/rec.err")"
	finish
fi
"$WPPTRACE" report "$out" --cost cpu-clock --top 1 >"$WORK/report.txt" 2>&1
line=$(head -1 "$WORK/report.txt")
echo "$line"
python3 - "$out" >"$WORK/ref.txt" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
off = struct.calcsize('<8sIIQQ')
sample = struct.Struct('<IIIHBBQIIQQQ')
nwords, samples, exec_ns, gaps_after = {}, [], None, []
while off + 16 <= len(d):
    magic, typ, _, length, _ = struct.unpack_from('<IHHII', d, off)
    if magic != 0x4b435057:
        break
    p = off + 16
    # BATCH, or BATCH_Z (compressed: its batches' heads say the same)
    heads = [p] if typ == 5 else \
        [p + 16 + 48 * i for i in range(struct.unpack_from('<I', d, p)[0])] if typ == 14 else []
    for h in heads:
        _, _, seq, _, _, flags, _, _, n = struct.unpack_from('<IIQQIIQII', d, h)
        assert not flags & 1, "a signal batch: outside this reference's rules"
        nwords[seq] = n
    if typ == 6:    # GAP: batches lost after batch after_seq
        gaps_after.append(struct.unpack_from('<IIQ', d, p)[2])
    elif typ == 2:  # PROCESS
        exec_ns = struct.unpack_from('<IIIIIIQ', d, p)[6]
    elif typ == 11: # SAMPLES
        n, = struct.unpack_from('<I', d, p)
        samples += [sample.unpack_from(d, p + 8 + i * sample.size) for i in range(n)]
    off = p + length
last = max(nwords)
# Batches lost after the last present one: past it may be one of them.
end_lost = any(a >= last for a in gaps_after)
count = {k: 0 for k in ("hit", "lost", "exec", "startup", "end", "nopos")}
for s in samples:
    pos, seq, word, t = s[4], s[6], s[7], s[11]
    if pos == 6:                 # no position yet
        count["exec" if t < exec_ns else "startup"] += 1
        continue
    if pos in (4, 5) or (pos in (1, 3) and seq == 0):  # buffer switch (no batch 0), discard
        count["nopos"] += 1
        continue
    if pos == 2:                 # buffer not open yet: the next number
        seq += 1
    while True:
        if seq > last:
            count["lost" if end_lost else "end"] += 1
            break
        if seq not in nwords:
            count["lost"] += 1
            break
        if word < nwords[seq]:
            count["hit"] += 1
            break
        word -= nwords[seq]
        seq += 1
print(len(samples), *(count[k] for k in ("hit", "lost", "exec", "startup", "end", "nopos")))
PY
read -r total hit lost exec startup end nopos <"$WORK/ref.txt"
echo "reference: $total samples: $hit on records, $lost in lost batches, $exec before exec," \
	"$startup in start-up, $end after the end, $nopos without a position"
# N for a class of the summary line ("N text"), 0 when it is left out.
cls() { echo "$line" | grep -o "[0-9]* $1" | head -1 | cut -d' ' -f1 | grep . || echo 0; }
check "batches were lost (the test needs losses)" '[ "$lost" -gt 0 ]'
check "samples: $total" 'echo "$line" | grep -q "estimated from $total samples"'
check "in lost batches: $lost" '[ "$(cls "in lost batches")" = "$lost" ]'
check "before the exec: $exec" '[ "$(cls "before the program.s exec")" = "$exec" ]'
check "in start-up: $startup" '[ "$(cls "in start-up before")" = "$startup" ]'
check "after the last record: $end" '[ "$(cls "after the thread.s last record")" = "$end" ]'
check "in the buffer switch: $nopos" '[ "$(cls "in the runtime.s buffer switch")" = "$nopos" ]'
missed=$((lost + nopos)) recording=$((total - exec - startup - end))
check "$missed of the $recording samples taken while recording unattributed" \
	'echo "$line" | grep -q "; $missed of the $recording samples taken while recording unattributed"'
rm -f "$out"
finish
