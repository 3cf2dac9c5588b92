/* SPDX-License-Identifier: MIT */
/* runs.c — loops whose iterations are counted as runs (see runs.h). */
#include "runs.h"

#include <stdlib.h>
#include <string.h>

#include "loops.h"
#include "wpp/meta_format.h"

/* Past this much walking, further loops are left alone (plain records are
 * always correct; runs are only an optimisation). */
#define RUNS_WORK_CAP (4u * 1000 * 1000)

static int block_allows_runs(const struct wpp_cfg *cfg, const uint8_t *veto, uint32_t b)
{
	if (veto && veto[b])
		return 0;
	if (cfg->block_flags[b] & (WPP_CFGB_CALL_HEAD | WPP_CFGB_INDIRECT_SRC | WPP_CFGB_PINNED))
		return 0;
	return cfg->block_exit[b] == WPP_CFG_EXIT_NONE;
}

/* in_loop: mark[b] == id.  Every edge touching the loop must be an
 * ordinary edge, a back edge to the header, an entry edge into the header
 * or an exit edge whose code can go on the edge. */
static int loop_qualifies(const struct wpp_cfg *cfg, const struct wpp_dag *d, const uint8_t *veto,
			  const uint32_t *mark, uint32_t id, uint32_t header, const uint32_t *body,
			  uint32_t nbody)
{
	for (uint32_t i = 0; i < nbody; i++)
		if (!block_allows_runs(cfg, veto, body[i]))
			return 0;
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		uint32_t u = cfg->edge_src[e], v = cfg->edge_dst[e];
		int from = mark[u] == id, to = mark[v] == id;
		uint32_t kind = d->edges[d->cfg_edge_dag[e]].kind;
		if (!from && to && v != header)
			return 0; /* entered in the middle */
		if (!from || !to) {
			if (from && (cfg->block_flags[v] & WPP_CFGB_PINNED))
				return 0; /* exit edge that cannot carry code */
			continue;
		}
		if (d->cfg_edge_retreating[e]) {
			if (v != header || kind != WPP_EDGE_BACK_EXIT)
				return 0; /* inner loop, or a back edge that is also cut otherwise */
		} else if (kind != WPP_EDGE_REAL) {
			return 0; /* truncation or other cut inside */
		}
	}
	return 1;
}

struct post_block {
	uint32_t post, block;
};

static int by_post(const void *a, const void *b)
{
	const struct post_block *x = a, *y = b;
	return (x->post > y->post) - (x->post < y->post);
}

/* Number of different iterations of the loop (paths from the header to one
 * of its back edges), saturated at limit + 1.  Inside a qualifying body the
 * other edges are forward DAG edges, so a block's successors end their DFS
 * before it: increasing post order is a reverse topological order. */
static uint32_t iteration_paths(const struct wpp_cfg *cfg, const struct wpp_dag *d, const uint32_t *mark,
				uint32_t id, uint32_t header, const uint32_t *body, uint32_t nbody,
				uint32_t limit, uint32_t *paths, struct post_block *order)
{
	for (uint32_t i = 0; i < nbody; i++)
		order[i] = (struct post_block){d->dfs_post[body[i]], body[i]};
	qsort(order, nbody, sizeof(*order), by_post);
	for (uint32_t i = 0; i < nbody; i++)
		paths[order[i].block] = 0;
	for (uint32_t i = 0; i < nbody; i++) {
		uint32_t u = order[i].block;
		uint64_t sum = 0;
		for (uint32_t e = 0; e < cfg->nedges; e++) {
			if (cfg->edge_src[e] != u || mark[cfg->edge_dst[e]] != id)
				continue;
			sum += d->cfg_edge_retreating[e] ? 1 : paths[cfg->edge_dst[e]];
		}
		paths[u] = sum > limit ? limit + 1 : (uint32_t)sum;
	}
	return paths[header];
}

int wpp_runs_find(const struct wpp_cfg *cfg, const struct wpp_dag *d, const uint8_t *veto,
		  uint32_t max_paths, uint8_t *role)
{
	uint32_t n = cfg->nblocks;
	struct wpp_preds preds = {0};
	struct wpp_loop_walk w = {.d = d, .preds = &preds, .work_cap = RUNS_WORK_CAP};
	uint32_t *body = malloc((size_t)n * sizeof(uint32_t));
	uint32_t *paths = malloc((size_t)n * sizeof(uint32_t));
	struct post_block *order = malloc((size_t)n * sizeof(*order));
	int nloops = -1;
	memset(role, WPP_RUN_NONE, cfg->nedges);
	w.mark = calloc(n, sizeof(uint32_t));
	w.stack = malloc((size_t)n * sizeof(uint32_t));
	if (!body || !paths || !order || !w.mark || !w.stack || wpp_preds_build(&preds, cfg))
		goto out;
	nloops = 0;
	for (uint32_t h = 0; h < n; h++) {
		if (!d->loop_header[h])
			continue;
		if (w.work >= w.work_cap)
			break;
		w.work += 2 * (uint64_t)cfg->nedges; /* the edge scans below */
		uint32_t id = h + 1, nbody = 0;
		int capped = 0;
		for (uint32_t e = 0; e < cfg->nedges && !capped; e++)
			if (d->cfg_edge_retreating[e] && cfg->edge_dst[e] == h)
				capped = wpp_loop_walk(&w, h, cfg->edge_src[e], id, body, &nbody) != 0;
		if (capped)
			break;
		if (!loop_qualifies(cfg, d, veto, w.mark, id, h, body, nbody))
			continue;
		w.work += (uint64_t)nbody * cfg->nedges; /* iteration_paths */
		if (max_paths && iteration_paths(cfg, d, w.mark, id, h, body, nbody, max_paths, paths,
						 order) > max_paths)
			continue;
		for (uint32_t e = 0; e < cfg->nedges; e++) {
			int from = w.mark[cfg->edge_src[e]] == id, to = w.mark[cfg->edge_dst[e]] == id;
			if (from && to && d->cfg_edge_retreating[e])
				role[e] = WPP_RUN_BACK;
			else if (from && !to)
				role[e] = WPP_RUN_EXIT;
		}
		nloops++;
	}
out:
	wpp_preds_free(&preds);
	free(body), free(paths), free(order), free(w.mark), free(w.stack);
	return nloops;
}
