/* SPDX-License-Identifier: MIT */
/*
 * CRC-32C.  The collector checksums every byte it writes, so this sits on the
 * recording hot path: use the SSE4.2 crc32 instruction when the CPU has it
 * (8 bytes per instruction), else a table.  Both give identical results; the
 * unit tests check them against each other.
 *
 * One chain of crc32 instructions is latency bound (3 cycles each, one
 * issued per cycle), so long buffers are cut into three lanes checksummed in
 * an interleaved loop and the lanes' states combined afterwards.  The raw
 * CRC state is linear over GF(2): the state after lane A then lane B equals
 * "A's state advanced over |B| zero bytes" xor "B's state from zero".
 * Advancing over a fixed lane length is a linear map of 32 bits, kept as four
 * byte-indexed tables built once from its action on the 32 unit vectors.
 */
#include "common/crc32c.h"

#include <pthread.h>
#include <string.h>

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;
static int crc_have_sse42;
#if defined(__x86_64__)
static void build_shift_tables(void);
#endif

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc_table[i] = c;
	}
#if defined(__x86_64__)
	__builtin_cpu_init();
	crc_have_sse42 = __builtin_cpu_supports("sse4.2");
	if (crc_have_sse42)
		build_shift_tables();
#endif
}

uint32_t wpp_crc32c_table(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	pthread_once(&crc_once, crc_init);
	crc = ~crc;
	while (len--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

#if defined(__x86_64__)
/* Bytes per lane of the interleaved loop: long enough that the two table
 * shifts per round cost nothing next to it, short enough that chunks of a
 * few KiB already take the fast path. */
enum { CRC_LANE = 1024 };

/* shift_tables[0] advances a raw state over CRC_LANE zero bytes,
 * shift_tables[1] over 2 * CRC_LANE. */
static uint32_t shift_tables[2][4][256];

__attribute__((target("sse4.2"))) static uint64_t
crc32c_raw_words(uint64_t c, const unsigned char *p, size_t nwords)
{
	for (size_t i = 0; i < nwords; i++, p += 8) {
		uint64_t v;
		memcpy(&v, p, 8); /* unaligned-safe */
		c = __builtin_ia32_crc32di(c, v);
	}
	return c;
}

static uint32_t shift_state(uint32_t (*t)[256], uint32_t x)
{
	return t[0][x & 0xff] ^ t[1][(x >> 8) & 0xff] ^ t[2][(x >> 16) & 0xff] ^ t[3][x >> 24];
}

static void build_shift_tables(void)
{
	static const unsigned char zeros[2 * CRC_LANE];
	for (int which = 0; which < 2; which++) {
		uint32_t basis[32];
		size_t nwords = (size_t)(which + 1) * CRC_LANE / 8;
		for (int bit = 0; bit < 32; bit++)
			basis[bit] = (uint32_t)crc32c_raw_words(1u << bit, zeros, nwords);
		for (int byte = 0; byte < 4; byte++)
			for (uint32_t v = 0; v < 256; v++) {
				uint32_t image = 0;
				for (int b = 0; b < 8; b++)
					if (v & (1u << b))
						image ^= basis[byte * 8 + b];
				shift_tables[which][byte][v] = image;
			}
	}
}

__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const void *buf,
							    size_t len)
{
	const unsigned char *p = buf;
	uint64_t c = ~crc;

	for (; len >= 3 * CRC_LANE; len -= 3 * CRC_LANE, p += 3 * CRC_LANE) {
		uint64_t c1 = 0, c2 = 0;
		const unsigned char *p1 = p + CRC_LANE, *p2 = p + 2 * CRC_LANE;
		for (size_t off = 0; off < CRC_LANE; off += 8) {
			uint64_t v0, v1, v2;
			memcpy(&v0, p + off, 8);
			memcpy(&v1, p1 + off, 8);
			memcpy(&v2, p2 + off, 8);
			c = __builtin_ia32_crc32di(c, v0);
			c1 = __builtin_ia32_crc32di(c1, v1);
			c2 = __builtin_ia32_crc32di(c2, v2);
		}
		c = shift_state(shift_tables[1], (uint32_t)c) ^
		    shift_state(shift_tables[0], (uint32_t)c1) ^ (uint32_t)c2;
	}
	if (len >= 8) { /* (p may be NULL when len is 0: no pointer arithmetic then) */
		c = crc32c_raw_words(c, p, len / 8);
		p += len / 8 * 8;
		len %= 8;
	}
	uint32_t c32 = (uint32_t)c;
	while (len--)
		c32 = __builtin_ia32_crc32qi(c32, *p++);
	return ~c32;
}
#endif

uint32_t wpp_crc32c(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&crc_once, crc_init);
#if defined(__x86_64__)
	if (crc_have_sse42)
		return crc32c_hw(crc, buf, len);
#endif
	return wpp_crc32c_table(crc, buf, len);
}
