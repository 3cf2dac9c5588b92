/* SPDX-License-Identifier: MIT */
/* runs.c — loop nests whose path ends are counted as runs (see runs.h). */
#include "instrument/runs.h"

#include <stdlib.h>
#include <string.h>

#include "instrument/loops.h"
#include "wpp/meta_format.h"

/* Past this much walking, further loops are left alone (plain records are
 * always correct; runs are only an optimisation). */
#define RUNS_WORK_CAP (4u * 1000 * 1000)

/* LLVM's static likelihood of a loop-exit branch (4 : 124 in its branch
 * probability heuristics): an exit edge weighs 1, an edge staying inside
 * the region RUN_EXIT_ODDS - 1. */
#define RUN_EXIT_ODDS 32.0

struct post_block {
	uint32_t post, block;
};

/* Scratch of one function's search. */
struct run_finder {
	const struct wpp_cfg *cfg;
	const struct wpp_dag *d;
	const uint8_t *veto;
	const struct wpp_runs_opts *opts;
	const uint64_t *measured; /* per DAG edge, or NULL */
	struct wpp_preds preds;
	struct wpp_loop_walk w;
	uint32_t *body, nbody;
	uint8_t *claimed;	    /* per block: in a chosen region */
	uint32_t *member;	    /* per block: id of the candidate region it is in */
	uint32_t *owner;	    /* per block: header of its innermost loop + 1, 0 = none */
	uint32_t *paths;	    /* per block: words from it, saturated */
	double *stay;		    /* per block: probability its path ends on a back edge */
	uint8_t *to_call;	    /* per block: every path from it ends at a call */
	struct post_block *order;   /* the body in reverse topological order */
	struct post_block *headers; /* loop headers, largest body first */
};

static int block_allows_runs(const struct run_finder *f, uint32_t b)
{
	const struct wpp_cfg *cfg = f->cfg;
	if (f->veto && f->veto[b])
		return 0;
	if (cfg->block_flags[b] & (WPP_CFGB_INDIRECT_SRC | WPP_CFGB_PINNED))
		return 0;
	if ((cfg->block_flags[b] & WPP_CFGB_CALL_HEAD) && !f->opts->calls)
		return 0;
	return cfg->block_exit[b] == WPP_CFG_EXIT_NONE;
}

static int in_region(const struct run_finder *f, uint32_t b, uint32_t id)
{
	return f->member[b] == id;
}

/* Edge e ends the path before a call (into a call head). */
static int is_call_edge(const struct run_finder *f, uint32_t e)
{
	return f->d->edges[f->d->cfg_edge_dag[e]].kind == WPP_EDGE_CALL_EXIT;
}

/* In the loop whose region is being tried (its region, or a hole in it). */
static int in_loop(const struct run_finder *f, uint32_t b, uint32_t id)
{
	return f->w.mark[b] == id;
}

/* The body of walk `id` is the candidate region.  Every edge touching it
 * must be an ordinary edge, a back edge inside it (only to the header
 * unless nests are on), an entry edge into the header or an exit edge
 * whose code can go on the edge. */
static int region_qualifies(const struct run_finder *f, uint32_t id, uint32_t header)
{
	const struct wpp_cfg *cfg = f->cfg;
	for (uint32_t i = 0; i < f->nbody; i++)
		if (!block_allows_runs(f, f->body[i]) || f->claimed[f->body[i]])
			return 0;
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		uint32_t u = cfg->edge_src[e], v = cfg->edge_dst[e];
		int from = in_region(f, u, id), to = in_region(f, v, id);
		uint32_t kind = f->d->edges[f->d->cfg_edge_dag[e]].kind;
		if (!from && to && v != header && f->opts->nests != WPP_RUNS_LEVELS)
			return 0; /* entered in the middle (a level is, from its holes) */
		if (!from || !to) {
			if (from && (cfg->block_flags[v] & WPP_CFGB_PINNED))
				return 0; /* exit edge that cannot carry code */
			continue;
		}
		if (f->d->cfg_edge_retreating[e]) {
			if (kind != WPP_EDGE_BACK_EXIT ||
			    (v != header && f->opts->nests == WPP_RUNS_INNERMOST))
				return 0; /* a back edge also cut otherwise, or an inner loop */
		} else if (kind != WPP_EDGE_REAL &&
			   !(kind == WPP_EDGE_CALL_EXIT && f->opts->calls)) {
			return 0; /* truncation or other cut inside */
		}
	}
	return 1;
}

static int by_post(const void *a, const void *b)
{
	const struct post_block *x = a, *y = b;
	return (x->post > y->post) - (x->post < y->post);
}

/* Largest body first; ties in block order, so the choice is deterministic. */
static int by_size_desc(const void *a, const void *b)
{
	const struct post_block *x = a, *y = b;
	if (x->post != y->post)
		return (x->post < y->post) - (x->post > y->post);
	return (x->block > y->block) - (x->block < y->block);
}

