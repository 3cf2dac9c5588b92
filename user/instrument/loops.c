/* SPDX-License-Identifier: MIT */
/* loops.c — natural-loop bodies (see loops.h). */
#include "instrument/loops.h"

#include <stdlib.h>
#include <string.h>

int wpp_preds_build(struct wpp_preds *p, const struct wpp_cfg *cfg)
{
	uint32_t n = cfg->nblocks;
	p->start = calloc((size_t)n + 1, sizeof(uint32_t));
	p->src = malloc(((size_t)cfg->nedges + 1) * sizeof(uint32_t));
	uint32_t *fill = malloc(((size_t)n + 1) * sizeof(uint32_t));
	if (!p->start || !p->src || !fill) {
		free(fill);
		wpp_preds_free(p);
		return -1;
	}
	for (uint32_t e = 0; e < cfg->nedges; e++)
		p->start[cfg->edge_dst[e] + 1]++;
	for (uint32_t b = 0; b < n; b++)
		p->start[b + 1] += p->start[b];
	memcpy(fill, p->start, (size_t)n * sizeof(uint32_t));
	for (uint32_t e = 0; e < cfg->nedges; e++)
		p->src[fill[cfg->edge_dst[e]]++] = cfg->edge_src[e];
	free(fill);
	return 0;
}

void wpp_preds_free(struct wpp_preds *p)
{
	free(p->start);
	free(p->src);
	p->start = p->src = NULL;
}

static int is_descendant(const struct wpp_dag *d, uint32_t x, uint32_t anc)
{
	return d->dfs_pre[anc] <= d->dfs_pre[x] && d->dfs_post[x] <= d->dfs_post[anc];
}

static void add(struct wpp_loop_walk *w, uint32_t b, uint32_t id, uint32_t *body, uint32_t *nbody)
{
	w->mark[b] = id;
	body[(*nbody)++] = b;
}

int wpp_loop_walk(struct wpp_loop_walk *w, uint32_t header, uint32_t latch, uint32_t id,
		  uint32_t *body, uint32_t *nbody)
{
	uint32_t sp = 0;
	if (w->mark[header] != id)
		add(w, header, id, body, nbody);
	if (w->mark[latch] != id && is_descendant(w->d, latch, header)) {
		add(w, latch, id, body, nbody);
		w->stack[sp++] = latch;
	}
	while (sp) {
		if (w->work >= w->work_cap)
			return -1;
		uint32_t x = w->stack[--sp];
		for (uint32_t i = w->preds->start[x]; i < w->preds->start[x + 1]; i++, w->work++) {
			uint32_t p = w->preds->src[i];
			if (w->mark[p] == id || !is_descendant(w->d, p, header))
				continue;
			add(w, p, id, body, nbody);
			w->stack[sp++] = p;
		}
	}
	return 0;
}
