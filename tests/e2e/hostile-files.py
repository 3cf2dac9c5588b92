#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# hostile-files.py — crafts .wpp files for tests/e2e/hostile-files.sh
# (stdlib only; the CRC32C is computed here, independently of wpptrace).
#
#   repeat SRC DST COUNT
#       DST is SRC with, in its first BATCH chunk, the first narrow record
#       that follows another narrow record replaced by a REPEAT word of
#       COUNT (the record before it "ran COUNT more times"), chunk CRC
#       fixed.  Prints the executions this adds to SRC's total: COUNT - 1.
import struct
import sys

from wpp_crc32c import crc32c

FILE_HEADER = 32
CHUNK_HEADER = 16
BATCH_HEADER = 48
CHUNK_BATCH = 5
FID_SHIFT = 40
CTRL_REPEAT = 4


def repeat(src, dst, count):
    data = bytearray(open(src, "rb").read())
    off = FILE_HEADER
    while off + CHUNK_HEADER <= len(data):
        _, typ, _, length, _ = struct.unpack_from("<IHHII", data, off)
        payload = off + CHUNK_HEADER
        if typ == CHUNK_BATCH:
            nwords = struct.unpack_from("<I", data, payload + 44)[0]
            words = payload + BATCH_HEADER
            for i in range(nwords - 1):
                a, b = struct.unpack_from("<QQ", data, words + 8 * i)
                if a >> FID_SHIFT and b >> FID_SHIFT:
                    struct.pack_into("<Q", data, words + 8 * i + 8, CTRL_REPEAT << 32 | count)
                    crc = crc32c(data[off + 4:off + 12])
                    crc = crc32c(data[payload:payload + length], crc)
                    struct.pack_into("<I", data, off + 12, crc)
                    open(dst, "wb").write(data)
                    print(count - 1)
                    return
        off = payload + length
    sys.exit("no batch with two narrow records in a row in " + src)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "repeat":
        repeat(sys.argv[2], sys.argv[3], int(sys.argv[4], 0))
    else:
        sys.exit("usage: hostile-files.py repeat SRC DST COUNT")
