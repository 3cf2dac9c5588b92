/* SPDX-License-Identifier: MIT */
/*
 * ngram_ref.c — brute-force n-gram counting (see ngram_ref.h).
 */
#include "ngram_ref.h"

#include <stdlib.h>

struct window {
	size_t pos;
	unsigned n;
};

struct ngram_ref {
	struct ev *s; /* all streams, marks between */
	size_t len;
	struct window *w;
	size_t nw;
	size_t *first; /* start index in w[] of each distinct n-gram, plus nw at the end */
	size_t ndistinct;
};

static const struct ev *sort_stream;

static int ev_cmp(const struct ev *a, const struct ev *b)
{
	if (a->fid != b->fid)
		return a->fid < b->fid ? -1 : 1;
	return a->value < b->value ? -1 : a->value > b->value;
}

static int seq_cmp(const struct ev *a, unsigned na, const struct ev *b, unsigned nb)
{
	for (unsigned i = 0; i < na && i < nb; i++) {
		int c = ev_cmp(&a[i], &b[i]);
		if (c)
			return c;
	}
	return na < nb ? -1 : na > nb;
}

static int win_cmp(const void *x, const void *y)
{
	const struct window *a = x, *b = y;
	return seq_cmp(sort_stream + a->pos, a->n, sort_stream + b->pos, b->n);
}

struct ngram_ref *ngram_ref_build(const struct ev *const *streams, const size_t *lens,
				  size_t nstreams, unsigned k)
{
	struct ngram_ref *r = calloc(1, sizeof(*r));
	size_t total = 0;

	for (size_t i = 0; i < nstreams; i++)
		total += lens[i] + 1;
	r->s = malloc((total + 1) * sizeof(*r->s));
	r->w = malloc((total * k + 1) * sizeof(*r->w));
	for (size_t i = 0; i < nstreams; i++) {
		for (size_t j = 0; j < lens[i]; j++)
			r->s[r->len++] = streams[i][j];
		r->s[r->len++] = (struct ev){.mark = 1};
	}
	for (size_t p = 0; p < r->len; p++)
		for (unsigned n = 1; n <= k && p + n <= r->len; n++) {
			if (r->s[p + n - 1].mark)
				break;
			r->w[r->nw++] = (struct window){p, n};
		}
	sort_stream = r->s;
	qsort(r->w, r->nw, sizeof(*r->w), win_cmp);
	r->first = malloc((r->nw + 1) * sizeof(*r->first));
	for (size_t i = 0; i < r->nw; i++)
		if (i == 0 || win_cmp(&r->w[i - 1], &r->w[i]))
			r->first[r->ndistinct++] = i;
	r->first[r->ndistinct] = r->nw;
	return r;
}

uint64_t ngram_ref_count(const struct ngram_ref *r, const uint32_t *fids, const uint64_t *values,
			 unsigned n)
{
	struct ev key[64];
	size_t lo = 0, hi = r->ndistinct;

	for (unsigned i = 0; i < n; i++)
		key[i] = (struct ev){.fid = fids[i], .value = values[i]};
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct window *w = &r->w[r->first[mid]];
		int c = seq_cmp(r->s + w->pos, w->n, key, n);
		if (c == 0)
			return r->first[mid + 1] - r->first[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

size_t ngram_ref_distinct(const struct ngram_ref *r)
{
	return r->ndistinct;
}

void ngram_ref_each(const struct ngram_ref *r,
		    void (*fn)(void *ctx, const struct ev *gram, unsigned n, uint64_t count),
		    void *ctx)
{
	for (size_t d = 0; d < r->ndistinct; d++) {
		const struct window *w = &r->w[r->first[d]];
		fn(ctx, r->s + w->pos, w->n, r->first[d + 1] - r->first[d]);
	}
}

void ngram_ref_free(struct ngram_ref *r)
{
	if (!r)
		return;
	free(r->s);
	free(r->w);
	free(r->first);
	free(r);
}
