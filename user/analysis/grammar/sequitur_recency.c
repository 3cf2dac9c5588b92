/* SPDX-License-Identifier: MIT */
/* Uncapped move-to-front ranks in O(log n); see sequitur_recency.h. */
#include "analysis/grammar/sequitur_recency.h"

#include <stdlib.h>
#include <string.h>

#define MAX_STAMPS (1u << 31)

static void fen_add(uint32_t *fen, uint32_t cap, uint32_t i, int32_t delta)
{
	for (; i <= cap; i += i & -i)
		fen[i] += (uint32_t)delta;
}

static uint32_t fen_prefix(const uint32_t *fen, uint32_t i)
{
	uint32_t sum = 0;

	for (; i; i -= i & -i)
		sum += fen[i];
	return sum;
}

/* Double the capacity.  For a tree over a power of two, the nodes up to the
 * old capacity cover the same ranges as before, the new top node covers
 * everything (every live stamp is old), and the nodes between cover only
 * new, empty stamps: a copy, not a rebuild. */
static int grow(struct recency *r)
{
	uint32_t cap = r->cap ? r->cap * 2 : 16;
	uint32_t *fen = calloc((size_t)cap + 1, sizeof(*fen));
	uint32_t *sym = realloc(r->sym, ((size_t)cap + 1) * sizeof(*sym));

	if (!fen || !sym) {
		free(fen);
		if (sym)
			r->sym = sym;
		return -1;
	}
	if (r->cap)
		memcpy(fen, r->fen, ((size_t)r->cap + 1) * sizeof(*fen));
	fen[cap] = r->n;
	free(r->fen);
	r->fen = fen;
	r->sym = sym;
	r->cap = cap;
	return 0;
}

int recency_touch(struct recency *r, uint32_t *stamp, uint32_t s)
{
	if (r->now + 1 >= MAX_STAMPS || (r->now + 1 > r->cap && grow(r) < 0))
		return -1;
	if (*stamp)
		fen_add(r->fen, r->cap, *stamp, -1);
	else
		r->n++;
	*stamp = ++r->now;
	r->sym[*stamp] = s;
	fen_add(r->fen, r->cap, *stamp, 1);
	return 0;
}

uint32_t recency_rank(const struct recency *r, uint32_t stamp)
{
	return r->n - fen_prefix(r->fen, stamp);
}

uint32_t recency_at(const struct recency *r, uint32_t rank)
{
	/* The (n - rank)-th live stamp in increasing order. */
	uint32_t k = r->n - rank, pos = 0;

	for (uint32_t step = r->cap; step; step >>= 1)
		if (pos + step <= r->cap && r->fen[pos + step] < k) {
			pos += step;
			k -= r->fen[pos];
		}
	return r->sym[pos + 1];
}

void recency_free(struct recency *r)
{
	free(r->fen);
	free(r->sym);
	memset(r, 0, sizeof(*r));
}
