/* SPDX-License-Identifier: MIT */
/*
 * tpp_regions.c — the full DAG of TPP: a copy of the function's DAG, its
 * high-iteration loops disconnected, every edge hot or cold by the
 * training profile (see tpp.h, tpp_regions.h).
 */
#include "instrument/tpp_regions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/dag_walk.h"
#include "instrument/loops.h"
#include "wpp/meta_format.h"

#define LOOP_WORK_CAP (4u * 1000 * 1000)

static int fail(char *why, size_t whylen, const char *msg)
{
	if (why && whylen)
		snprintf(why, whylen, "%s", msg);
	return -1;
}

int wpp_tpp_below(uint64_t count, uint64_t base, double pct)
{
	if (!(pct > 0))
		return 0;
	if (pct > 1e6)
		pct = 1e6;
	unsigned __int128 scaled = (unsigned __int128)llround(pct * 1e6);
	return (unsigned __int128)count * 100000000u < scaled * base;
}

uint32_t wpp_tpp_add_edge(struct wpp_tpp *t, uint32_t src, uint32_t dst, uint32_t kind,
			  uint32_t cfg_src, uint32_t cfg_dst)
{
	uint32_t g = wpp_dag_add_edge(&t->full, src, dst, kind, cfg_src, cfg_dst);
	if (g == WPP_NONE)
		return WPP_NONE;
	struct wpp_tpp_edge *ne = realloc(t->edge, (size_t)t->full.cap * sizeof(*ne));
	if (!ne)
		return WPP_NONE;
	t->edge = ne;
	t->edge[g] =
	    (struct wpp_tpp_edge){.hot_edge = WPP_NONE, .rec_edge = WPP_NONE, .counter = WPP_NONE};
	return g;
}

uint32_t wpp_tpp_cut(struct wpp_tpp *t, uint32_t g)
{
	struct wpp_dag *f = &t->full;
	uint32_t v = f->edges[g].dst, n = f->nblocks;
	f->edges[g].dst = WPP_DAG_EXIT(n);
	f->edges[g].kind = WPP_EDGE_CUT_EXIT;
	t->edge[g].cut = 1;
	if (f->entry_edge[v] == WPP_NONE) {
		uint32_t en =
		    wpp_tpp_add_edge(t, WPP_DAG_ENTRY(n), v, WPP_EDGE_CUT_ENTRY, WPP_NONE, v);
		if (en == WPP_NONE)
			return WPP_NONE;
		f->entry_edge[v] = en;
	}
	struct wpp_tpp_edge *en = &t->edge[f->entry_edge[v]];
	en->train =
	    en->train + t->edge[g].train < en->train ? UINT64_MAX : en->train + t->edge[g].train;
	en->weight += t->edge[g].weight;
	return f->entry_edge[v];
}

void wpp_tpp_restarts(struct wpp_tpp *t, const struct wpp_cfg *cfg)
{
	struct wpp_dag *f = &t->full;
	memset(f->restart_at_start, 1, f->nblocks);
	for (uint32_t e = 0; e < cfg->nedges; e++)
		if (f->edges[f->cfg_edge_dag[e]].kind == WPP_EDGE_REAL)
			f->restart_at_start[cfg->edge_dst[e]] = 0;
}

