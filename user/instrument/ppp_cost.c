/* SPDX-License-Identifier: MIT */
/* ppp_cost.c — PPP against the path cache, per function (see ppp_cost.h). */
#include "instrument/ppp_cost.h"

#include <stdlib.h>
#include <string.h>

#include "instrument/dag_walk.h"
#include "instrument/ppp.h"
#include "wpp/trace_abi.h"

uint64_t wpp_cache_pair(uint64_t key, unsigned log2)
{
	return log2 ? (key * WPP_COUNT_HASH_MUL) >> (64 - log2) : 0;
}

/* The PPP increments path id executes: its edges with a non-zero one,
 * but not the ENTRY edge (the register's start stores it).  UINT32_MAX
 * when id does not decode. */
static uint32_t ppp_chords(const struct wpp_dag *d, const struct wpp_dag_walk *walk,
			   const uint64_t *pinc, uint64_t id)
{
	uint32_t v = WPP_DAG_ENTRY(d->nblocks), exit = WPP_DAG_EXIT(d->nblocks), n = 0;
	uint64_t r = id;
	for (uint32_t steps = 0; v != exit; steps++) {
		uint32_t e = wpp_ppp_edge_for(d, walk, v, r);
		if (e == WPP_NONE || steps > d->nedges)
			return UINT32_MAX;
		n += pinc[e] != 0 && v != WPP_DAG_ENTRY(d->nblocks);
		r -= d->edges[e].val;
		v = d->edges[e].dst;
	}
	return n;
}

struct keyed {
	uint64_t pair;
	double execs;
};

/* by pair, the most executed first */
static int cmp_keyed(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;
	if (x->pair != y->pair)
		return (x->pair > y->pair) - (x->pair < y->pair);
	return (x->execs < y->execs) - (x->execs > y->execs);
}

int wpp_ppp_cost(const struct wpp_dag *d, const uint64_t *pinc, const uint64_t *ids,
		 const uint64_t *counts, size_t n, unsigned cache_log2, struct wpp_ppp_cost *out)
{
	struct wpp_dag_walk walk;
	int weighted = 0;

	memset(out, 0, sizeof(*out));
	if (!n)
		return 0;
	for (size_t i = 0; counts && i < n && !weighted; i++)
		weighted = counts[i] != 0;
	struct keyed *k = malloc(n * sizeof(*k));
	if (!k || wpp_dag_walk_begin(&walk, d)) {
		free(k);
		return -1;
	}
	wpp_ppp_count_paths(d, &walk);
	double total = 0, chords = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = ppp_chords(d, &walk, pinc, ids[i]);
		if (c == UINT32_MAX) {
			wpp_dag_walk_end(&walk);
			free(k);
			return -1;
		}
		double x = weighted ? (double)counts[i] : 1.0;
		k[i] = (struct keyed){wpp_cache_pair(ids[i] + 1, cache_log2), x};
		total += x;
		chords += x * c;
	}
	wpp_dag_walk_end(&walk);
	double missed = 0;
	if (cache_log2) {
		qsort(k, n, sizeof(*k), cmp_keyed);
		for (size_t i = 1; i < n; i++)
			if (k[i].pair == k[i - 1].pair) {
				out->conflicts++;
				missed += k[i].execs;
			}
	}
	free(k);
	out->chords = chords / total;
	out->missed = cache_log2 ? missed / total : 1.0;
	out->ppp = WPP_COST_PPP_START + WPP_COST_PPP_CHORD * out->chords + WPP_COST_PPP_END;
	out->count = cache_log2 ? WPP_COST_CACHE_HIT +
				      (WPP_COST_CACHE_MISS - WPP_COST_CACHE_HIT) * out->missed
				: WPP_COST_HASH_PROBE;
	return 0;
}