/* Whether the region is worth counting (runs.h): at most max_paths
 * different words, and at least min_records records per entry by the
 * static estimate.  Inside a qualifying region the edges other than back
 * edges are forward DAG edges, so a block's successors end their DFS
 * before it: increasing post order is a reverse topological order.  A path
 * that ends at a call writes a plain record, not a counted word: it adds no
 * word and does not stay, and an edge that leads only to a call weighs as
 * little as a loop exit (runs.h). */
/* The measured records per entry of the region (runs.h), or a negative
 * value when the training run never entered it. */
static double measured_records(const struct run_finder *f, uint32_t id)
{
	const struct wpp_cfg *cfg = f->cfg;
	uint64_t entries = 0, backs = 0;
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		int from = in_region(f, cfg->edge_src[e], id),
		    to = in_region(f, cfg->edge_dst[e], id);
		uint64_t n = f->measured[f->d->cfg_edge_dag[e]];
		if (to && (!from || is_call_edge(f, e)))
			entries += n;
		else if (from && to && f->d->cfg_edge_retreating[e])
			backs += n;
	}
	return entries ? (double)(backs + entries) / (double)entries : -1.0;
}

static int region_worth_it(struct run_finder *f, uint32_t id, uint32_t header)
{
	const struct wpp_cfg *cfg = f->cfg;
	uint32_t limit = f->opts->max_paths;
	for (uint32_t i = 0; i < f->nbody; i++)
		f->order[i] = (struct post_block){f->d->dfs_post[f->body[i]], f->body[i]};
	qsort(f->order, f->nbody, sizeof(*f->order), by_post);
	for (uint32_t i = 0; i < f->nbody; i++) {
		uint32_t u = f->order[i].block;
		uint64_t npaths = 0;
		double wsum = 0, stay = 0;
		int only_calls = 1, nsucc = 0;
		for (uint32_t e = 0; e < cfg->nedges; e++) {
			if (cfg->edge_src[e] != u)
				continue;
			uint32_t v = cfg->edge_dst[e];
			nsucc++;
			if (!in_region(f, v, id)) {
				/* a hole (an inner loop) counts as staying, a loop exit as leaving
				 */
				int hole = in_loop(f, v, id);
				wsum += hole ? RUN_EXIT_ODDS - 1.0 : 1.0;
				stay += hole ? RUN_EXIT_ODDS - 1.0 : 0.0;
				only_calls = 0;
				continue;
			}
			if (is_call_edge(f, e)) {
				wsum += 1.0;
				continue;
			}
			int back = f->d->cfg_edge_retreating[e];
			int to_call = !back && f->to_call[v];
			double w = to_call ? 1.0 : RUN_EXIT_ODDS - 1.0;
			npaths += back ? 1 : f->paths[v];
			wsum += w;
			stay += w * (back ? 1.0 : f->stay[v]);
			only_calls &= to_call;
		}
		f->paths[u] = limit && npaths > limit ? limit + 1 : (uint32_t)npaths;
		f->stay[u] = wsum > 0 ? stay / wsum : 0.0;
		f->to_call[u] = (uint8_t)(nsucc > 0 && only_calls);
	}
	/* Path starts: the header and the targets of back edges and calls
	 * inside. */
	uint64_t words = f->paths[header];
	double qmin = f->stay[header];
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		uint32_t u = cfg->edge_src[e], v = cfg->edge_dst[e];
		if (!(f->d->cfg_edge_retreating[e] || is_call_edge(f, e)) || v == header ||
		    !in_region(f, u, id) || !in_region(f, v, id))
			continue;
		words += f->paths[v];
		if (f->stay[v] < qmin)
			qmin = f->stay[v];
		f->paths[v] = 0; /* count each start once */
	}
	if (limit && words > limit)
		return 0;
	double measured = f->measured ? measured_records(f, id) : -1.0;
	if (measured >= 0)
		return measured >= f->opts->min_records;
	return !(f->opts->min_records > 0 && qmin < 1.0 &&
		 1.0 / (1.0 - qmin) < f->opts->min_records);
}

static void claim_region(struct run_finder *f, uint32_t id, uint8_t *role)
{
	const struct wpp_cfg *cfg = f->cfg;
	for (uint32_t i = 0; i < f->nbody; i++)
		f->claimed[f->body[i]] = 1;
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		int from = in_region(f, cfg->edge_src[e], id),
		    to = in_region(f, cfg->edge_dst[e], id);
		if (from && to && f->d->cfg_edge_retreating[e])
			role[e] = WPP_RUN_BACK;
		else if ((from && !to) || (from && to && is_call_edge(f, e)))
			role[e] = WPP_RUN_EXIT; /* a call's path end: count first */
	}
}

/* Walks the loop of `header` under walk id `id` into f->body.  Returns -1
 * when the work cap was reached. */
