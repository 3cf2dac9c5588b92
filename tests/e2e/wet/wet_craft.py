#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""wet_craft.py IN.wpp OUT.wpp MODE [SEED] — a crafted copy of a recording
whose stored WET (the WET chunks after END, docs/wet.md) is damaged in a
way no checksum catches: the change is made, then the stored WET's own
CRC32C, its parts' blob checksum and the chunk checksums are made right
again, so only the WET reader's own checks stand between the bytes and a
query (tests/e2e/wet-query.sh).  MODE: version (a future one), oldversion
(version 1, which a reader builds again rather than refuses), nodes (a node count the
data cannot hold), truncate (the last 100 bytes gone), streamlen (a stream
longer than the data), streamref (a stream naming one not stored before
it), flip (SEED picks a byte and a bit)."""
import random
import struct
import sys

POLY = 0x82F63B78
TABLE = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ POLY if c & 1 else c >> 1
    TABLE.append(c)


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


WET = 15
HDR = struct.Struct("<IHHII")       # magic, type, flags, length, crc32c
PART = struct.Struct("<IIIIIIQQ")   # pid tid gen part nparts blob_crc total_len offset


def main():
    src, dst, mode = sys.argv[1:4]
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    data = open(src, "rb").read()
    pos, chunks = 32, []  # after the file header
    while pos + HDR.size <= len(data):
        magic, typ, flags, length, crc = HDR.unpack_from(data, pos)
        chunks.append((pos, typ, flags, data[pos + HDR.size:pos + HDR.size + length]))
        pos += HDR.size + length
    wets = [c for c in chunks if c[1] == WET]
    if not wets:
        print("no WET chunk", file=sys.stderr)
        return 1
    first = wets[0][0]
    part = list(PART.unpack_from(wets[0][3]))
    blob = bytearray(b"".join(c[3][PART.size:] for c in wets if PART.unpack_from(c[3])[5] == part[5]))
    body = blob[:-4]
    if mode == "version":
        body[8:12] = struct.pack("<I", 99)
    elif mode == "oldversion":
        body[8:12] = struct.pack("<I", 1)
    elif mode == "nodes":
        body[28:32] = struct.pack("<I", 0x7FFFFFFF)
    elif mode == "truncate":
        body = body[:-100]
    elif mode == "streamlen":
        # the flow stream's length (a varint): after the header (32 + 32 +
        # sizes) and the gaps
        ngaps = struct.unpack_from("<Q", body, 40)[0]
        off = end = 64 + 3 * 4 * 8 + 8 * ngaps
        while body[end] & 0x80:
            end += 1
        body[off:end + 1] = bytes([0x80, 0x80, 0x80, 0x80, 0x80, 0x20])  # 2^40
    elif mode == "streamref":
        # the flow stream (ordinal 0) made a reference to ordinal 5: a
        # stream may only name one stored before it
        ngaps = struct.unpack_from("<Q", body, 40)[0]
        off = end = 64 + 3 * 4 * 8 + 8 * ngaps
        n, shift = 0, 0
        while True:
            n |= (body[end] & 0x7F) << shift
            shift += 7
            if not body[end] & 0x80:
                break
            end += 1
        body[off:end + 1 + n] = bytes([0, 5])
    elif mode == "flip":
        r = random.Random(seed)
        i = r.randrange(len(body))
        body[i] ^= 1 << r.randrange(8)
    else:
        print("unknown mode", file=sys.stderr)
        return 2
    blob = bytes(body) + struct.pack("<I", crc32c(bytes(body)))
    part[3], part[4], part[5], part[6], part[7] = 0, 1, crc32c(blob), len(blob), 0
    payload = PART.pack(*part) + blob
    typ_flags_len = struct.pack("<HHI", WET, 0, len(payload))
    out = data[:first] + HDR.pack(0x4B435057, WET, 0, len(payload),
                                  crc32c(payload, crc32c(typ_flags_len))) + payload
    open(dst, "wb").write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
