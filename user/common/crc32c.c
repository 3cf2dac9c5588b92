/* SPDX-License-Identifier: MIT */
/*
 * CRC-32C.  The collector checksums every byte it writes, so this sits on the
 * recording hot path: use the SSE4.2 crc32 instruction when the CPU has it
 * (8 bytes per instruction), else a table.  Both give identical results; the
 * unit tests check them against each other.
 */
#include "crc32c.h"

#include <pthread.h>
#include <string.h>

static uint32_t crc_table[256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;
static int crc_have_sse42;

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
__attribute__((target("sse4.2"))) static uint32_t crc32c_hw(uint32_t crc, const void *buf,
							     size_t len)
{
	const unsigned char *p = buf;
	uint64_t c = ~crc;

	for (; len >= 8; len -= 8, p += 8) {
		uint64_t v;
		memcpy(&v, p, 8); /* unaligned-safe */
		c = __builtin_ia32_crc32di(c, v);
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