static int walk_loop(struct run_finder *f, uint32_t header, uint32_t id)
{
	const struct wpp_cfg *cfg = f->cfg;
	f->nbody = 0;
	f->w.work += (uint64_t)cfg->nedges;
	for (uint32_t e = 0; e < cfg->nedges; e++)
		if (f->d->cfg_edge_retreating[e] && cfg->edge_dst[e] == header &&
		    wpp_loop_walk(&f->w, header, cfg->edge_src[e], id, f->body, &f->nbody))
			return -1;
	return f->w.work >= f->w.work_cap ? -1 : 0;
}

/* The candidate region of loop h (its body already walked into f->body
 * under walk id `id`): the whole body, or in levels mode the blocks whose
 * innermost loop is h.  Marks it in f->member and keeps only it in
 * f->body. */
static void take_region(struct run_finder *f, uint32_t h, uint32_t id)
{
	uint32_t k = 0;
	for (uint32_t i = 0; i < f->nbody; i++) {
		uint32_t b = f->body[i];
		if (f->opts->nests == WPP_RUNS_LEVELS && f->owner[b] != h + 1)
			continue;
		f->member[b] = id;
		f->body[k++] = b;
	}
	f->nbody = k;
}

/* Regions, outermost loops first; returns the number chosen. */
static int choose_regions(struct run_finder *f, uint8_t *role)
{
	uint32_t n = f->cfg->nblocks, nheaders = 0;
	int nregions = 0;
	for (uint32_t h = 0; h < n; h++) {
		if (!f->d->loop_header[h])
			continue;
		if (walk_loop(f, h, h + 1))
			break;
		f->headers[nheaders++] = (struct post_block){f->nbody, h};
	}
	qsort(f->headers, nheaders, sizeof(*f->headers), by_size_desc);
	/* Innermost loop of each block: smaller loops are walked later. */
	for (uint32_t i = 0; i < nheaders && f->opts->nests == WPP_RUNS_LEVELS; i++) {
		uint32_t h = f->headers[i].block;
		if (walk_loop(f, h, n + 1 + h))
			return nregions;
		for (uint32_t k = 0; k < f->nbody; k++)
			f->owner[f->body[k]] = h + 1;
	}
	for (uint32_t i = 0; i < nheaders; i++) {
		uint32_t h = f->headers[i].block,
			 id = 2 * n + 1 + h; /* ids unused by the walks above */
		if (f->claimed[h])
			continue; /* inside a region already */
		if (walk_loop(f, h, id))
			break;
		take_region(f, h, id);
		f->w.work += 2 * (uint64_t)f->nbody * f->cfg->nedges; /* the scans below */
		if (!f->nbody || !region_qualifies(f, id, h) || !region_worth_it(f, id, h))
			continue;
		claim_region(f, id, role);
		nregions++;
	}
	return nregions;
}

int wpp_runs_find(const struct wpp_cfg *cfg, const struct wpp_dag *d, const uint8_t *veto,
		  const struct wpp_runs_opts *opts, uint8_t *role)
{
	return wpp_runs_find_measured(cfg, d, veto, opts, NULL, role);
}

int wpp_runs_find_measured(const struct wpp_cfg *cfg, const struct wpp_dag *d, const uint8_t *veto,
			   const struct wpp_runs_opts *opts, const uint64_t *measured,
			   uint8_t *role)
{
	uint32_t n = cfg->nblocks;
	struct run_finder f = {
	    .cfg = cfg, .d = d, .veto = veto, .opts = opts, .measured = measured};
	int nregions = -1;
	memset(role, WPP_RUN_NONE, cfg->nedges);
	f.w = (struct wpp_loop_walk){.d = d, .preds = &f.preds, .work_cap = RUNS_WORK_CAP};
	f.w.mark = calloc(n, sizeof(uint32_t));
	f.w.stack = malloc((size_t)n * sizeof(uint32_t));
	f.body = malloc((size_t)n * sizeof(uint32_t));
	f.claimed = calloc(n, 1);
	f.member = calloc(n, sizeof(uint32_t));
	f.owner = calloc(n, sizeof(uint32_t));
	f.paths = malloc((size_t)n * sizeof(uint32_t));
	f.stay = malloc((size_t)n * sizeof(double));
	f.to_call = malloc(n);
	f.order = malloc((size_t)n * sizeof(*f.order));
	f.headers = malloc((size_t)n * sizeof(*f.headers));
	if (n && f.w.mark && f.w.stack && f.body && f.claimed && f.member && f.owner && f.paths &&
	    f.stay && f.to_call && f.order && f.headers && !wpp_preds_build(&f.preds, cfg))
		nregions = choose_regions(&f, role);
	else if (!n)
		nregions = 0;
	wpp_preds_free(&f.preds);
	free(f.w.mark), free(f.w.stack), free(f.body), free(f.claimed), free(f.member),
	    free(f.owner);
	free(f.paths), free(f.stay), free(f.to_call), free(f.order), free(f.headers);
	return nregions;
}
