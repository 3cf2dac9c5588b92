/* SPDX-License-Identifier: MIT */
/* weights.c — static edge weights for placement (see weights.h). */
#include "instrument/weights.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/loops.h"
#include "wpp/meta_format.h"

#define LOOP_WORK_CAP  (4u * 1000 * 1000)
#define LOOP_FREQ_BASE 8.0
#define LOOP_DEPTH_CAP 12

int wpp_loop_depth(const struct wpp_cfg *cfg, const struct wpp_dag *d, uint32_t *depth)
{
	uint32_t n = cfg->nblocks;
	struct wpp_preds preds = {0};
	struct wpp_loop_walk w = {.d = d, .preds = &preds, .work_cap = LOOP_WORK_CAP};
	uint32_t *body = malloc((size_t)n * sizeof(uint32_t));
	int rc = -1;
	memset(depth, 0, (size_t)n * sizeof(uint32_t));
	w.mark = calloc(n, sizeof(uint32_t)); /* loop id + 1 that visited */
	w.stack = malloc((size_t)n * sizeof(uint32_t));
	if (!body || !w.mark || !w.stack || wpp_preds_build(&preds, cfg))
		goto out;
	/* One walk per retreating edge: a header with two latches counts
	 * twice, as two nested loops would. */
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		if (!d->cfg_edge_retreating[e])
			continue;
		uint32_t nbody = 0;
		int capped =
		    wpp_loop_walk(&w, cfg->edge_dst[e], cfg->edge_src[e], e + 1, body, &nbody);
		for (uint32_t i = 0; i < nbody; i++)
			depth[body[i]]++;
		if (capped)
			break;
	}
	rc = 0;
out:
	wpp_preds_free(&preds);
	free(body), free(w.mark), free(w.stack);
	return rc;
}

int wpp_weights_static(const struct wpp_weight_input *in, double *w)
{
	const struct wpp_cfg *cfg = in->cfg;
	const struct wpp_dag *d = in->dag;
	uint32_t n = cfg->nblocks;
	uint32_t *depth = malloc((size_t)n * sizeof(uint32_t));
	uint32_t *outdeg = calloc(n, sizeof(uint32_t));
	double *freq = malloc((size_t)n * sizeof(double));
	if (!depth || !outdeg || !freq || wpp_loop_depth(cfg, d, depth)) {
		free(depth), free(outdeg), free(freq);
		return -1;
	}
	for (uint32_t b = 0; b < n; b++)
		freq[b] =
		    pow(LOOP_FREQ_BASE, depth[b] > LOOP_DEPTH_CAP ? LOOP_DEPTH_CAP : depth[b]);
	for (uint32_t e = 0; e < cfg->nedges; e++)
		outdeg[cfg->edge_src[e]]++;
	for (uint32_t k = 0; k < d->nedges; k++)
		w[k] = 0.0;
	/* Each CFG edge lends its estimated frequency to the DAG edge standing
	 * for it and, when cut, to the ENTRY edge of its target. */
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		uint32_t u = cfg->edge_src[e], v = cfg->edge_dst[e];
		double p = in->cfg_edge_prob ? in->cfg_edge_prob[e] : 1.0 / outdeg[u];
		double f = freq[u] * p;
		uint32_t de = d->cfg_edge_dag[e];
		w[de] += f;
		if (d->edges[de].kind != WPP_EDGE_REAL && d->entry_edge[v] != WPP_NONE)
			w[d->entry_edge[v]] += f;
	}
	for (uint32_t b = 0; b < n; b++) {
		uint32_t x = d->exit_edge[b];
		if (x != WPP_NONE &&
		    (d->edges[x].kind == WPP_EDGE_RETURN || d->edges[x].kind == WPP_EDGE_NORETURN))
			w[x] += freq[b];
	}
	if (d->entry_edge[0] != WPP_NONE)
		w[d->entry_edge[0]] += 1.0;
	/* Truncation dummies (added by numbering) inherit nothing; weight 0
	 * keeps them off the tree unless needed for connectivity. */
	free(depth), free(outdeg), free(freq);
	return 0;
}
