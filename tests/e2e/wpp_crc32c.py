"""CRC32C (Castagnoli, reflected polynomial 0x82F63B78), as the .wpp format
computes it over chunk headers and payloads (docs/wpp-file-format.md).

Written out here, bit by bit, so the tests' Python readers and forgers of
.wpp files check the format against an implementation independent of
user/common/crc32c.c.  Slow, and fine for test-sized data.
"""


def _make_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


_TABLE = _make_table()


def crc32c(data, crc=0):
    """The CRC of data, continuing from crc (the value of an earlier part)."""
    crc ^= 0xFFFFFFFF
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF
