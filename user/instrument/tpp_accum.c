/* SPDX-License-Identifier: MIT */
/*
 * tpp_accum.c — edge counters counted in registers inside loops that call
 * nothing, added to memory on the loops' exit edges (see tpp_accum.h).
 */
#include "instrument/tpp_accum.h"

#include <stdlib.h>
#include <string.h>

#include "instrument/loops.h"
#include "wpp/meta_format.h"

/* Loop walks stop past this many predecessor visits: accumulation is an
 * optimisation, a huge function just keeps its counters in memory. */
#define ACCUM_WORK_CAP (UINT64_C(1) << 24)

void wpp_tpp_accum_free(struct wpp_tpp_accum *a)
{
	free(a->acc);
	free(a->flush_start);
	free(a->flush);
	memset(a, 0, sizeof(*a));
}

/* The call-free loops: their bodies, concatenated (body[bstart[i] ..
 * bstart[i + 1]) is loop i's), largest first per block in best[b]. */
struct loops {
	uint32_t *body, *bstart, n;
	uint32_t *best; /* per block: the largest call-free loop holding it, or WPP_NONE */
};

static int loop_ok(const struct wpp_cfg *cfg, const uint8_t *opaque, const uint32_t *mark,
		   uint32_t id, const uint32_t *body, uint32_t nbody, const uint32_t *out_start,
		   const uint32_t *out)
{
	for (uint32_t i = 0; i < nbody; i++) {
		uint32_t b = body[i];
		if (b == 0 ||
		    (cfg->block_flags[b] & (WPP_CFGB_CALL_HEAD | WPP_CFGB_INDIRECT_SRC)) ||
		    cfg->block_exit[b] != WPP_CFG_EXIT_NONE || (opaque && opaque[b]))
			return 0;
		for (uint32_t k = out_start[b]; k < out_start[b + 1]; k++) {
			uint32_t v = cfg->edge_dst[out[k]];
			if (mark[v] != id && (cfg->block_flags[v] & WPP_CFGB_PINNED))
				return 0;
		}
	}
	return 1;
}

static int find_loops(struct loops *l, const struct wpp_cfg *cfg, const struct wpp_dag *d,
		      const uint8_t *opaque, const uint32_t *out_start, const uint32_t *out)
{
	uint32_t n = cfg->nblocks, used = 0;
	struct wpp_preds preds = {0};
	struct wpp_loop_walk w = {.d = d, .preds = &preds, .work_cap = ACCUM_WORK_CAP};
	uint32_t *body = malloc((size_t)n * sizeof(uint32_t));
	uint32_t *size = malloc((size_t)n * sizeof(uint32_t));
	int rc = -1;

	w.mark = calloc(n, sizeof(uint32_t));
	w.stack = malloc((size_t)n * sizeof(uint32_t));
	l->best = malloc((size_t)n * sizeof(uint32_t));
	l->bstart = malloc(((size_t)n + 1) * sizeof(uint32_t));
	l->body = NULL;
	if (!body || !size || !w.mark || !w.stack || !l->best || !l->bstart ||
	    wpp_preds_build(&preds, cfg))
		goto out;
	for (uint32_t b = 0; b < n; b++)
		l->best[b] = WPP_NONE;
	l->bstart[0] = 0;
	for (uint32_t h = 1; h < n; h++) {
		if (!d->loop_header[h])
			continue;
		uint32_t nbody = 0;
		int capped = 0;
		for (uint32_t e = 0; e < cfg->nedges && !capped; e++)
			if (cfg->edge_dst[e] == h && d->cfg_edge_retreating[e])
				capped = wpp_loop_walk(&w, h, cfg->edge_src[e], h + 1, body,
						       &nbody) != 0;
		if (capped)
			break;
		if (!loop_ok(cfg, opaque, w.mark, h + 1, body, nbody, out_start, out))
			continue;
		uint32_t *nb = realloc(l->body, ((size_t)used + nbody) * sizeof(uint32_t));
		if (!nb)
			goto out;
		l->body = nb;
		memcpy(l->body + used, body, (size_t)nbody * sizeof(uint32_t));
		used += nbody;
		size[l->n] = nbody;
		l->bstart[++l->n] = used;
		for (uint32_t i = 0; i < nbody; i++) {
			uint32_t b = body[i];
			if (l->best[b] == WPP_NONE || size[l->best[b]] < nbody)
				l->best[b] = l->n - 1;
		}
	}
	rc = 0;
out:
	wpp_preds_free(&preds);
	free(body), free(size), free(w.mark), free(w.stack);
	return rc;
}

/* The block a counter's code runs on the way into, or WPP_NONE when its
 * place is not an edge into a block (a return) or not an ordinary one. */
static uint32_t counter_block(const struct wpp_tpp *t, const struct wpp_cfg *cfg, uint32_t g)
{
	const struct wpp_dag_edge *e = &t->full.edges[g];
	uint32_t n = cfg->nblocks;
	if (e->src == WPP_DAG_ENTRY(n)) /* at v's start, or on the cuts into v */
		return e->dst;
	if (e->kind == WPP_EDGE_RETURN || e->kind == WPP_EDGE_NORETURN)
		return WPP_NONE;
	if (e->cfg_src >= n || e->cfg_dst >= n ||
	    (cfg->block_flags[e->cfg_src] & WPP_CFGB_INDIRECT_SRC) ||
	    (cfg->block_flags[e->cfg_dst] & WPP_CFGB_PINNED))
		return WPP_NONE;
	return e->cfg_dst;
}

