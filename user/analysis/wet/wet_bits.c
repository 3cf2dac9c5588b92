/* SPDX-License-Identifier: MIT */
/*
 * wet_bits.c — the bit-field stack under the bidirectional stream coder
 * (wet_bits.h).  Fields are stored least significant bit first, so a field
 * that straddles two words is two shifts, and the serialized form is the
 * words' little-endian bytes.
 */
#include "analysis/wet/wet_bits.h"

#include <stdlib.h>
#include <string.h>

static uint64_t low_mask(unsigned n)
{
	return n >= 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1;
}

static int reserve_words(struct wet_bits *b, size_t words)
{
	size_t cap = b->cap_words ? b->cap_words : 4;
	uint64_t *bigger;

	if (words <= b->cap_words)
		return 0;
	while (cap < words)
		cap *= 2;
	bigger = realloc(b->w, cap * sizeof(*bigger));
	if (!bigger)
		return -1;
	memset(bigger + b->cap_words, 0, (cap - b->cap_words) * sizeof(*bigger));
	b->w = bigger;
	b->cap_words = cap;
	return 0;
}

int wet_bits_push(struct wet_bits *b, uint64_t v, unsigned n)
{
	size_t word = b->nbits / 64;
	unsigned shift = b->nbits % 64;

	if (reserve_words(b, (b->nbits + n + 63) / 64) < 0)
		return -1;
	v &= low_mask(n);
	/* Bits above nbits are kept zero, so a field can be or-ed in. */
	b->w[word] |= v << shift;
	if (shift + n > 64)
		b->w[word + 1] |= v >> (64 - shift);
	b->nbits += n;
	return 0;
}

int wet_bits_peek(const struct wet_bits *b, unsigned n, uint64_t *v)
{
	size_t start, word;
	unsigned shift;
	uint64_t x;

	if (n > b->nbits)
		return -1;
	start = b->nbits - n;
	word = start / 64;
	shift = start % 64;
	x = b->w[word] >> shift;
	if (shift + n > 64)
		x |= b->w[word + 1] << (64 - shift);
	*v = x & low_mask(n);
	return 0;
}

int wet_bits_pop(struct wet_bits *b, unsigned n, uint64_t *v)
{
	size_t start;

	if (wet_bits_peek(b, n, v) < 0)
		return -1;
	start = b->nbits - n;
	/* Clear the popped bits: the invariant push relies on. */
	b->w[start / 64] &= low_mask(start % 64);
	if (start % 64 + n > 64)
		b->w[start / 64 + 1] = 0;
	b->nbits = start;
	return 0;
}

int wet_bits_load(struct wet_bits *b, const uint8_t *bytes, size_t nbits)
{
	size_t nbytes = (nbits + 7) / 8;
	size_t words = (nbits + 63) / 64;

	if (reserve_words(b, words) < 0)
		return -1;
	if (b->w)
		memset(b->w, 0, b->cap_words * sizeof(*b->w));
	for (size_t i = 0; i < nbytes; i++)
		b->w[i / 8] |= (uint64_t)bytes[i] << (8 * (i % 8));
	if (nbits % 64)
		b->w[words - 1] &= low_mask(nbits % 64);
	b->nbits = nbits;
	return 0;
}

void wet_bits_bytes(const struct wet_bits *b, uint8_t *out)
{
	size_t nbytes = (b->nbits + 7) / 8;

	for (size_t i = 0; i < nbytes; i++)
		out[i] = (uint8_t)(b->w[i / 8] >> (8 * (i % 8)));
}

void wet_bits_shrink(struct wet_bits *b)
{
	size_t words = (b->nbits + 63) / 64;
	uint64_t *smaller;

	if (words == b->cap_words)
		return;
	if (!words) {
		wet_bits_free(b);
		return;
	}
	smaller = realloc(b->w, words * sizeof(*smaller));
	if (!smaller)
		return;
	b->w = smaller;
	b->cap_words = words;
}

void wet_bits_free(struct wet_bits *b)
{
	free(b->w);
	*b = (struct wet_bits){0};
}
