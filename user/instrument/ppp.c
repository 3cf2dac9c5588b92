/* SPDX-License-Identifier: MIT */
/*
 * ppp.c — preferential path numbering (see ppp.h).
 *
 * Each interesting path is decoded from its Ball-Larus id into its edges;
 * every edge then lists its occurrences (path, context).  Forward, the
 * context of an edge is the path's prefix before it, named by the
 * Ball-Larus partial sum up to it (id minus what is left to decode: unique
 * among the prefixes reaching one node); reversed, it is the path's suffix
 * after it, named by what is left to decode there (the suffix's Ball-Larus
 * value from that node: unique among the suffixes leaving it).  Nodes are
 * processed in the order that sees every context end at the node being
 * processed, so cis(q) lives only while that node is.
 */
#include "instrument/ppp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/dag_walk.h"
#include "instrument/ppp_compact.h"

/* Greedy ordering looks at nodes with at most this many numbered edges. */
#define GREEDY_MAX_EDGES 64

struct occurrence {
	uint64_t context; /* Ball-Larus name of the prefix (suffix) at the node */
	uint32_t path;
};

/* A node's contexts and their cumulative interval sizes. */
struct context_table {
	uint64_t *key;
	int64_t *cis;
	uint32_t n;
};

/* Fill: a node's occurrences by context, to find the ids a context holds
 * (its paths on the node's edges numbered already). */
struct member {
	uint32_t ctx, path, edge;
};

struct by_context {
	struct member *m;
	uint32_t *start; /* context c: m[start[c] .. start[c + 1]) */
	uint8_t *done;	 /* per edge: numbered at its node */
	int64_t *forbid; /* weights that would put two ids of a context together */
	size_t nforbid, capforbid;
};

struct ppp_work {
	const struct wpp_dag *d;
	const struct wpp_ppp_way *way;
	struct wpp_dag_walk walk;
	uint32_t *estart; /* occurrences of edge e: occ[estart[e] .. estart[e + 1]) */
	struct occurrence *occ;
	int64_t *pid;
	struct context_table ct;
	struct by_context bc;
	uint32_t *todo;	 /* a node's edges not numbered yet */
	int64_t budget;	 /* fill: id pairs left to compare in the whole numbering */
	int64_t limit;	 /* the most this numbering may use: occurrences + pairs */
	int64_t budget0; /* fill's budget at the start */
	uint64_t work;	 /* used: occurrences visited, edges weighed, pairs compared */
	uint64_t rng;	 /* shuffle: xorshift state */
	char *why;
	size_t whylen;
};

