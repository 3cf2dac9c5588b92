/* SPDX-License-Identifier: MIT */
/* Adaptive binary range coder; see sequitur_rc.h. */
#include "analysis/grammar/sequitur_rc.h"

#include <stdlib.h>

#define TOP	   (1u << 24)
#define MOVE_BITS  4
#define PROB_TOTAL (1u << RC_PROB_BITS)

void rc_probs_init(uint16_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = RC_PROB_INIT;
}

void rc_gamma_init(struct rc_gamma_model *m)
{
	rc_probs_init(m->len, 64);
	rc_probs_init(m->high, 33);
	m->fine = 0;
}

void rc_gamma_init_fine(struct rc_gamma_model *m)
{
	rc_gamma_init(m);
	rc_probs_init(m->tree, 1u << RC_GAMMA_FINE_BITS);
	m->fine = 1;
}

static int fine_len(const struct rc_gamma_model *m, unsigned len)
{
	return m->fine && len <= RC_GAMMA_FINE_BITS;
}

static uint16_t *tree_node(struct rc_gamma_model *m, unsigned len, uint32_t prefix)
{
	return &m->tree[(1u << (len - 1)) - 1 + prefix];
}

void rc_enc_init(struct rc_enc *e)
{
	*e = (struct rc_enc){.range = UINT32_MAX, .cache_size = 1};
}

static void put_byte(struct rc_enc *e, uint8_t b)
{
	if (e->failed)
		return;
	if (e->n == e->cap) {
		size_t cap = e->cap ? 2 * e->cap : 4096;
		uint8_t *bigger = realloc(e->buf, cap);
		if (!bigger) {
			e->failed = 1;
			return;
		}
		e->buf = bigger;
		e->cap = cap;
	}
	e->buf[e->n++] = b;
}

/* Emit the top byte of low once it can no longer change; a run of 0xff
 * bytes is held back (cache_size) until a carry either ripples through
 * it or is ruled out. */
static void shift_low(struct rc_enc *e)
{
	if ((uint32_t)e->low < 0xff000000u || (e->low >> 32) != 0) {
		uint8_t carry = (uint8_t)(e->low >> 32), held = e->cache;
		do {
			put_byte(e, (uint8_t)(held + carry));
			held = 0xff;
		} while (--e->cache_size != 0);
		e->cache = (uint8_t)(e->low >> 24);
	}
	e->cache_size++;
	e->low = (e->low & 0x00ffffffu) << 8;
}

void rc_enc_bit(struct rc_enc *e, uint16_t *prob, unsigned bit)
{
	uint32_t bound = (e->range >> RC_PROB_BITS) * *prob;

	if (!bit) {
		e->range = bound;
		*prob += (PROB_TOTAL - *prob) >> MOVE_BITS;
	} else {
		e->low += bound;
		e->range -= bound;
		*prob -= *prob >> MOVE_BITS;
	}
	while (e->range < TOP) {
		e->range <<= 8;
		shift_low(e);
	}
}

void rc_enc_direct(struct rc_enc *e, uint32_t value, unsigned nbits)
{
	while (nbits--) {
		e->range >>= 1;
		if ((value >> nbits) & 1)
			e->low += e->range;
		while (e->range < TOP) {
			e->range <<= 8;
			shift_low(e);
		}
	}
}

void rc_enc_gamma(struct rc_enc *e, struct rc_gamma_model *m, uint64_t value)
{
	unsigned len = 0;

	while (len < 64 && (value >> len) != 0)
		len++;
	/* Values are below 2^63 (callers code counts and indices), so len
	 * fits the tree's 6 bits. */
	unsigned node = 1;
	for (int i = 5; i >= 0; i--) {
		unsigned bit = (len >> i) & 1;
		rc_enc_bit(e, &m->len[node], bit);
		node = node * 2 + bit;
	}
	if (len < 2)
		return;
	if (fine_len(m, len)) {
		/* Small values (ranks, distances) are skewed in every bit. */
		uint32_t prefix = 1;
		for (int i = (int)len - 2; i >= 0; i--) {
			unsigned bit = (unsigned)(value >> i) & 1;
			rc_enc_bit(e, tree_node(m, len, prefix), bit);
			prefix = prefix * 2 + bit;
		}
		return;
	}
	rc_enc_bit(e, &m->high[len < 33 ? len : 32], (unsigned)(value >> (len - 2)) & 1);
	for (int i = (int)len - 3; i >= 0; i -= 32) {
		unsigned n = i + 1 > 32 ? 32 : (unsigned)i + 1;
		rc_enc_direct(e, (uint32_t)(value >> (i + 1 - n)), n);
	}
}

int rc_enc_finish(struct rc_enc *e)
{
	for (int i = 0; i < 5; i++)
		shift_low(e);
	return e->failed ? -1 : 0;
}

static uint8_t next_byte(struct rc_dec *d)
{
	if (d->p == d->end) {
		d->overrun++;
		return 0;
	}
	return *d->p++;
}

int rc_dec_init(struct rc_dec *d, const uint8_t *buf, size_t len)
{
	*d = (struct rc_dec){.p = buf, .end = buf + len, .range = UINT32_MAX};
	/* The encoder's first byte is always the initial (zero) cache. */
	if (next_byte(d) != 0)
		return -1;
	for (int i = 0; i < 4; i++)
		d->code = d->code << 8 | next_byte(d);
	return d->overrun ? -1 : 0;
}

unsigned rc_dec_bit(struct rc_dec *d, uint16_t *prob)
{
	uint32_t bound = (d->range >> RC_PROB_BITS) * *prob;
	unsigned bit;

	if (d->code < bound) {
		d->range = bound;
		*prob += (PROB_TOTAL - *prob) >> MOVE_BITS;
		bit = 0;
	} else {
		d->code -= bound;
		d->range -= bound;
		*prob -= *prob >> MOVE_BITS;
		bit = 1;
	}
	while (d->range < TOP) {
		d->range <<= 8;
		d->code = d->code << 8 | next_byte(d);
	}
	return bit;
}

uint32_t rc_dec_direct(struct rc_dec *d, unsigned nbits)
{
	uint32_t v = 0;

	while (nbits--) {
		d->range >>= 1;
		unsigned bit = d->code >= d->range;
		if (bit)
			d->code -= d->range;
		v = v << 1 | bit;
		while (d->range < TOP) {
			d->range <<= 8;
			d->code = d->code << 8 | next_byte(d);
		}
	}
	return v;
}

uint64_t rc_dec_gamma(struct rc_dec *d, struct rc_gamma_model *m, uint64_t max)
{
	unsigned len = 0, node = 1;

	for (int i = 5; i >= 0; i--) {
		unsigned bit = rc_dec_bit(d, &m->len[node]);
		len = len << 1 | bit;
		node = node * 2 + bit;
	}
	if (len < 2)
		return len;
	if (fine_len(m, len)) {
		uint32_t prefix = 1;
		for (unsigned i = 1; i < len; i++)
			prefix = prefix * 2 + rc_dec_bit(d, tree_node(m, len, prefix));
		return prefix > max ? max + 1 : prefix;
	}
	uint64_t v = 2 | rc_dec_bit(d, &m->high[len < 33 ? len : 32]);
	for (int i = (int)len - 3; i >= 0; i -= 32) {
		unsigned n = i + 1 > 32 ? 32 : (unsigned)i + 1;
		v = v << n | rc_dec_direct(d, n);
	}
	return v > max ? max + 1 : v;
}