/* A copy of d's graph and maps (not its DFS or loop facts). */
static int copy_dag(struct wpp_tpp *t, const struct wpp_cfg *cfg, const struct wpp_dag *d,
		    const uint64_t *train, const double *weight)
{
	struct wpp_dag *f = &t->full;
	uint32_t n = d->nblocks;
	f->nblocks = n;
	f->cap = d->nedges + 16;
	f->edges = malloc((size_t)f->cap * sizeof(*f->edges));
	t->edge = calloc(f->cap, sizeof(*t->edge));
	f->cfg_edge_dag = malloc(((size_t)cfg->nedges + 1) * sizeof(uint32_t));
	f->entry_edge = malloc((size_t)n * sizeof(uint32_t));
	f->exit_edge = malloc((size_t)n * sizeof(uint32_t));
	f->restart_at_start = calloc(n, 1);
	if (!f->edges || !t->edge || !f->cfg_edge_dag || !f->entry_edge || !f->exit_edge ||
	    !f->restart_at_start)
		return -1;
	memcpy(f->edges, d->edges, (size_t)d->nedges * sizeof(*f->edges));
	f->nedges = d->nedges;
	memcpy(f->cfg_edge_dag, d->cfg_edge_dag, (size_t)cfg->nedges * sizeof(uint32_t));
	memcpy(f->entry_edge, d->entry_edge, (size_t)n * sizeof(uint32_t));
	memcpy(f->exit_edge, d->exit_edge, (size_t)n * sizeof(uint32_t));
	for (uint32_t g = 0; g < d->nedges; g++) {
		const struct wpp_dag_edge *e = &d->edges[g];
		t->edge[g] = (struct wpp_tpp_edge){
		    .train = train[g],
		    .weight = weight ? weight[g] : (double)train[g],
		    .hot_edge = WPP_NONE,
		    .rec_edge = WPP_NONE,
		    .counter = WPP_NONE,
		    .dead_end = e->kind == WPP_EDGE_NORETURN && e->src < n &&
				cfg->block_exit[e->src] == WPP_CFG_EXIT_NORETURN};
	}
	for (uint32_t e = 0; e < cfg->nedges; e++)
		if ((cfg->block_flags[cfg->edge_dst[e]] & WPP_CFGB_PINNED) &&
		    !(cfg->block_flags[cfg->edge_src[e]] & WPP_CFGB_INDIRECT_SRC))
			t->edge[d->cfg_edge_dag[e]].at_target = 1;
	return 0;
}

/* Executions of each block: the training counts of its out-edges. */
static uint64_t *block_freq(const struct wpp_tpp *t)
{
	const struct wpp_dag *f = &t->full;
	uint64_t *freq = calloc((size_t)f->nblocks + 2, sizeof(uint64_t));
	if (!freq)
		return NULL;
	for (uint32_t g = 0; g < f->nedges; g++) {
		uint64_t *q = &freq[f->edges[g].src];
		*q = *q + t->edge[g].train < *q ? UINT64_MAX : *q + t->edge[g].train;
	}
	return freq;
}

/* CFG edge indices by block: in-edges of b are in[istart[b] ..
 * istart[b + 1]), out-edges likewise. */
struct cfg_edges {
	uint32_t *istart, *in, *ostart, *out;
};

static void cfg_edges_free(struct cfg_edges *c)
{
	free(c->istart), free(c->in), free(c->ostart), free(c->out);
}

static int cfg_edges_build(struct cfg_edges *c, const struct wpp_cfg *cfg)
{
	uint32_t n = cfg->nblocks;
	c->istart = calloc((size_t)n + 1, sizeof(uint32_t));
	c->ostart = calloc((size_t)n + 1, sizeof(uint32_t));
	c->in = malloc(((size_t)cfg->nedges + 1) * sizeof(uint32_t));
	c->out = malloc(((size_t)cfg->nedges + 1) * sizeof(uint32_t));
	uint32_t *ifill = malloc(((size_t)n + 1) * sizeof(uint32_t));
	uint32_t *ofill = malloc(((size_t)n + 1) * sizeof(uint32_t));
	int rc = -1;
	if (!c->istart || !c->ostart || !c->in || !c->out || !ifill || !ofill)
		goto out;
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		c->istart[cfg->edge_dst[e] + 1]++;
		c->ostart[cfg->edge_src[e] + 1]++;
	}
	for (uint32_t b = 0; b < n; b++) {
		c->istart[b + 1] += c->istart[b];
		c->ostart[b + 1] += c->ostart[b];
	}
	memcpy(ifill, c->istart, (size_t)n * sizeof(uint32_t));
	memcpy(ofill, c->ostart, (size_t)n * sizeof(uint32_t));
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		c->in[ifill[cfg->edge_dst[e]]++] = e;
		c->out[ofill[cfg->edge_src[e]]++] = e;
	}
	rc = 0;
out:
	free(ifill), free(ofill);
	return rc;
}