static int fail(struct ppp_work *w, const char *msg)
{
	if (w->why && w->whylen)
		snprintf(w->why, w->whylen, "%s", msg);
	return -1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int cmp_occ(const void *a, const void *b)
{
	const struct occurrence *x = a, *y = b;
	if (x->context != y->context)
		return (x->context > y->context) - (x->context < y->context);
	return (x->path > y->path) - (x->path < y->path);
}

void wpp_ppp_count_paths(const struct wpp_dag *d, struct wpp_dag_walk *walk)
{
	for (uint32_t k = 0; k < walk->nn; k++) {
		uint32_t v = walk->order[k];
		uint64_t sum = v == WPP_DAG_EXIT(d->nblocks) ? 1 : 0;
		for (uint32_t i = walk->out.start[v]; i < walk->out.start[v + 1]; i++)
			sum += walk->np[d->edges[walk->out.adj[i]].dst];
		walk->np[v] = sum;
	}
}

uint32_t wpp_ppp_edge_for(const struct wpp_dag *d, const struct wpp_dag_walk *walk, uint32_t v,
			  uint64_t r)
{
	for (uint32_t i = walk->out.start[v]; i < walk->out.start[v + 1]; i++) {
		const struct wpp_dag_edge *e = &d->edges[walk->out.adj[i]];
		uint64_t np = walk->np[e->dst];
		if (r >= e->val && r - e->val < np)
			return walk->out.adj[i];
	}
	return WPP_NONE;
}

/* Walks path p (Ball-Larus id) from ENTRY; on each edge calls either
 * counting (occ == NULL: estart[e + 1]++) or filling (occ[fill[e]++]). */
static int walk_path(struct ppp_work *w, uint32_t p, uint64_t id, uint32_t *fill)
{
	const struct wpp_dag *d = w->d;
	uint32_t v = WPP_DAG_ENTRY(d->nblocks), exit = WPP_DAG_EXIT(d->nblocks);
	uint64_t r = id;

	for (uint32_t steps = 0; v != exit; steps++) {
		uint32_t e = wpp_ppp_edge_for(d, &w->walk, v, r);
		if (e == WPP_NONE || steps > d->nedges)
			return fail(w, "a Ball-Larus id does not decode to a path of this DAG");
		uint64_t after = r - d->edges[e].val;
		if (fill)
			w->occ[fill[e]++] =
			    (struct occurrence){w->way->reverse ? after : id - r, p};
		else
			w->estart[e + 1]++;
		r = after;
		v = d->edges[e].dst;
	}
	return 0;
}

/* The edges whose occurrences have their context at v. */
static const struct wpp_dag_adj *node_edges(const struct ppp_work *w)
{
	return w->way->reverse ? &w->walk.in : &w->walk.out;
}

/* The distinct contexts of the occurrences on v's edges, each cis 0;
 * returns how many occurrences there are. */
static uint32_t contexts_of(struct ppp_work *w, uint32_t v)
{
	const struct wpp_dag_adj *adj = node_edges(w);
	uint32_t n = 0;

	for (uint32_t i = adj->start[v]; i < adj->start[v + 1]; i++) {
		uint32_t e = adj->adj[i];
		for (uint32_t k = w->estart[e]; k < w->estart[e + 1]; k++)
			w->ct.key[n++] = w->occ[k].context;
	}
	uint32_t nocc = n;
	qsort(w->ct.key, n, sizeof(uint64_t), cmp_u64);
	uint32_t m = 0;
	for (uint32_t k = 0; k < n; k++)
		if (!m || w->ct.key[m - 1] != w->ct.key[k])
			w->ct.key[m++] = w->ct.key[k];
	memset(w->ct.cis, 0, (size_t)m * sizeof(int64_t));
	w->ct.n = m;
	return nocc;
}

static uint32_t context_index(const struct ppp_work *w, uint64_t context)
{
	uint64_t *k = bsearch(&context, w->ct.key, w->ct.n, sizeof(uint64_t), cmp_u64);
	return (uint32_t)(k - w->ct.key); /* always there: contexts_of saw it */
}

static int cmp_member(const void *a, const void *b)
{
	const struct member *x = a, *y = b;
	if (x->ctx != y->ctx)
		return (x->ctx > y->ctx) - (x->ctx < y->ctx);
	return (x->edge > y->edge) - (x->edge < y->edge);
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Fill: node v's occurrences grouped by context. */
static void group_by_context(struct ppp_work *w, uint32_t v)
{
	const struct wpp_dag_adj *adj = node_edges(w);
	struct by_context *bc = &w->bc;
	uint32_t n = 0;

	for (uint32_t i = adj->start[v]; i < adj->start[v + 1]; i++) {
		uint32_t e = adj->adj[i];
		for (uint32_t k = w->estart[e]; k < w->estart[e + 1]; k++)
			bc->m[n++] =
			    (struct member){context_index(w, w->occ[k].context), w->occ[k].path, e};
	}
	qsort(bc->m, n, sizeof(*bc->m), cmp_member);
	memset(bc->start, 0, ((size_t)w->ct.n + 1) * sizeof(uint32_t));
	for (uint32_t k = 0; k < n; k++)
		bc->start[bc->m[k].ctx + 1]++;
	for (uint32_t c = 0; c < w->ct.n; c++)
		bc->start[c + 1] += bc->start[c];
}

static int forbid(struct by_context *bc, int64_t f)
{
	if (bc->nforbid == bc->capforbid) {
		size_t cap = bc->capforbid ? 2 * bc->capforbid : 1024;
		int64_t *p = realloc(bc->forbid, cap * sizeof(int64_t));
		if (!p)
			return -1;
		bc->forbid = p, bc->capforbid = cap;
	}
	bc->forbid[bc->nforbid++] = f;
	return 0;
}

/* Fill: the smallest weight in [low, join) under which none of e's paths
 * lands on an id its context holds, else join (which always fits: it
 * puts each context's ids past all it holds).  A weight f is ruled out
 * by every pair (held id a, e's partial id b) of one context with
 * f = a - b; the pairs compared count against the budget. */
static int fill_weight(struct ppp_work *w, uint32_t e, int64_t low, int64_t join, int64_t *weight)
{
	struct by_context *bc = &w->bc;
	struct occurrence *o = w->occ + w->estart[e];
	uint32_t n = w->estart[e + 1] - w->estart[e];

	*weight = join;
	bc->nforbid = 0;
	for (uint32_t a = 0, b; a < n; a = b) {
		uint32_t c = context_index(w, o[a].context);
		for (b = a + 1; b < n && o[b].context == o[a].context; b++)
			;
		for (uint32_t k = bc->start[c]; k < bc->start[c + 1]; k++) {
			if (!bc->done[bc->m[k].edge])
				continue;
			int64_t held = w->pid[bc->m[k].path];
			w->budget -= b - a;
			if (w->budget < 0)
				return 0;
			for (uint32_t i = a; i < b; i++) {
				int64_t f;
				if (__builtin_sub_overflow(held, w->pid[o[i].path], &f) ||
				    f < low || f >= join)
					continue;
				if (forbid(bc, f))
					return fail(w, "out of memory");
			}
		}
	}
	qsort(bc->forbid, bc->nforbid, sizeof(int64_t), cmp_i64);
	int64_t cand = low;
	for (size_t k = 0; k < bc->nforbid && bc->forbid[k] <= cand; k++)
		if (bc->forbid[k] == cand)
			cand++;
	*weight = cand;
	return 0;
}

/* Edge e's weight at this point of its node, and the holes it leaves
 * (growth of its contexts' cis beyond their intervals' own sizes).
 * Figure 10: weight_q = cis(q) - min over q's paths, the join takes the
 * largest, so q's ids start past every id q holds.  Fill: the smallest
 * weight (from the one putting the lowest id at 0) under which none of
 * the edge's paths lands on an id its context holds, else the join's. */
static int weigh_edge(struct ppp_work *w, uint32_t e, int64_t *weight, int64_t *holes)
{
	struct occurrence *o = w->occ + w->estart[e];
	uint32_t n = w->estart[e + 1] - w->estart[e];
	int64_t join = INT64_MIN, low = INT64_MIN;

	for (uint32_t a = 0, b; a < n; a = b) {
		int64_t min = w->pid[o[a].path], wq;
		for (b = a + 1; b < n && o[b].context == o[a].context; b++)
			if (w->pid[o[b].path] < min)
				min = w->pid[o[b].path];
		if (__builtin_sub_overflow(w->ct.cis[context_index(w, o[a].context)], min, &wq) ||
		    min == INT64_MIN)
			return fail(w, "preferential weights do not fit 63 bits");
		join = wq > join ? wq : join;
		low = -min > low ? -min : low;
	}
	*weight = join;
	if (w->way->fill && low < join && w->budget > 0 && fill_weight(w, e, low, join, weight))
		return -1;
	*holes = 0;
	for (uint32_t a = 0, b; a < n; a = b) {
		int64_t min = w->pid[o[a].path], max = min;
		for (b = a + 1; b < n && o[b].context == o[a].context; b++) {
			int64_t p = w->pid[o[b].path];
			min = p < min ? p : min;
			max = p > max ? p : max;
		}
		int64_t cis = w->ct.cis[context_index(w, o[a].context)], end;
		if (__builtin_add_overflow(max, *weight, &end) || end == INT64_MAX)
			return fail(w, "preferential ids do not fit 63 bits");
		*holes += (end + 1 > cis ? end + 1 - cis : 0) - (max - min + 1);
	}
	return 0;
}

/* Gives e its weight: every path through it moves, cis grows. */
static int number_edge(struct ppp_work *w, uint32_t e, int64_t wt)
{
	struct occurrence *o = w->occ + w->estart[e];
	uint32_t n = w->estart[e + 1] - w->estart[e];

	for (uint32_t a = 0, b; a < n; a = b) {
		uint32_t c = context_index(w, o[a].context);
		int64_t max = INT64_MIN;
		for (b = a; b < n && o[b].context == o[a].context; b++) {
			int64_t *pid = &w->pid[o[b].path];
			if (__builtin_add_overflow(*pid, wt, pid))
				return fail(w, "preferential ids do not fit 63 bits");
			if (*pid > max)
				max = *pid;
		}
		if (max == INT64_MAX)
			return fail(w, "preferential ids do not fit 63 bits");
		if (max + 1 > w->ct.cis[c])
			w->ct.cis[c] = max + 1;
	}
	if (w->bc.done)
		w->bc.done[e] = 1;
	return 0;
}

static uint32_t edge_paths(const struct ppp_work *w, uint32_t e)
{
	return w->estart[e + 1] - w->estart[e];
}

/* One node: its edges in edge-array order (Ball-Larus's), the ones with
 * the most interesting paths first, or greedily the one leaving the
 * fewest holes next; shuffled first if asked.  Edges no interesting path takes keep
 * weight 0. */
static int number_node(struct ppp_work *w, uint32_t v, int64_t *weights)
{
	const struct wpp_dag_adj *adj = node_edges(w);
	uint32_t n = 0;

	contexts_of(w, v);
	if (w->way->fill)
		group_by_context(w, v);
	for (uint32_t i = adj->start[v]; i < adj->start[v + 1]; i++)
		if (w->estart[adj->adj[i]] < w->estart[adj->adj[i] + 1])
			w->todo[n++] = adj->adj[i];
	int greedy = w->way->order == WPP_PPP_ORDER_HOLES && n <= GREEDY_MAX_EDGES;
	if (w->way->order == WPP_PPP_ORDER_LARGEST) /* stable: insertion */
		for (uint32_t a = 1; a < n; a++)
			for (uint32_t b = a;
			     b > 0 && edge_paths(w, w->todo[b]) > edge_paths(w, w->todo[b - 1]);
			     b--) {
				uint32_t t = w->todo[b];
				w->todo[b] = w->todo[b - 1], w->todo[b - 1] = t;
			}
	if (w->way->shuffle)
		for (uint32_t k = n; k > 1; k--) {
			w->rng ^= w->rng << 13, w->rng ^= w->rng >> 7, w->rng ^= w->rng << 17;
			uint32_t j = (uint32_t)(w->rng % k), t = w->todo[k - 1];
			w->todo[k - 1] = w->todo[j], w->todo[j] = t;
		}
	while (n) {
		uint32_t pick = 0;
		int64_t wt, holes;
		if (weigh_edge(w, w->todo[0], &wt, &holes))
			return -1;
		for (uint32_t k = 1; greedy && k < n; k++) {
			int64_t wk, hk;
			w->work += w->estart[w->todo[k] + 1] - w->estart[w->todo[k]];
			if (weigh_edge(w, w->todo[k], &wk, &hk))
				return -1;
			if (hk < holes)
				pick = k, wt = wk, holes = hk;
		}
		uint32_t e = w->todo[pick];
		memmove(w->todo + pick, w->todo + pick + 1, (n - pick - 1) * sizeof(uint32_t));
		n--;
		weights[e] = wt;
		if (number_edge(w, e, wt))
			return -1;
	}
	return 0;
}

static void work_end(struct ppp_work *w)
{
	wpp_dag_walk_end(&w->walk);
	free(w->estart);
	free(w->occ);
	free(w->pid);
	free(w->ct.key);
	free(w->ct.cis);
	free(w->bc.m);
	free(w->bc.start);
	free(w->bc.done);
	free(w->bc.forbid);
	free(w->todo);
}

/* Compaction (ppp_compact.h) of the numbering, on what the budget left. */
static int compact(struct ppp_work *w, struct wpp_ppp *out, uint32_t np)
{
	uint32_t ne = w->d->nedges, nocc = w->estart[ne];
	uint32_t *epaths = malloc(((size_t)nocc + 1) * sizeof(uint32_t));
	if (!epaths)
		return fail(w, "out of memory");
	for (uint32_t k = 0; k < nocc; k++)
		epaths[k] = w->occ[k].path;
	struct wpp_ppp_compact_in in = {np, ne, w->estart, epaths};
	int64_t budget = 32 * (int64_t)nocc + (INT64_C(1) << 22);
	int64_t left =
	    w->limit - (int64_t)(w->work + nocc) - (w->budget0 - (w->budget > 0 ? w->budget : 0));
	if (budget > left)
		budget = left;
	int rc = 0;
	if (budget > 0) {
		int64_t start = budget;
		rc = wpp_ppp_compact(&in, w->pid, out->weight, &budget);
		w->work += (uint64_t)(start - (budget > 0 ? budget : 0));
	}
	free(epaths);
	return rc ? fail(w, "out of memory") : 0;
}

static int number(struct ppp_work *w, struct wpp_ppp *out)
{
	const struct wpp_dag *d = w->d;
	uint32_t np = out->npaths, ne = d->nedges;
	uint64_t nocc;
	uint32_t *fill = NULL;

	if (wpp_dag_walk_begin(&w->walk, d))
		return fail(w, "out of memory (or a cyclic DAG)");
	wpp_ppp_count_paths(w->d, &w->walk);
	w->estart = calloc((size_t)ne + 1, sizeof(uint32_t));
	w->pid = calloc((size_t)np + 1, sizeof(int64_t));
	w->todo = malloc(((size_t)ne + 1) * sizeof(uint32_t));
	if (!w->estart || !w->pid || !w->todo)
		return fail(w, "out of memory");
	for (uint32_t p = 0; p < np; p++) {
		if (out->slot_bl[p] >= d->npaths)
			return fail(
			    w, "an interesting path id is not below the function's path count");
		if (walk_path(w, p, out->slot_bl[p], NULL))
			return -1;
	}
	for (uint32_t e = 0; e < ne; e++)
		w->estart[e + 1] += w->estart[e];
	nocc = w->estart[ne];
	w->budget = 32 * (int64_t)nocc + (INT64_C(1) << 22);
	if (w->budget > w->limit - (int64_t)nocc)
		w->budget = w->limit - (int64_t)nocc;
	if (w->budget < 0) /* the caller's limit is spent: fill uses the join */
		w->budget = 0;
	w->budget0 = w->budget;
	w->occ = malloc(((size_t)nocc + 1) * sizeof(*w->occ));
	w->ct.key = malloc(((size_t)nocc + 1) * sizeof(uint64_t));
	w->ct.cis = malloc(((size_t)nocc + 1) * sizeof(int64_t));
	fill = malloc(((size_t)ne + 1) * sizeof(uint32_t));
	if (w->way->fill) {
		w->bc.m = malloc(((size_t)nocc + 1) * sizeof(*w->bc.m));
		w->bc.start = malloc(((size_t)nocc + 2) * sizeof(uint32_t));
		w->bc.done = calloc((size_t)ne + 1, 1);
	}
	if (!w->occ || !w->ct.key || !w->ct.cis || !fill ||
	    (w->way->fill && (!w->bc.m || !w->bc.start || !w->bc.done))) {
		free(fill);
		return fail(w, "out of memory");
	}
	memcpy(fill, w->estart, (size_t)ne * sizeof(uint32_t));
	for (uint32_t p = 0; p < np; p++)
		walk_path(w, p, out->slot_bl[p], fill); /* decoded once already */
	free(fill);
	for (uint32_t e = 0; e < ne; e++)
		qsort(w->occ + w->estart[e], w->estart[e + 1] - w->estart[e], sizeof(*w->occ),
		      cmp_occ);

	for (uint32_t k = 0; k < w->walk.nn; k++) {
		uint32_t v = w->walk.order[w->way->reverse ? w->walk.nn - 1 - k : k];
		if (number_node(w, v, out->weight))
			return -1;
	}

	/* The last node (ENTRY forward, EXIT reversed) has one context, the
	 * empty one: its first edge moved the smallest id to 0, every weight
	 * kept ids >= 0, so the largest id + 1 is the interval. */
	if (w->way->compact && compact(w, out, np))
		return -1;
	int64_t max = -1;
	for (uint32_t p = 0; p < np; p++) {
		if (w->pid[p] < 0)
			return fail(w, "internal error: a preferential id below 0");
		if (w->pid[p] > max)
			max = w->pid[p];
		out->slot_ppp[p] = (uint64_t)w->pid[p];
	}
	out->interval = (uint64_t)(max + 1);
	out->way = *w->way;
	out->work = w->work + nocc + (uint64_t)(w->budget0 - (w->budget > 0 ? w->budget : 0));
	return 0;
}

/* One way, using at most limit units of work (struct wpp_ppp's work). */
static int number_way(const struct wpp_dag *d, const uint64_t *bl_ids, size_t n,
		      const struct wpp_ppp_way *way, int64_t limit, struct wpp_ppp *out, char *why,
		      size_t whylen)
{
	struct ppp_work w = {.d = d, .way = way, .limit = limit, .why = why, .whylen = whylen};
	w.rng = UINT64_C(0x9e3779b97f4a7c15) * (way->shuffle + 1);
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (n >= UINT32_MAX)
		return fail(&w, "too many interesting paths");
	out->weight = calloc((size_t)d->nedges + 1, sizeof(int64_t));
	out->slot_bl = malloc((n + 1) * sizeof(uint64_t));
	out->slot_ppp = calloc(n + 1, sizeof(uint64_t));
	if (!out->weight || !out->slot_bl || !out->slot_ppp) {
		fail(&w, "out of memory");
		goto out;
	}
	if (n)
		memcpy(out->slot_bl, bl_ids, n * sizeof(uint64_t));
	qsort(out->slot_bl, n, sizeof(uint64_t), cmp_u64);
	for (size_t k = 0; k < n; k++)
		if (!out->npaths || out->slot_bl[out->npaths - 1] != out->slot_bl[k])
			out->slot_bl[out->npaths++] = out->slot_bl[k];
	rc = number(&w, out);
out:
	work_end(&w);
	if (rc)
		wpp_ppp_free(out);
	return rc;
}

int wpp_ppp_number_way(const struct wpp_dag *d, const uint64_t *bl_ids, size_t n,
		       const struct wpp_ppp_way *way, struct wpp_ppp *out, char *why, size_t whylen)
{
	return number_way(d, bl_ids, n, way, INT64_MAX, out, why, whylen);
}

/* {reverse, order, fill, compact, shuffle} */
const struct wpp_ppp_way wpp_ppp_ways[WPP_PPP_NWAYS] = {
    {0, WPP_PPP_ORDER_BL, 0, 0, 0},	 {0, WPP_PPP_ORDER_BL, 1, 1, 0},
    {1, WPP_PPP_ORDER_BL, 1, 1, 0},	 {0, WPP_PPP_ORDER_LARGEST, 1, 1, 0},
    {1, WPP_PPP_ORDER_LARGEST, 1, 1, 0}, {0, WPP_PPP_ORDER_HOLES, 1, 1, 0},
    {1, WPP_PPP_ORDER_HOLES, 1, 1, 0},	 {0, WPP_PPP_ORDER_BL, 0, 1, 0},
    {1, WPP_PPP_ORDER_BL, 0, 1, 0},	 {0, WPP_PPP_ORDER_HOLES, 0, 0, 0},
};

/* The k-th way wpp_ppp_number tries: the fixed ones, then fill with
 * shuffled edge orders, forward and reversed in turn. */
static struct wpp_ppp_way way_to_try(int k)
{
	if (k < WPP_PPP_NWAYS)
		return wpp_ppp_ways[k];
	int s = k - WPP_PPP_NWAYS + 1;
	return (struct wpp_ppp_way){(uint8_t)(s & 1),
				    (uint8_t)(s / 2 % 2 ? WPP_PPP_ORDER_LARGEST : WPP_PPP_ORDER_BL),
				    1, 1, (uint32_t)s};
}

int wpp_ppp_number(const struct wpp_dag *d, const uint64_t *bl_ids, size_t n, struct wpp_ppp *out,
		   char *why, size_t whylen)
{
	struct wpp_ppp next;
	char first_why[160] = "";
	int have = 0;
	int64_t left = INT64_MAX;

	memset(out, 0, sizeof(*out));
	for (int k = 0; k < WPP_PPP_NWAYS + WPP_PPP_SHUFFLES && left > 0; k++) {
		if (have && out->interval <= out->npaths)
			break; /* perfect: nothing to gain */
		struct wpp_ppp_way way = way_to_try(k);
		int rc = number_way(d, bl_ids, n, &way, left, &next, k ? NULL : first_why,
				    k ? 0 : sizeof(first_why));
		if (rc && !k &&
		    (!strncmp(first_why, "out of memory", 13) ||
		     strstr(first_why, "not below") != NULL))
			break; /* no memory, or the set itself is bad: every way says so */
		if (!k)	       /* the paper's way: one pass over the paths' edges */
			left =
			    (int64_t)(WPP_PPP_EFFORT * (rc ? 1 : next.work)) + (INT64_C(1) << 23);
		if (rc)
			continue;
		left -= (int64_t)next.work;
		if (have && next.interval >= out->interval) {
			wpp_ppp_free(&next);
			continue;
		}
		if (have)
			wpp_ppp_free(out);
		*out = next;
		have = 1;
	}
	if (!have && why && whylen)
		snprintf(why, whylen, "%s", first_why);
	return have ? 0 : -1;
}

void wpp_ppp_free(struct wpp_ppp *p)
{
	free(p->weight);
	free(p->slot_bl);
	free(p->slot_ppp);
	memset(p, 0, sizeof(*p));
}

double wpp_ppp_compactness(const struct wpp_ppp *p)
{
	return p->npaths ? (double)p->interval / (double)p->npaths : 1.0;
}
