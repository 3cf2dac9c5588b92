/* SPDX-License-Identifier: MIT */
/* placement.c — maximum spanning tree + potentials (see placement.h). */
#include "instrument/placement.h"

#include <stdlib.h>

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

static int uf_union(uint32_t *parent, uint32_t a, uint32_t b)
{
	a = uf_find(parent, a);
	b = uf_find(parent, b);
	if (a == b)
		return 0;
	parent[a] = b;
	return 1;
}

struct weighted {
	double w;
	uint32_t idx;
};

static int cmp_heavier_first(const void *pa, const void *pb)
{
	const struct weighted *a = pa, *b = pb;
	if (a->w != b->w)
		return a->w > b->w ? -1 : 1;
	return a->idx < b->idx ? -1 : (a->idx > b->idx);
}

/* Kruskal, heaviest first, with EXIT-ENTRY joined up front: sets
 * edges[].in_tree.  Returns 0 or -1 (allocation). */
static int choose_tree(struct wpp_dag *d, const double *weight)
{
	uint32_t nn = d->nblocks + 2, ne = d->nedges;
	uint32_t *parent = malloc((size_t)nn * sizeof(uint32_t));
	struct weighted *byw = malloc(((size_t)ne + 1) * sizeof(*byw));
	int rc = -1;
	if (!parent || !byw)
		goto out;
	for (uint32_t v = 0; v < nn; v++)
		parent[v] = v;
	uf_union(parent, WPP_DAG_EXIT(d->nblocks), WPP_DAG_ENTRY(d->nblocks));
	for (uint32_t e = 0; e < ne; e++)
		byw[e] = (struct weighted){weight ? weight[e] : 0.0, e};
	qsort(byw, ne, sizeof(*byw), cmp_heavier_first);
	for (uint32_t k = 0; k < ne; k++) {
		struct wpp_dag_edge *e = &d->edges[byw[k].idx];
		e->in_tree = (uint8_t)uf_union(parent, e->src, e->dst);
	}
	rc = 0;
out:
	free(parent), free(byw);
	return rc;
}

int wpp_dag_place_values(const struct wpp_dag *d, const uint64_t *val, uint64_t *inc)
{
	uint32_t nn = d->nblocks + 2, ne = d->nedges;
	uint32_t entry = WPP_DAG_ENTRY(d->nblocks), exit = WPP_DAG_EXIT(d->nblocks);
	/* tree adjacency: for each node, list of tree edge indices */
	uint32_t *tstart = calloc((size_t)nn + 1, sizeof(uint32_t));
	uint32_t *tadj = malloc(((size_t)ne + 1) * 2 * sizeof(uint32_t));
	uint32_t *fill = malloc((size_t)nn * sizeof(uint32_t));
	uint32_t *queue = malloc((size_t)nn * sizeof(uint32_t));
	uint64_t *phi = calloc(nn, sizeof(uint64_t));
	uint8_t *seen = calloc(nn, 1);
	int rc = -1;
	if (!tstart || !tadj || !fill || !queue || !phi || !seen)
		goto out;

	/* Potentials by BFS over the tree from ENTRY (EXIT is its neighbour
	 * through the virtual edge, at potential 0). */
	for (uint32_t e = 0; e < ne; e++)
		if (d->edges[e].in_tree) {
			tstart[d->edges[e].src + 1]++;
			tstart[d->edges[e].dst + 1]++;
		}
	for (uint32_t v = 0; v < nn; v++)
		tstart[v + 1] += tstart[v];
	for (uint32_t v = 0; v < nn; v++)
		fill[v] = tstart[v];
	for (uint32_t e = 0; e < ne; e++)
		if (d->edges[e].in_tree) {
			tadj[fill[d->edges[e].src]++] = e;
			tadj[fill[d->edges[e].dst]++] = e;
		}
	uint32_t head = 0, tail = 0;
	queue[tail++] = entry;
	queue[tail++] = exit;
	seen[entry] = seen[exit] = 1;
	for (uint32_t root = 0;; root++) {
		while (head < tail) {
			uint32_t v = queue[head++];
			for (uint32_t i = tstart[v]; i < tstart[v + 1]; i++) {
				const struct wpp_dag_edge *e = &d->edges[tadj[i]];
				uint32_t w = e->src == v ? e->dst : e->src;
				if (seen[w])
					continue;
				seen[w] = 1;
				/* phi(dst) = phi(src) + val, walked either way. */
				phi[w] =
				    e->src == v ? phi[v] + val[tadj[i]] : phi[v] - val[tadj[i]];
				queue[tail++] = w;
			}
		}
		/* Components not connected to ENTRY/EXIT (cannot happen for a
		 * DAG from dag.c, where every node reaches EXIT) get their own
		 * root at potential 0. */
		while (root < nn && seen[root])
			root++;
		if (root >= nn)
			break;
		seen[root] = 1;
		queue[tail++] = root;
	}
	for (uint32_t k = 0; k < ne; k++)
		inc[k] = val[k] + phi[d->edges[k].src] - phi[d->edges[k].dst];
	rc = 0;
out:
	free(tstart), free(tadj), free(fill), free(queue), free(phi), free(seen);
	return rc;
}

int wpp_dag_place(struct wpp_dag *d, const double *weight)
{
	uint32_t ne = d->nedges;
	uint64_t *val = malloc(((size_t)ne + 1) * sizeof(uint64_t));
	uint64_t *inc = malloc(((size_t)ne + 1) * sizeof(uint64_t));
	int rc = -1;
	if (!val || !inc || choose_tree(d, weight))
		goto out;
	for (uint32_t e = 0; e < ne; e++)
		val[e] = d->edges[e].val;
	if (wpp_dag_place_values(d, val, inc))
		goto out;
	for (uint32_t e = 0; e < ne; e++)
		d->edges[e].inc = inc[e];
	rc = 0;
out:
	free(val), free(inc);
	return rc;
}
