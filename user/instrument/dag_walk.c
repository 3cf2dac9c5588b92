/* SPDX-License-Identifier: MIT */
/* dag_walk.c — edge lists and reverse topological order (see dag_walk.h). */
#include "instrument/dag_walk.h"

#include <stdlib.h>
#include <string.h>

static void dag_adj_free(struct wpp_dag_adj *a)
{
	free(a->start);
	free(a->adj);
	a->start = a->adj = NULL;
}

static int dag_adj_build(struct wpp_dag_adj *a, const struct wpp_dag *d, int incoming)
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

/* Kahn's algorithm on out-degrees.  Returns -1 if the graph has a cycle. */
static int reverse_topo(const struct wpp_dag *d, const struct wpp_dag_adj *in, uint32_t *order)
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

void wpp_dag_walk_end(struct wpp_dag_walk *w)
{
	dag_adj_free(&w->out);
	dag_adj_free(&w->in);
	free(w->order);
	free(w->np);
	memset(w, 0, sizeof(*w));
}

int wpp_dag_walk_begin(struct wpp_dag_walk *w, const struct wpp_dag *d)
{
	memset(w, 0, sizeof(*w));
	w->nn = d->nblocks + 2;
	w->order = malloc((size_t)w->nn * sizeof(uint32_t));
	w->np = calloc(w->nn, sizeof(uint64_t));
	if (!w->order || !w->np || dag_adj_build(&w->out, d, 0) || dag_adj_build(&w->in, d, 1) ||
	    reverse_topo(d, &w->in, w->order)) {
		wpp_dag_walk_end(w);
		return -1;
	}
	return 0;
}
