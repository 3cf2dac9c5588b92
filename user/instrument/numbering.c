/* SPDX-License-Identifier: MIT */
/* numbering.c — Ball-Larus values with overflow handling (see numbering.h). */
#include "instrument/numbering.h"

#include <stdlib.h>
#include <string.h>

#include "instrument/dag_walk.h"
#include "wpp/meta_format.h"

/* Counts paths to EXIT for every node, saturating at cap + 1 (so "too many"
 * stays distinguishable without wrapping).  Also assigns vals when they are
 * exact (the caller only keeps them from the final pass). */
static void count_paths(struct wpp_dag *d, const struct wpp_dag_adj *out, const uint32_t *order,
			uint64_t *np, uint64_t cap)
{
	uint32_t nn = d->nblocks + 2;
	for (uint32_t k = 0; k < nn; k++) {
		uint32_t v = order[k];
		if (v == WPP_DAG_EXIT(d->nblocks)) {
			np[v] = 1;
			continue;
		}
		uint64_t sum = 0;
		for (uint32_t i = out->start[v]; i < out->start[v + 1]; i++) {
			struct wpp_dag_edge *e = &d->edges[out->adj[i]];
			e->val = sum;
			if (wpp_add_overflows(sum, np[e->dst], &sum) || sum > cap)
				sum = cap + 1;
		}
		np[v] = sum;
	}
}

int wpp_dag_cut_node(struct wpp_dag *d, const struct wpp_dag_adj *in, uint32_t w)
{
	uint32_t exit = WPP_DAG_EXIT(d->nblocks);
	for (uint32_t i = in->start[w]; i < in->start[w + 1]; i++) {
		struct wpp_dag_edge *e = &d->edges[in->adj[i]];
		if (e->dst != w || e->kind != WPP_EDGE_REAL)
			continue;
		e->dst = exit;
		e->kind = WPP_EDGE_CUT_EXIT;
	}
	if (d->entry_edge[w] == WPP_NONE) {
		d->entry_edge[w] = wpp_dag_add_edge(d, WPP_DAG_ENTRY(d->nblocks), w,
						    WPP_EDGE_CUT_ENTRY, WPP_NONE, w);
		if (d->entry_edge[w] == WPP_NONE)
			return -1;
	}
	d->restart_at_start[w] = 1;
	d->truncated = 1;
	return 0;
}

/* Cuts nodes until no block has more than node_cap paths to EXIT.  Bounding
 * every block by wide_limit / (nblocks + 1) bounds ENTRY too, since ENTRY
 * has at most one out-edge per block.  Counts of nodes processed earlier may
 * become stale (too high) when a successor is cut later; that is
 * conservative, and the final pass recounts exactly. */
static int truncate_to_fit(struct wpp_dag *d, uint64_t wide_limit)
{
	uint64_t node_cap = wide_limit / ((uint64_t)d->nblocks + 1);
	if (node_cap < 2)
		node_cap = 2;
	struct wpp_dag_walk w;
	if (wpp_dag_walk_begin(&w, d))
		return -1;
	int rc = -1;
	for (uint32_t k = 0; k < w.nn; k++) {
		uint32_t v = w.order[k];
		if (v >= d->nblocks) {
			w.np[v] = 1;
			continue;
		}
		for (;;) {
			uint64_t sum = 0, best_np = 0;
			uint32_t best = WPP_NONE;
			for (uint32_t i = w.out.start[v]; i < w.out.start[v + 1]; i++) {
				const struct wpp_dag_edge *e = &d->edges[w.out.adj[i]];
				uint64_t c = e->dst >= d->nblocks ? 1 : w.np[e->dst];
				if (wpp_add_overflows(sum, c, &sum))
					sum = UINT64_MAX;
				if (e->kind == WPP_EDGE_REAL && c > best_np)
					best_np = c, best = e->dst;
			}
			if (sum <= node_cap || best == WPP_NONE || best_np <= 1) {
				w.np[v] = sum;
				break;
			}
			if (wpp_dag_cut_node(d, &w.in, best))
				goto out;
		}
	}
	rc = 0;
out:
	wpp_dag_walk_end(&w);
	return rc;
}

static int number_pass(struct wpp_dag *d, uint64_t cap, uint64_t *npaths_out)
{
	struct wpp_dag_walk w;
	if (wpp_dag_walk_begin(&w, d))
		return -1;
	count_paths(d, &w.out, w.order, w.np, cap);
	/* Largest count over all nodes: unreachable blocks have vals too. */
	uint64_t entry = w.np[WPP_DAG_ENTRY(d->nblocks)], max = entry;
	for (uint32_t v = 0; v < w.nn; v++)
		if (w.np[v] > max)
			max = w.np[v];
	*npaths_out = max;
	d->npaths = entry;
	wpp_dag_walk_end(&w);
	return 0;
}

int wpp_dag_number(struct wpp_dag *d, uint64_t narrow_limit, uint64_t wide_limit)
{
	uint64_t maxcount;
	if (number_pass(d, wide_limit, &maxcount))
		return -1;
	d->wide = maxcount >= narrow_limit;
	if (maxcount <= wide_limit)
		return 0;
	if (truncate_to_fit(d, wide_limit) || number_pass(d, wide_limit, &maxcount))
		return -1;
	return maxcount <= wide_limit ? 0 : -1;
}
