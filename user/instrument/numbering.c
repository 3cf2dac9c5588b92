/* SPDX-License-Identifier: MIT */
/* numbering.c — Ball-Larus values with overflow handling (see numbering.h). */
#include "numbering.h"

#include <stdlib.h>
#include <string.h>

#include "wpp/meta_format.h"

/* Out-edge lists of the DAG (edge indices, in edge-array order). */
struct dag_adj {
	uint32_t *start, *adj;
};

static void dag_adj_free(struct dag_adj *a)
{
	free(a->start);
	free(a->adj);
	a->start = a->adj = NULL;
}

static int dag_adj_build(struct dag_adj *a, const struct wpp_dag *d, int incoming)
{
	uint32_t nn = d->nblocks + 2;
	a->start = calloc((size_t)nn + 1, sizeof(uint32_t));
	a->adj = malloc(((size_t)d->nedges + 1) * sizeof(uint32_t));
	uint32_t *fill = malloc(((size_t)nn + 1) * sizeof(uint32_t));
	if (!a->start || !a->adj || !fill) {
		free(fill);
		dag_adj_free(a);
		return -1;
	}
	for (uint32_t e = 0; e < d->nedges; e++)
		a->start[(incoming ? d->edges[e].dst : d->edges[e].src) + 1]++;
	for (uint32_t v = 0; v < nn; v++)
		a->start[v + 1] += a->start[v];
	memcpy(fill, a->start, (size_t)nn * sizeof(uint32_t));
	for (uint32_t e = 0; e < d->nedges; e++)
		a->adj[fill[incoming ? d->edges[e].dst : d->edges[e].src]++] = e;
	free(fill);
	return 0;
}

/* Reverse topological order (every node after all its successors), by
 * Kahn's algorithm on out-degrees.  Returns -1 if the graph has a cycle. */
static int reverse_topo(const struct wpp_dag *d, const struct dag_adj *in, uint32_t *order)
{
	uint32_t nn = d->nblocks + 2, head = 0, tail = 0;
	uint32_t *outdeg = calloc(nn, sizeof(uint32_t));
	if (!outdeg)
		return -1;
	for (uint32_t e = 0; e < d->nedges; e++)
		outdeg[d->edges[e].src]++;
	for (uint32_t v = 0; v < nn; v++)
		if (!outdeg[v])
			order[tail++] = v;
	while (head < tail) {
		uint32_t v = order[head++];
		for (uint32_t i = in->start[v]; i < in->start[v + 1]; i++) {
			uint32_t u = d->edges[in->adj[i]].src;
			if (--outdeg[u] == 0)
				order[tail++] = u;
		}
	}
	free(outdeg);
	return tail == nn ? 0 : -1;
}

/* What both passes over the DAG need: out- and in-edge lists, a reverse
 * topological order and a zeroed path count per node. */
struct dag_walk {
	uint32_t nn;
	struct dag_adj out, in;
	uint32_t *order;
	uint64_t *np;
};

static void dag_walk_end(struct dag_walk *w)
{
	dag_adj_free(&w->out);
	dag_adj_free(&w->in);
	free(w->order);
	free(w->np);
	memset(w, 0, sizeof(*w));
}

/* Returns -1 (with nothing left to free) on allocation failure or a cycle. */
static int dag_walk_begin(struct dag_walk *w, const struct wpp_dag *d)
{
	memset(w, 0, sizeof(*w));
	w->nn = d->nblocks + 2;
	w->order = malloc((size_t)w->nn * sizeof(uint32_t));
	w->np = calloc(w->nn, sizeof(uint64_t));
	if (!w->order || !w->np || dag_adj_build(&w->out, d, 0) || dag_adj_build(&w->in, d, 1) ||
	    reverse_topo(d, &w->in, w->order)) {
		dag_walk_end(w);
		return -1;
	}
	return 0;
}

/* Counts paths to EXIT for every node, saturating at cap + 1 (so "too many"
 * stays distinguishable without wrapping).  Also assigns vals when they are
 * exact (the caller only keeps them from the final pass). */
static void count_paths(struct wpp_dag *d, const struct dag_adj *out, const uint32_t *order,
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

/* Turns every REAL in-edge of w into a CUT_EXIT dummy and gives w its
 * ENTRY edge: paths through w now start at w. */
static int cut_node(struct wpp_dag *d, const struct dag_adj *in, uint32_t w)
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
	struct dag_walk w;
	if (dag_walk_begin(&w, d))
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
			if (cut_node(d, &w.in, best))
				goto out;
		}
	}
	rc = 0;
out:
	dag_walk_end(&w);
	return rc;
}

static int number_pass(struct wpp_dag *d, uint64_t cap, uint64_t *npaths_out)
{
	struct dag_walk w;
	if (dag_walk_begin(&w, d))
		return -1;
	count_paths(d, &w.out, w.order, w.np, cap);
	/* Largest count over all nodes: unreachable blocks have vals too. */
	uint64_t entry = w.np[WPP_DAG_ENTRY(d->nblocks)], max = entry;
	for (uint32_t v = 0; v < w.nn; v++)
		if (w.np[v] > max)
			max = w.np[v];
	*npaths_out = max;
	d->npaths = entry;
	dag_walk_end(&w);
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
