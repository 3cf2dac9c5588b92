/* SPDX-License-Identifier: MIT */
/* tpp_quality.c — AoDF of a TPP profile against a full one (see tpp_quality.h). */
#include "report/tpp_quality.h"

#include <stdlib.h>

static int by_fn_path(const void *a, const void *b)
{
	const struct tppq_path *x = a, *y = b;
	if (x->fn_key != y->fn_key)
		return x->fn_key < y->fn_key ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* The executions of the path at *i (all its entries, *i moves past them). */
static uint64_t take(const struct tppq_path *p, size_t n, size_t *i, uint64_t key, uint64_t id,
		     uint32_t *nblocks)
{
	uint64_t c = 0;
	while (*i < n && p[*i].fn_key == key && p[*i].id == id) {
		c = sat_add(c, p[*i].count);
		*nblocks = p[*i].nblocks;
		(*i)++;
	}
	return c;
}

int tppq_compare(struct tppq_path *ref, size_t nref, struct tppq_path *tpp, size_t ntpp,
		 struct tppq_fn **out, size_t *nout)
{
	size_t i = 0, j = 0, n = 0;
	struct tppq_fn *f = calloc(nref + ntpp + 1, sizeof(*f));
	if (!f)
		return -1;
	if (nref)
		qsort(ref, nref, sizeof(*ref), by_fn_path);
	if (ntpp)
		qsort(tpp, ntpp, sizeof(*tpp), by_fn_path);
	while (i < nref || j < ntpp) {
		/* the next path in either list */
		const struct tppq_path *next =
		    j >= ntpp || (i < nref && by_fn_path(&ref[i], &tpp[j]) <= 0) ? &ref[i]
										 : &tpp[j];
		uint64_t key = next->fn_key, id = next->id;
		uint32_t len = next->nblocks;
		uint64_t r = take(ref, nref, &i, key, id, &len);
		uint64_t t = take(tpp, ntpp, &j, key, id, &len);
		if (!n || f[n - 1].fn_key != key)
			f[n++].fn_key = key;
		struct tppq_fn *g = &f[n - 1];
		g->ref_exec = sat_add(g->ref_exec, r);
		g->tpp_exec = sat_add(g->tpp_exec, t);
		g->total = sat_add(g->total, sat_mul(r, len));
		if (t > r)
			g->over = sat_add(g->over, sat_mul(t - r, len));
		else
			g->under = sat_add(g->under, sat_mul(r - t, len));
	}
	*out = f;
	*nout = n;
	return 0;
}

double tppq_aodf(uint64_t total, uint64_t over, uint64_t under)
{
	if (!total)
		return over || under ? 0.0 : 100.0;
	double a = 100.0 - 100.0 * ((double)over + (double)under) / (double)total;
	return a < 0 ? 0.0 : a;
}
