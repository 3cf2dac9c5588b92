#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""keepup-wpp.py — an independent reader of .wpp BATCH/BATCH_Z chunks for
tests/e2e/keepup-*.sh: the chunk walk, CRC32C, the batch heads and the
word codec's token layouts (the order-1 tokens, the match stage's) are written here from docs/wpp-file-format.md,
not from the C code (zstd frames are opened by the zstd command; LZ4
blocks by lz4_block() below, from LZ4's block format description).

  keepup-wpp.py version FILE          the file header's version
  keepup-wpp.py words FILE            per thread (pid gen tid), its words in
                                      seq order: "pid gen tid w w w ..."
  keepup-wpp.py chunks FILE           BATCH_Z chunks: "index offset batches words codec"
  keepup-wpp.py codecs FILE           BATCH_Z chunks per codec: "codec count" lines
  keepup-wpp.py damage FILE OUT MODE K
        write OUT = FILE with BATCH_Z chunk K damaged and print
        "batches words records" of the words that damage loses:
        flip      one bit of its packed words (the chunk CRC fails)
        craft     its packed words one byte short, every length and CRC
                  made to match: a well-formed chunk whose words do not
                  decode
        truncate  the file cut inside that chunk's packed words; also
                  writes OUT.before, the file cut where that chunk begins
        heads     one bit of its heads (prints what follows unread)
"""
import struct
import subprocess
import sys

from wpp_crc32c import crc32c

CHUNK_MAGIC = 0x4B435057
BATCH, BATCH_Z = 5, 14
HDR = struct.Struct("<IHHII")  # magic type flags length crc
BATCH_HEAD = struct.Struct("<IIQQIIQII")  # pid tid seq parent_seq parent_off flags time gen nwords
Z_FIXED = struct.Struct("<IIII")  # nbatches codec packed_len head_crc
MASK64 = (1 << 64) - 1


def chunks(data):
    pos = 32
    while pos + HDR.size <= len(data):
        magic, typ, flags, length, crc = HDR.unpack_from(data, pos)
        if magic != CHUNK_MAGIC or pos + HDR.size + length > len(data):
            return
        yield pos, typ, data[pos + HDR.size:pos + HDR.size + length]
        pos += HDR.size + length


def varint(buf, i):
    v = shift = 0
    while True:
        b = buf[i]
        i += 1
        v |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return v, i


def pred_slot(prev):
    return ((prev * 0x9E3779B97F4A7C15) & MASK64) >> (64 - 12)


def dict_slot(w):
    return ((w * 0xC2B2AE3D27D4EB4F) & MASK64) >> (64 - 10)


def literal(tok, i, v, last_fid, dct):
    """A literal token (kind 2, both layouts): the fid as a zigzag delta
    against the last literal's, then the payload; it enters the dictionary.
    Returns the word, its fid and where the next token starts."""
    fid = last_fid + ((v >> 1) ^ -(v & 1))
    payload, i = varint(tok, i)
    w = fid << 40 | payload
    dct[dict_slot(w)] = w
    return w, fid, i


def tokens_to_words(tok):
    """The token layout of docs/wpp-file-format.md (BATCH_Z)."""
    pred, dct = {}, {}
    prev, last_fid, out, i = 0, 0, [], 0
    while i < len(tok):
        t, i = varint(tok, i)
        kind, v = t & 3, t >> 2
        if kind == 0:
            for _ in range(v + 1):
                w = pred.get(pred_slot(prev), (0, 0))[0]
                out.append(w)
                prev = w
            continue
        if kind == 1:
            w = dct.get(v, 0)
        elif kind == 2:
            w, last_fid, i = literal(tok, i, v, last_fid, dct)
        else:
            assert v == 0, "kind 3 carries no value"
            w = pred.get(pred_slot(prev), (0, 0))[1]
        s = pred.get(pred_slot(prev), (0, 0))
        pred[pred_slot(prev)] = (w, s[0])
        out.append(w)
        prev = w
    return out


def match_tokens_to_words(tok):
    """The match stage's token layout (codecs 4-6, docs/wpp-file-format.md):
    copies of earlier words of the stream, literals and dictionary hits."""
    dct, last_d, last_fid, out, i = {}, 0, 0, [], 0
    while i < len(tok):
        t, i = varint(tok, i)
        kind, v = t & 3, t >> 2
        if kind in (0, 1):
            if kind == 1:
                d, i = varint(tok, i)
                last_d = d + 1
            assert 0 < last_d <= len(out), "match distance"
            for _ in range(v + 4):  # may overlap what it copies
                out.append(out[-last_d])
            continue
        if kind == 2:
            w, last_fid, i = literal(tok, i, v, last_fid, dct)
        else:
            w = dct.get(v, 0)
        out.append(w)
    return out


def lz4_block(src, size):
    """An LZ4 block of exactly size bytes: sequences of a token byte (the
    literal count in its high nibble, the match length - 4 in its low one,
    15 meaning more in the bytes that follow, each adding up to 255), the
    literals, a 2-byte little-endian offset back into the output and the
    match; the last sequence has literals only."""
    out, i = bytearray(), 0

    def more(n):
        nonlocal i
        if n == 15:
            while True:
                b = src[i]
                i += 1
                n += b
                if b != 255:
                    break
        return n

    while True:
        tok = src[i]
        i += 1
        nlit = more(tok >> 4)
        out += src[i:i + nlit]
        i += nlit
        if i == len(src):
            break
        off = src[i] | src[i + 1] << 8
        i += 2
        assert 0 < off <= len(out), "LZ4 offset"
        mlen = more(tok & 15) + 4
        for _ in range(mlen):  # may overlap what it copies
            out.append(out[-off])
    assert len(out) == size, "LZ4 block size"
    return bytes(out)


def batch_z(payload):
    nb, codec, packed_len, head_crc = Z_FIXED.unpack_from(payload, 0)
    heads = [BATCH_HEAD.unpack_from(payload, 16 + k * BATCH_HEAD.size) for k in range(nb)]
    hend = 16 + nb * BATCH_HEAD.size
    assert crc32c(payload[16:hend], crc32c(payload[:12])) == head_crc, "head CRC"
    packed = payload[hend:]
    assert len(packed) == packed_len
    assert 1 <= codec <= 6, "codec %d" % codec
    second = (codec - 1) % 3  # 0 none, 1 zstd, 2 LZ4; codecs 4-6: the match stage's
    if second == 1:
        tok = subprocess.run(["zstd", "-dcq"], input=packed, stdout=subprocess.PIPE,
                             check=True).stdout
    elif second == 2:
        size, i = varint(packed, 0)
        tok = lz4_block(packed[i:], size)
    else:
        tok = packed
    words = (match_tokens_to_words if codec >= 4 else tokens_to_words)(tok)
    assert len(words) == sum(h[8] for h in heads), "word count"
    return heads, hend, words


def records(words):
    n = 0
    for w in words:
        if w >> 40:
            n += 1
        elif (w >> 32) & 0xFF == 4:  # REPEAT
            n += w & 0xFFFFFFFF
    return n


def all_batches(data):
    for pos, typ, payload in chunks(data):
        if typ == BATCH:
            h = BATCH_HEAD.unpack_from(payload, 0)
            yield h, list(struct.unpack_from("<%dQ" % h[8], payload, BATCH_HEAD.size))
        elif typ == BATCH_Z:
            heads, _, words = batch_z(payload)
            at = 0
            for h in heads:
                yield h, words[at:at + h[8]]
                at += h[8]


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    data = bytearray(open(path, "rb").read())
    if cmd == "version":
        print(struct.unpack_from("<I", data, 8)[0])
    elif cmd == "words":
        streams = {}
        for h, words in all_batches(data):
            streams.setdefault((h[0], h[7], h[1]), []).append((h[2], words))
        for (pid, gen, tid), bs in sorted(streams.items()):
            ws = [w for _, b in sorted(bs, key=lambda x: x[0]) for w in b]
            print(pid, gen, tid, " ".join("%x" % w for w in ws))
    elif cmd == "chunks":
        k = 0
        for pos, typ, payload in chunks(data):
            if typ == BATCH_Z:
                heads, _, words = batch_z(payload)
                print(k, pos, len(heads), len(words), Z_FIXED.unpack_from(payload, 0)[1])
                k += 1
    elif cmd == "codecs":
        n = {}
        for pos, typ, payload in chunks(data):
            if typ == BATCH_Z:
                c = Z_FIXED.unpack_from(payload, 0)[1]
                n[c] = n.get(c, 0) + 1
        for c in sorted(n):
            print(c, n[c])
    elif cmd == "damage":
        out, mode, want = sys.argv[3], sys.argv[4], int(sys.argv[5])
        k = 0
        for pos, typ, payload in chunks(data):
            if typ != BATCH_Z:
                continue
            if k < want:
                k += 1
                continue
            heads, hend, words = batch_z(payload)
            body = pos + HDR.size
            mid = body + hend + (len(payload) - hend) // 2
            if mode == "flip":
                data[mid] ^= 0x10
            elif mode == "craft":
                end = body + len(payload)
                del data[end - 1]
                struct.pack_into("<I", data, body + 8, len(payload) - hend - 1)
                hcrc = crc32c(bytes(data[body + 16:body + hend]), crc32c(bytes(data[body:body + 12])))
                struct.pack_into("<I", data, body + 12, hcrc)
                struct.pack_into("<I", data, pos + 8, len(payload) - 1)
                crc = crc32c(bytes(data[body:end - 1]), crc32c(bytes(data[pos + 4:pos + 12])))
                struct.pack_into("<I", data, pos + 12, crc)
            elif mode == "truncate":
                open(out + ".before", "wb").write(data[:pos])
                del data[mid:]
            elif mode == "heads":
                data[body + 20] ^= 0x01
            open(out, "wb").write(data)
            print(len(heads), len(words), records(words))
            return
        sys.exit("no BATCH_Z chunk %d" % want)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