/* Cuts every REAL edge across the boundary of the body marked id. */
static int cut_boundary(struct wpp_tpp *t, const struct wpp_cfg *cfg, const struct cfg_edges *c,
			const uint32_t *mark, uint32_t id, const uint32_t *body, uint32_t nbody)
{
	for (uint32_t i = 0; i < nbody; i++) {
		uint32_t b = body[i];
		for (int dir = 0; dir < 2; dir++) {
			const uint32_t *list = dir ? c->out : c->in;
			const uint32_t *start = dir ? c->ostart : c->istart;
			for (uint32_t k = start[b]; k < start[b + 1]; k++) {
				uint32_t e = list[k],
					 other = dir ? cfg->edge_dst[e] : cfg->edge_src[e];
				uint32_t g = t->full.cfg_edge_dag[e];
				if (mark[other] == id || t->full.edges[g].kind != WPP_EDGE_REAL)
					continue;
				if (wpp_tpp_cut(t, g) == WPP_NONE)
					return -1;
				t->ncut++;
			}
		}
	}
	return 0;
}

/* How often the function was entered: its ENTRY->block 0 edge, less the
 * cuts into block 0 that restart there too (an indirect branch's shared
 * u->EXIT counts whole, so this errs low). */
static uint64_t calls(const struct wpp_dag *d, const struct cfg_edges *c, const uint64_t *train)
{
	if (d->entry_edge[0] == WPP_NONE)
		return 0;
	uint64_t starts = train[d->entry_edge[0]], restarts = 0;
	for (uint32_t k = c->istart[0]; k < c->istart[1]; k++) {
		uint32_t g = d->cfg_edge_dag[c->in[k]];
		if (d->edges[g].kind != WPP_EDGE_REAL)
			restarts =
			    restarts + train[g] < restarts ? UINT64_MAX : restarts + train[g];
	}
	return starts > restarts ? starts - restarts : 0;
}

/*
 * Section 4.2.1: per loop header, the union of its natural loops' bodies;
 * when the body's entry edges ran below loop_pct % of the header, every
 * REAL edge across the body's boundary becomes a cut.  Entry counts of
 * edges that share a DAG edge (an indirect branch's one u->EXIT) are that
 * edge's whole count: an overestimate, which only disconnects less.
 * Work: the bodies' edges, once per enclosing loop.
 */
static int disconnect_loops(struct wpp_tpp *t, const struct wpp_cfg *cfg, const struct wpp_dag *d,
			    const uint64_t *train, double loop_pct)
{
	uint32_t n = cfg->nblocks;
	struct wpp_preds preds = {0};
	struct wpp_loop_walk w = {.d = d, .preds = &preds, .work_cap = LOOP_WORK_CAP};
	struct cfg_edges c = {0};
	uint32_t *body = malloc((size_t)n * sizeof(uint32_t));
	uint64_t *freq = block_freq(t);
	int rc = -1;

	w.mark = calloc(n, sizeof(uint32_t));
	w.stack = malloc((size_t)n * sizeof(uint32_t));
	if (!body || !freq || !w.mark || !w.stack || wpp_preds_build(&preds, cfg) ||
	    cfg_edges_build(&c, cfg))
		goto out;
	rc = 0;
	if (!(loop_pct > 0))
		goto out;
	for (uint32_t h = 0; h < n; h++) {
		if (!d->loop_header[h])
			continue;
		uint32_t nbody = 0, capped = 0;
		for (uint32_t k = c.istart[h]; k < c.istart[h + 1] && !capped; k++) {
			uint32_t e = c.in[k];
			if (d->cfg_edge_retreating[e])
				capped = wpp_loop_walk(&w, h, cfg->edge_src[e], h + 1, body,
						       &nbody) != 0;
		}
		if (capped)
			break; /* disconnection is an optimisation: stop here */
		unsigned __int128 entry = 0;
		for (uint32_t i = 0; i < nbody; i++)
			for (uint32_t k = c.istart[body[i]]; k < c.istart[body[i] + 1]; k++)
				if (w.mark[cfg->edge_src[c.in[k]]] != h + 1)
					entry += train[d->cfg_edge_dag[c.in[k]]];
		if (h == 0) /* entered by calls: path starts at block 0 but restarts */
			entry += calls(d, &c, train);
		uint64_t entries = entry > UINT64_MAX ? UINT64_MAX : (uint64_t)entry;
		if (!wpp_tpp_below(entries, freq[h], loop_pct))
			continue;
		t->nloops++;
		if (cut_boundary(t, cfg, &c, w.mark, h + 1, body, nbody)) {
			rc = -1;
			goto out;
		}
	}
out:
	wpp_preds_free(&preds);
	cfg_edges_free(&c);
	free(body), free(freq), free(w.mark), free(w.stack);
	return rc;
}