int wpp_tpp_accum_plan(struct wpp_tpp_accum *a, const struct wpp_tpp *t, const struct wpp_cfg *cfg,
		       const struct wpp_dag *d, const uint8_t *opaque)
{
	uint32_t n = cfg->nblocks, nfull = t->full.nedges, nk = t->nobvious;
	struct loops l = {0};
	uint32_t *loop_of = malloc(((size_t)nk + 1) * sizeof(uint32_t));
	uint32_t *out_start = calloc((size_t)n + 1, sizeof(uint32_t));
	uint32_t *out = malloc(((size_t)cfg->nedges + 1) * sizeof(uint32_t));
	uint8_t *in_loop = calloc((size_t)n + 1, 1);
	uint64_t *exits = NULL; /* per loop: training executions of its exit edges */
	int rc = -1;

	memset(a, 0, sizeof(*a));
	a->acc = calloc((size_t)nk + 1, 1);
	a->flush_start = calloc((size_t)nfull + 2, sizeof(uint32_t));
	if (!loop_of || !out_start || !out || !in_loop || !a->acc || !a->flush_start)
		goto out;
	for (uint32_t e = 0; e < cfg->nedges; e++)
		out_start[cfg->edge_src[e] + 1]++;
	for (uint32_t b = 0; b < n; b++)
		out_start[b + 1] += out_start[b];
	{
		uint32_t *fill = malloc(((size_t)n + 1) * sizeof(uint32_t));
		if (!fill)
			goto out;
		memcpy(fill, out_start, (size_t)n * sizeof(uint32_t));
		for (uint32_t e = 0; e < cfg->nedges; e++)
			out[fill[cfg->edge_src[e]]++] = e;
		free(fill);
	}
	if (find_loops(&l, cfg, d, opaque, out_start, out) ||
	    !(exits = calloc((size_t)l.n + 1, sizeof(uint64_t))))
		goto out;
	/* how often each loop was left in training */
	for (uint32_t i = 0; i < l.n; i++) {
		for (uint32_t j = l.bstart[i]; j < l.bstart[i + 1]; j++)
			in_loop[l.body[j]] = 1;
		for (uint32_t j = l.bstart[i]; j < l.bstart[i + 1]; j++)
			for (uint32_t x = out_start[l.body[j]]; x < out_start[l.body[j] + 1]; x++)
				if (!in_loop[cfg->edge_dst[out[x]]]) {
					uint64_t c = t->edge[d->cfg_edge_dag[out[x]]].train;
					exits[i] = exits[i] + c < c ? UINT64_MAX : exits[i] + c;
				}
		for (uint32_t j = l.bstart[i]; j < l.bstart[i + 1]; j++)
			in_loop[l.body[j]] = 0;
	}
	for (uint32_t k = 0; k < nk; k++) {
		uint32_t b = counter_block(t, cfg, t->obvious[k].edge);
		uint64_t runs = t->edge[t->obvious[k].edge].train;
		loop_of[k] = b == WPP_NONE ? WPP_NONE : l.best[b];
		/* a flush costs more than an add to memory: only where the
		 * training counted at least two per time the loop was left */
		if (loop_of[k] != WPP_NONE && (runs == 0 || runs / 2 < exits[loop_of[k]]))
			loop_of[k] = WPP_NONE;
		a->acc[k] = loop_of[k] != WPP_NONE;
		a->nacc += a->acc[k];
	}
	/* Flushes per full edge: counter k on every CFG edge leaving its loop
	 * (the full edge standing for a CFG edge keeps its index in d). Two
	 * passes over the loops in use: count, then fill. */
	for (int fill = 0; fill < 2; fill++) {
		uint32_t total = 0;
		for (uint32_t i = 0; i < l.n; i++) {
			int used = 0;
			for (uint32_t k = 0; k < nk && !used; k++)
				used = loop_of[k] == i;
			if (!used)
				continue;
			for (uint32_t j = l.bstart[i]; j < l.bstart[i + 1]; j++)
				in_loop[l.body[j]] = 1;
			for (uint32_t j = l.bstart[i]; j < l.bstart[i + 1]; j++) {
				uint32_t b = l.body[j];
				for (uint32_t x = out_start[b]; x < out_start[b + 1]; x++) {
					uint32_t e = out[x];
					if (in_loop[cfg->edge_dst[e]])
						continue;
					uint32_t g = d->cfg_edge_dag[e];
					for (uint32_t k = 0; k < nk; k++) {
						if (loop_of[k] != i)
							continue;
						if (fill)
							a->flush[a->flush_start[g + 1]++] = k;
						else
							a->flush_start[g + 1]++, total++;
					}
				}
			}
			for (uint32_t j = l.bstart[i]; j < l.bstart[i + 1]; j++)
				in_loop[l.body[j]] = 0;
		}
		if (fill)
			break;
		for (uint32_t g = 0; g < nfull; g++)
			a->flush_start[g + 1] += a->flush_start[g];
		a->flush = malloc(((size_t)total + 1) * sizeof(uint32_t));
		if (!a->flush)
			goto out;
		/* the fill pass advances flush_start[g + 1] from g's start */
		for (uint32_t g = nfull; g > 0; g--)
			a->flush_start[g] = a->flush_start[g - 1];
	}
	rc = 0;
out:
	if (rc)
		wpp_tpp_accum_free(a);
	free(l.body), free(l.bstart), free(l.best);
	free(loop_of), free(out_start), free(out), free(in_loop), free(exits);
	return rc;
}
