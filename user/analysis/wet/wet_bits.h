/* SPDX-License-Identifier: MIT */
/*
 * wet_bits.h — a stack of bit fields, the storage of one side of a
 * bidirectional compressed stream (docs/wet.md, "Tier 2").
 *
 * The bidirectional coder keeps the codes left of its cursor on one stack
 * and the codes right of it on another; a step pops a code from one and
 * pushes a code onto the other.  Codes have variable length, so a code is
 * pushed payload first and its header last: a pop reads the header, which
 * says how long the rest is.  Pushing and popping are O(1) (amortized for
 * growth); a pop past the bottom is reported, never performed, so a
 * corrupt stream cannot make a reader leave the buffer.
 */
#ifndef WPP_WET_BITS_H
#define WPP_WET_BITS_H

#include <stddef.h>
#include <stdint.h>

struct wet_bits {
	uint64_t *w;	  /* bit i is bit (i % 64) of w[i / 64] */
	size_t nbits;	  /* bits on the stack */
	size_t cap_words; /* allocated words */
};

/* Push the low n bits of v (1 <= n <= 64).  0, or -1 when out of memory. */
int wet_bits_push(struct wet_bits *b, uint64_t v, unsigned n);
/* Pop the top n bits (1 <= n <= 64) into *v, in the order they were pushed.
 * 0, or -1 when fewer than n bits are on the stack (nothing changes). */
int wet_bits_pop(struct wet_bits *b, unsigned n, uint64_t *v);
/* Read the top n bits (1 <= n <= 64) as wet_bits_pop would, leaving them.
 * 0, or -1 when fewer than n bits are on the stack. */
int wet_bits_peek(const struct wet_bits *b, unsigned n, uint64_t *v);
/* Replace the contents by nbits bits read from bytes (little-endian words,
 * as wet_bits_bytes writes them).  0, or -1 when out of memory. */
int wet_bits_load(struct wet_bits *b, const uint8_t *bytes, size_t nbits);
/* Write the stack's ceil(nbits / 8) bytes to out (unused high bits zero). */
void wet_bits_bytes(const struct wet_bits *b, uint8_t *out);
/* Give back the memory above the bits in use (a stack at rest keeps only
 * its codes).  Cannot fail: a failed shrink keeps the larger buffer. */
void wet_bits_shrink(struct wet_bits *b);
void wet_bits_free(struct wet_bits *b);

#endif
