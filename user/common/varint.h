/* SPDX-License-Identifier: MIT */
/*
 * varint.h — the LEB128 varint every format of ours writes integers in
 * (7 bits a byte, low bits first, the high bit set on every byte but the
 * last): the word codec's tokens, the grammar and WET serializations.
 * One writer and one size so that the formats cannot drift apart on how
 * an integer is spelled.  Readers stay with their formats: each checks
 * its own bounds and reports damage its own way.
 */
#ifndef WPP_VARINT_H
#define WPP_VARINT_H

#include <stddef.h>
#include <stdint.h>

/* The most bytes a 64-bit value takes. */
#define VARINT_MAX 10

/* Writes v at p (room for VARINT_MAX bytes); returns the byte after it. */
static inline uint8_t *varint_put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* varint_put, without a branch a byte for v < 2^28 (the match stage's
 * lengths and distances: the byte loop's exit mispredicted on a third of
 * its distances).  Writes 4 bytes at p whatever v's size (room for
 * VARINT_MAX bytes, as varint_put). */
static inline uint8_t *varint_put_small(uint8_t *p, uint64_t v)
{
	if (v >= (UINT64_C(1) << 28))
		return varint_put(p, v);
	uint32_t x = (uint32_t)v, n = 1 + (x >= 0x80) + (x >= 0x4000) + (x >= 0x200000);
	uint32_t b = (x & 0x7f) | (x << 1 & 0x7f00) | (x << 2 & 0x7f0000) | (x << 3 & 0x7f000000);

	b |= 0x808080u & ((UINT32_C(1) << (8 * (n - 1))) - 1);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	__builtin_memcpy(p, &b, 4); /* one store */
#else
	for (int k = 0; k < 4; k++)
		p[k] = (uint8_t)(b >> (8 * k));
#endif
	return p + n;
}

/* Bytes varint_put writes for v. */
static inline size_t varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

#endif