/*
 * Section 4.1.1: locally hot edges (bias), then hot = on an ENTRY->EXIT
 * path of locally hot edges (forward reach from ENTRY, backward from
 * EXIT).  An ENTRY->v edge is locally hot when a locally hot cut restarts
 * at v, or it is the function's entry.
 */
static int classify(struct wpp_tpp *t, const struct wpp_cfg *cfg, double cold_pct)
{
	struct wpp_dag *f = &t->full;
	uint32_t n = f->nblocks, entry = WPP_DAG_ENTRY(n), exit = WPP_DAG_EXIT(n);
	uint64_t *freq = block_freq(t);
	uint8_t *local = calloc((size_t)f->nedges + 1, 1);
	uint8_t *fwd = calloc((size_t)n + 2, 1), *bwd = calloc((size_t)n + 2, 1);
	struct wpp_dag_walk w;
	int rc = -1;

	if (!freq || !local || !fwd || !bwd || wpp_dag_walk_begin(&w, f))
		goto out;
	for (uint32_t g = 0; g < f->nedges; g++)
		if (f->edges[g].src != entry)
			local[g] =
			    !wpp_tpp_below(t->edge[g].train, freq[f->edges[g].src], cold_pct);
	if (f->entry_edge[0] != WPP_NONE)
		local[f->entry_edge[0]] = 1;
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		uint32_t g = f->cfg_edge_dag[e], en = f->entry_edge[cfg->edge_dst[e]];
		if (f->edges[g].dst == exit && local[g] && en != WPP_NONE)
			local[en] = 1;
	}
	bwd[exit] = 1;
	for (uint32_t k = 0; k < w.nn; k++) {
		uint32_t v = w.order[k];
		for (uint32_t i = w.out.start[v]; i < w.out.start[v + 1]; i++)
			if (local[w.out.adj[i]] && bwd[f->edges[w.out.adj[i]].dst])
				bwd[v] = 1;
	}
	fwd[entry] = 1;
	for (uint32_t k = w.nn; k-- > 0;) {
		uint32_t v = w.order[k];
		for (uint32_t i = w.in.start[v]; i < w.in.start[v + 1]; i++)
			if (local[w.in.adj[i]] && fwd[f->edges[w.in.adj[i]].src])
				fwd[v] = 1;
	}
	for (uint32_t g = 0; g < f->nedges; g++) {
		const struct wpp_dag_edge *e = &f->edges[g];
		if (!local[g])
			t->edge[g].heat =
			    e->src == entry ? WPP_TPP_COLD_TRANSITIVE : WPP_TPP_COLD_BIAS;
		else
			t->edge[g].heat =
			    fwd[e->src] && bwd[e->dst] ? WPP_TPP_HOT : WPP_TPP_COLD_TRANSITIVE;
	}
	wpp_dag_walk_end(&w);
	rc = 0;
out:
	free(freq), free(local), free(fwd), free(bwd);
	return rc;
}

int wpp_tpp_regions(struct wpp_tpp *t, const struct wpp_cfg *cfg, const struct wpp_dag *d,
		    const uint64_t *train, const struct wpp_tpp_params *p, char *why, size_t whylen)
{
	int mismatch = cfg->nblocks != d->nblocks || !d->cfg_edge_dag;
	for (uint32_t e = 0; e < cfg->nedges && !mismatch; e++) {
		uint32_t g = d->cfg_edge_dag[e];
		mismatch = g >= d->nedges || d->edges[g].src != cfg->edge_src[e];
	}
	if (mismatch)
		return fail(why, whylen, "the CFG and the DAG do not belong together");
	if (copy_dag(t, cfg, d, train, p->weight))
		return fail(why, whylen, "out of memory");
	if (disconnect_loops(t, cfg, d, train, p->loop_pct))
		return fail(why, whylen, "out of memory");
	wpp_tpp_restarts(t, cfg);
	if (classify(t, cfg, p->cold_pct))
		return fail(why, whylen, "out of memory (or a cyclic DAG)");
	return 0;
}
