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
