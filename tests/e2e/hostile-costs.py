#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# hostile-costs.py — crafts a .wpp with counter samples for
# tests/e2e/hostile-costs.sh (stdlib only; the CRC32C is computed here,
# independently of wpptrace).
#
#   repeat SRC DST COUNT
#       DST is SRC (a --compress none recording made with -e) with one
#       narrow record replaced by a REPEAT word of COUNT: the first record
#       that follows another narrow record in its BATCH chunk and at whose
#       very position (batch seq, word) a counter sample was taken, so that
#       the sample lands inside the run.  Chunk CRC fixed.  Prints
#       "ADDED FID PAYLOAD": the executions this adds to SRC's total
#       (COUNT - 1) and the record the REPEAT repeats.
import struct
import sys

from wpp_crc32c import crc32c

FILE_HEADER = 32
CHUNK_HEADER = 16
BATCH_HEADER = 48
SAMPLE = 56
CHUNK_BATCH = 5
CHUNK_SAMPLES = 11
BATCH_SIGNAL = 1
FID_SHIFT = 40
CTRL_REPEAT = 4
POS_BUFFER, POS_NUMBERED = 1, 3


def chunks(data):
    off = FILE_HEADER
    while off + CHUNK_HEADER <= len(data):
        _, typ, _, length, _ = struct.unpack_from("<IHHII", data, off)
        yield off, typ, off + CHUNK_HEADER, length
        off += CHUNK_HEADER + length


def narrow(w):
    return w >> FID_SHIFT != 0 and w >> 63 == 0


def repeat(src, dst, count):
    data = bytearray(open(src, "rb").read())
    places = set()
    for _, typ, payload, _ in chunks(data):
        if typ != CHUNK_SAMPLES:
            continue
        (n,) = struct.unpack_from("<I", data, payload)
        for i in range(n):
            s = payload + 8 + i * SAMPLE
            pid, tid, _, _, pos, depth, seq, word = struct.unpack_from("<IIIHBBQI", data, s)
            if pos in (POS_BUFFER, POS_NUMBERED) and depth == 0 and seq:
                places.add((pid, tid, seq, word))
    for off, typ, payload, length in chunks(data):
        if typ != CHUNK_BATCH:
            continue
        pid, tid, seq, _, _, flags, _, _, nwords = struct.unpack_from("<IIQQIIQII", data, payload)
        if flags & BATCH_SIGNAL:
            continue
        words = payload + BATCH_HEADER
        for i in range(1, nwords):
            if (pid, tid, seq, i) not in places:
                continue
            a, b = struct.unpack_from("<QQ", data, words + 8 * (i - 1))
            if narrow(a) and narrow(b) and (i < 2 or narrow(struct.unpack_from("<Q", data, words + 8 * (i - 2))[0])):
                struct.pack_into("<Q", data, words + 8 * i, CTRL_REPEAT << 32 | count)
                crc = crc32c(data[off + 4:off + 12])
                crc = crc32c(data[payload:payload + length], crc)
                struct.pack_into("<I", data, off + 12, crc)
                open(dst, "wb").write(data)
                print(count - 1, a >> FID_SHIFT, a & ((1 << FID_SHIFT) - 1))
                return
    sys.exit("no sample at a narrow record after another in " + src)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "repeat":
        repeat(sys.argv[2], sys.argv[3], int(sys.argv[4], 0))
    else:
        sys.exit("usage: hostile-costs.py repeat SRC DST COUNT")
