/* SPDX-License-Identifier: MIT */
/*
 * tpp_plan.c — TPP planning after the regions (see tpp.h): the hot DAG
 * numbered, obvious paths found (Figure 8), the recorded DAG numbered and
 * placed, and every full edge's register code.
 */
#include "instrument/tpp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/dag_walk.h"
#include "instrument/numbering.h"
#include "instrument/placement.h"
#include "instrument/tpp_regions.h"
#include "wpp/meta_format.h"

static int fail(char *why, size_t whylen, const char *msg)
{
	if (why && whylen)
		snprintf(why, whylen, "%s", msg);
	return -1;
}

/* A sub-DAG of t->full over the same nodes: the full edges keep[g] != 0,
 * in full order (so each node's edges keep their relative order).
 * map[k] = the full edge of sub edge k. */
static int sub_dag(struct wpp_dag *s, uint32_t **map, const struct wpp_dag *f, const uint8_t *keep)
{
	uint32_t n = f->nblocks;
	memset(s, 0, sizeof(*s));
	s->nblocks = n;
	s->entry_edge = malloc((size_t)n * sizeof(uint32_t));
	s->restart_at_start = calloc(n, 1);
	*map = malloc(((size_t)f->nedges + 1) * sizeof(uint32_t));
	if (!s->entry_edge || !s->restart_at_start || !*map)
		return -1;
	for (uint32_t b = 0; b < n; b++)
		s->entry_edge[b] = WPP_NONE;
	for (uint32_t g = 0; g < f->nedges; g++) {
		if (!keep[g])
			continue;
		const struct wpp_dag_edge *e = &f->edges[g];
		uint32_t k = wpp_dag_add_edge(s, e->src, e->dst, e->kind, e->cfg_src, e->cfg_dst);
		if (k == WPP_NONE)
			return -1;
		(*map)[k] = g;
		if (e->src == WPP_DAG_ENTRY(n))
			s->entry_edge[e->dst] = k;
	}
	return 0;
}

/*
 * Numbering the hot DAG may truncate it (numbering.h: REAL in-edges of a
 * node become CUT_EXIT, ENTRY->node edges are appended).  The same cuts go
 * into the full DAG so both describe one program.
 */
static int mirror_truncation(struct wpp_tpp *t, uint32_t nhot_before)
{
	struct wpp_dag *h = &t->hot, *f = &t->full;
	uint32_t *nm = realloc(t->hot_full, ((size_t)h->nedges + 1) * sizeof(uint32_t));
	if (!nm)
		return -1;
	t->hot_full = nm;
	for (uint32_t k = 0; k < nhot_before; k++) {
		uint32_t g = t->hot_full[k];
		if (h->edges[k].kind == f->edges[g].kind)
			continue;
		if (wpp_tpp_cut(t, g) == WPP_NONE)
			return -1;
	}
	for (uint32_t k = nhot_before; k < h->nedges; k++) {
		uint32_t v = h->edges[k].dst, g = f->entry_edge[v];
		if (g == WPP_NONE) /* wpp_tpp_cut made every needed one */
			return -1;
		t->edge[g].heat = WPP_TPP_HOT;
		t->hot_full[k] = g;
	}
	return 0;
}

static int number_hot(struct wpp_tpp *t, const struct wpp_tpp_params *p)
{
	struct wpp_dag *f = &t->full;
	uint8_t *keep = malloc((size_t)f->nedges + 1);
	int rc = -1;
	if (!keep)
		return -1;
	for (uint32_t g = 0; g < f->nedges; g++)
		keep[g] = t->edge[g].heat == WPP_TPP_HOT;
	if (sub_dag(&t->hot, &t->hot_full, f, keep))
		goto out;
	uint32_t before = t->hot.nedges;
	if (wpp_dag_number(&t->hot, p->narrow_limit, p->wide_limit))
		goto out;
	if (t->hot.truncated && mirror_truncation(t, before))
		goto out;
	for (uint32_t k = 0; k < t->hot.nedges; k++)
		t->edge[t->hot_full[k]].hot_edge = k;
	rc = 0;
out:
	free(keep);
	return rc;
}

/* Paths from ENTRY / to EXIT per hot node, saturating at 2. */
static void count_one_paths(const struct wpp_dag *h, const struct wpp_dag_walk *w, uint8_t *from,
			    uint8_t *to)
{
	uint32_t n = h->nblocks;
	for (uint32_t k = 0; k < w->nn; k++) {
		uint32_t v = w->order[k], s = v == WPP_DAG_EXIT(n);
		for (uint32_t i = w->out.start[v]; i < w->out.start[v + 1]; i++)
			s += to[h->edges[w->out.adj[i]].dst];
		to[v] = (uint8_t)(s > 2 ? 2 : s);
	}
	for (uint32_t k = w->nn; k-- > 0;) {
		uint32_t v = w->order[k], s = v == WPP_DAG_ENTRY(n);
		for (uint32_t i = w->in.start[v]; i < w->in.start[v + 1]; i++)
			s += from[h->edges[w->in.adj[i]].src];
		from[v] = (uint8_t)(s > 2 ? 2 : s);
	}
}

/* Figure 8: recording points (hot edges into EXIT but dead ends) reached
 * from ENTRY over non-defining edges only are non-obvious (nonobv[k]). */
static int find_obvious_recording_points(const struct wpp_tpp *t, const struct wpp_dag_walk *w,
					 const uint8_t *defining, uint8_t *nonobv)
{
	const struct wpp_dag *h = &t->hot;
	uint32_t n = h->nblocks, sp = 0;
	uint32_t *stack = malloc(((size_t)h->nedges + 1) * sizeof(uint32_t));
	uint8_t *queued = calloc((size_t)h->nedges + 1, 1);
	if (!stack || !queued) {
		free(stack), free(queued);
		return -1;
	}
	uint32_t entry = WPP_DAG_ENTRY(n);
	for (uint32_t i = w->out.start[entry]; i < w->out.start[entry + 1]; i++)
		if (!defining[w->out.adj[i]])
			stack[sp++] = w->out.adj[i], queued[w->out.adj[i]] = 1;
	while (sp) {
		uint32_t k = stack[--sp], v = h->edges[k].dst;
		if (v == WPP_DAG_EXIT(n)) {
			nonobv[k] = !t->edge[t->hot_full[k]].dead_end;
			continue;
		}
		for (uint32_t i = w->out.start[v]; i < w->out.start[v + 1]; i++) {
			uint32_t f = w->out.adj[i];
			if (!defining[f] && !queued[f])
				stack[sp++] = f, queued[f] = 1;
		}
	}
	free(stack), free(queued);
	return 0;
}

struct defining_path {
	uint64_t id, train;
	uint32_t hot_edge, exit;
	uint8_t inexact; /* also on cold paths (section 4.3's overcount) */
};

static int cmp_defining(const void *a, const void *b)
{
	const struct defining_path *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->inexact != y->inexact)
		return x->inexact < y->inexact ? -1 : 1;
	if (x->train != y->train)
		return x->train < y->train ? -1 : 1;
	return (x->hot_edge > y->hot_edge) - (x->hot_edge < y->hot_edge);
}

/* exact[g]: full edge g lies on one path of the full DAG, cold paths
 * included, so its count is its hot path's whatever runs cold. */
static int full_defining(const struct wpp_tpp *t, uint8_t *exact)
{
	struct wpp_dag_walk w;
	if (wpp_dag_walk_begin(&w, &t->full))
		return -1;
	uint8_t *from = calloc(w.nn, 1), *to = calloc(w.nn, 1);
	if (from && to) {
		count_one_paths(&t->full, &w, from, to);
		for (uint32_t g = 0; g < t->full.nedges; g++)
			exact[g] = from[t->full.edges[g].src] == 1 && to[t->full.edges[g].dst] == 1;
	}
	wpp_dag_walk_end(&w);
	int rc = from && to ? 0 : -1;
	free(from), free(to);
	return rc;
}

/*
 * The obvious paths whose recording point is obvious, each with one
 * defining edge: one on no cold path when there is one (its count is
 * exact, section 4.3), else the one of fewest training executions.  A defining edge's path
 * is its node's unique prefix from ENTRY and unique suffix to EXIT:
 * pre/suf are their Ball-Larus sums, ex the suffix's last edge.
 */
static int choose_defining(struct wpp_tpp *t, const struct wpp_dag_walk *w, const uint8_t *from,
			   const uint8_t *to, const uint8_t *defining, const uint8_t *nonobv)
{
	const struct wpp_dag *h = &t->hot;
	uint32_t nn = w->nn, exit = WPP_DAG_EXIT(h->nblocks), m = 0;
	uint64_t *pre = calloc(nn, sizeof(uint64_t)), *suf = calloc(nn, sizeof(uint64_t));
	uint32_t *ex = malloc((size_t)nn * sizeof(uint32_t));
	struct defining_path *dp = malloc(((size_t)h->nedges + 1) * sizeof(*dp));
	uint8_t *exact = calloc((size_t)t->full.nedges + 1, 1);
	int rc = -1;
	if (!pre || !suf || !ex || !dp || !exact || full_defining(t, exact))
		goto out;
	for (uint32_t k = 0; k < nn; k++) {
		uint32_t v = w->order[k];
		ex[v] = WPP_NONE;
		if (to[v] != 1 || v == exit)
			continue;
		for (uint32_t i = w->out.start[v]; i < w->out.start[v + 1]; i++) {
			const struct wpp_dag_edge *e = &h->edges[w->out.adj[i]];
			if (to[e->dst] == 1) { /* the only out-edge with a path */
				suf[v] = e->val + suf[e->dst];
				ex[v] = e->dst == exit ? w->out.adj[i] : ex[e->dst];
			}
		}
	}
	for (uint32_t k = nn; k-- > 0;) {
		uint32_t v = w->order[k];
		if (from[v] != 1)
			continue;
		for (uint32_t i = w->in.start[v]; i < w->in.start[v + 1]; i++) {
			const struct wpp_dag_edge *e = &h->edges[w->in.adj[i]];
			if (from[e->src] == 1)
				pre[v] = pre[e->src] + e->val;
		}
	}
	for (uint32_t k = 0; k < h->nedges; k++) {
		const struct wpp_dag_edge *e = &h->edges[k];
		if (!defining[k])
			continue;
		uint32_t x = e->dst == exit ? k : ex[e->dst];
		if (nonobv[x] || t->edge[t->hot_full[x]].dead_end)
			continue;
		dp[m++] = (struct defining_path){pre[e->src] + e->val + suf[e->dst],
						 t->edge[t->hot_full[k]].train, k, x,
						 !exact[t->hot_full[k]]};
	}
	qsort(dp, m, sizeof(*dp), cmp_defining);
	t->obvious = malloc(((size_t)m + 1) * sizeof(*t->obvious));
	if (!t->obvious)
		goto out;
	for (uint32_t i = 0; i < m; i++) {
		if (i && dp[i].id == dp[i - 1].id)
			continue;
		uint32_t g = t->hot_full[dp[i].hot_edge];
		t->edge[g].counter = t->nobvious;
		t->obvious[t->nobvious++] =
		    (struct wpp_tpp_obvious){dp[i].id, g, t->hot_full[dp[i].exit]};
	}
	rc = 0;
out:
	free(pre), free(suf), free(ex), free(dp), free(exact);
	return rc;
}

/* Defining edges, obvious recording points, edges needed (those from
 * which a non-obvious recording point is reached), obvious paths.  keep
 * receives the needed full edges. */
static int find_obvious(struct wpp_tpp *t, uint8_t *keep)
{
	const struct wpp_dag *h = &t->hot;
	uint32_t exit = WPP_DAG_EXIT(h->nblocks);
	struct wpp_dag_walk w;
	if (wpp_dag_walk_begin(&w, h))
		return -1;
	uint8_t *from = calloc(w.nn, 1), *to = calloc(w.nn, 1), *node_needed = calloc(w.nn, 1);
	uint8_t *defining = calloc((size_t)h->nedges + 1, 1);
	uint8_t *nonobv = calloc((size_t)h->nedges + 1, 1);
	int rc = -1;
	if (!from || !to || !node_needed || !defining || !nonobv)
		goto out;
	count_one_paths(h, &w, from, to);
	/* A path that starts after a call (CALL_ENTRY) starts at the call
	 * head's start, before the call: code there runs even when the call
	 * never returns (longjmp, exit, a signal handler that leaves), so
	 * counting it would count paths that never end.  Such an edge is
	 * defining, but no obvious path may be counted on it. */
	for (uint32_t k = 0; k < h->nedges; k++) {
		uint8_t one = from[h->edges[k].src] == 1 && to[h->edges[k].dst] == 1;
		t->edge[t->hot_full[k]].defining = one;
		defining[k] = one && h->edges[k].kind != WPP_EDGE_CALL_ENTRY;
	}
	if (find_obvious_recording_points(t, &w, defining, nonobv))
		goto out;
	for (uint32_t k = 0; k < h->nedges; k++)
		nonobv[k] |= t->edge[t->hot_full[k]].at_target;
	for (uint32_t k = 0; k < w.nn; k++) {
		uint32_t v = w.order[k];
		for (uint32_t i = w.out.start[v]; i < w.out.start[v + 1]; i++) {
			uint32_t e = w.out.adj[i], dst = h->edges[e].dst;
			if (dst == exit ? nonobv[e] : node_needed[dst]) {
				keep[t->hot_full[e]] = 1;
				node_needed[v] = 1;
			}
		}
	}
	rc = choose_defining(t, &w, from, to, defining, nonobv);
out:
	wpp_dag_walk_end(&w);
	free(from), free(to), free(node_needed), free(defining), free(nonobv);
	return rc;
}

/* The recorded DAG: numbered, placed with the edges' weights;
 * phi[v] its placement potential (inc = val + phi(src) - phi(dst)). */
static int number_rec(struct wpp_tpp *t, const uint8_t *keep, const struct wpp_tpp_params *p,
		      uint64_t *phi, uint8_t *in_rec)
{
	struct wpp_dag *r = &t->rec;
	uint32_t *rec_full = NULL;
	double *weight = NULL;
	struct wpp_dag_walk w = {0};
	int rc = -1;

	if (sub_dag(r, &rec_full, &t->full, keep))
		goto out;
	if (wpp_dag_number(r, p->narrow_limit, p->wide_limit) || r->truncated)
		goto out; /* a sub-DAG of the hot DAG: never truncated */
	weight = malloc(((size_t)r->nedges + 1) * sizeof(double));
	t->rec_hot = malloc(((size_t)r->nedges + 1) * sizeof(uint32_t));
	if (!weight || !t->rec_hot)
		goto out;
	for (uint32_t k = 0; k < r->nedges; k++) {
		weight[k] = t->edge[rec_full[k]].weight;
		t->rec_hot[k] = t->edge[rec_full[k]].hot_edge;
		t->edge[rec_full[k]].rec_edge = k;
	}
	if (wpp_dag_place(r, weight) || wpp_dag_walk_begin(&w, r))
		goto out;
	t->nslots = r->nedges ? r->npaths : 0;
	/* phi(ENTRY) = 0; every rec node is reached from ENTRY in rec. */
	for (uint32_t k = w.nn; k-- > 0;) {
		uint32_t v = w.order[k];
		if (v == WPP_DAG_ENTRY(r->nblocks)) {
			phi[v] = 0;
			in_rec[v] = w.out.start[v] < w.out.start[v + 1];
			continue;
		}
		if (w.in.start[v] == w.in.start[v + 1])
			continue;
		const struct wpp_dag_edge *e = &r->edges[w.in.adj[w.in.start[v]]];
		phi[v] = phi[e->src] + e->val - e->inc;
		in_rec[v] = w.out.start[v] < w.out.start[v + 1];
	}
	rc = 0;
out:
	wpp_dag_walk_end(&w);
	free(rec_full), free(weight);
	return rc;
}

/* Every full edge's register code (tpp.h), and the statistics of the
 * final plan (truncation may have made cold path starts hot). */
static void assign_ops(struct wpp_tpp *t, const uint64_t *phi, const uint8_t *in_rec)
{
	const struct wpp_dag *f = &t->full;
	uint32_t n = f->nblocks;
	t->ncold = t->ncold_bias = 0;
	for (uint32_t g = 0; g < f->nedges; g++) {
		struct wpp_tpp_edge *te = &t->edge[g];
		const struct wpp_dag_edge *e = &f->edges[g];
		t->ncold_bias += te->heat == WPP_TPP_COLD_BIAS;
		t->ncold += te->heat != WPP_TPP_HOT;
		te->op = WPP_TPP_NONE;
		te->value = 0;
		if (te->dead_end) {
			/* nothing runs there */
		} else if (te->rec_edge != WPP_NONE) {
			uint64_t inc = t->rec.edges[te->rec_edge].inc;
			te->value = inc;
			te->op = e->dst == WPP_DAG_EXIT(n)    ? WPP_TPP_RECORD
				 : e->src == WPP_DAG_ENTRY(n) ? WPP_TPP_SET
				 : inc			      ? WPP_TPP_ADD
							      : WPP_TPP_NONE;
		} else if (te->heat != WPP_TPP_HOT) {
			if (e->dst == WPP_DAG_EXIT(n))
				te->op = WPP_TPP_COLD;
			else if (in_rec[e->dst])
				te->op = WPP_TPP_SET,
				te->value = wpp_tpp_poison_base(t) - phi[e->dst];
		}
		t->nops += te->op != WPP_TPP_NONE;
	}
	t->npoison = t->ncold ? t->nslots : 0;
}

void wpp_tpp_free(struct wpp_tpp *t)
{
	wpp_dag_free(&t->full);
	wpp_dag_free(&t->hot);
	wpp_dag_free(&t->rec);
	free(t->edge);
	free(t->hot_full);
	free(t->rec_hot);
	free(t->obvious);
	memset(t, 0, sizeof(*t));
}

static int plan_once(struct wpp_tpp *t, const struct wpp_cfg *cfg, const struct wpp_dag *d,
		     const uint64_t *train, const struct wpp_tpp_params *p, char *why,
		     size_t whylen)
{
	uint8_t *keep = NULL, *in_rec = NULL;
	uint64_t *phi = NULL;
	int rc = -1;

	memset(t, 0, sizeof(*t));
	if (wpp_tpp_regions(t, cfg, d, train, p, why, whylen))
		goto out;
	if (number_hot(t, p)) {
		fail(why, whylen,
		     "cannot number the hot paths (out of memory, or limits no truncation meets)");
		goto out;
	}
	wpp_tpp_restarts(t, cfg);
	keep = calloc((size_t)t->full.nedges + 1, 1);
	phi = calloc((size_t)t->full.nblocks + 2, sizeof(uint64_t));
	in_rec = calloc((size_t)t->full.nblocks + 2, 1);
	if (!keep || !phi || !in_rec || find_obvious(t, keep) ||
	    number_rec(t, keep, p, phi, in_rec)) {
		fail(why, whylen, "out of memory finding the obvious paths");
		goto out;
	}
	assign_ops(t, phi, in_rec);
	rc = 0;
out:
	free(keep), free(phi), free(in_rec);
	if (rc)
		wpp_tpp_free(t);
	return rc;
}

/*
 * What a plan would execute on the training run, in rough instructions:
 * register code 1, a counter increment 3 in the array and 20 in the hash
 * (a call).  A plan too big for the array keeps its cold counter and edge
 * counters there all the same (ir_tpp.h, WPP_TPP_HOW_SPLIT).  Only to
 * compare two plans of one function.
 */
static double training_cost(const struct wpp_tpp *t, uint64_t array_max)
{
	double inc = wpp_tpp_ncounters(t) > array_max ? 20 : 3, cost = 0;
	double side = 1 + (uint64_t)t->nobvious > array_max ? 20 : 3;
	for (uint32_t g = 0; g < t->full.nedges; g++) {
		const struct wpp_tpp_edge *te = &t->edge[g];
		double c = te->counter != WPP_NONE ? side : 0;
		switch (te->op) {
		case WPP_TPP_ADD:
		case WPP_TPP_SET:
			c += 1;
			break;
		case WPP_TPP_RECORD:
			c += inc;
			break;
		case WPP_TPP_COLD:
			c += side;
			break;
		default:
			break;
		}
		cost += c * (double)te->train;
	}
	return cost;
}

/*
 * Section 5: "TPP eliminates cold paths from a routine only when doing so
 * permits the substitution of a counter array for a hash table", and
 * section 5.1 would also do it when it lets "a region be considered
 * obvious".  Cold removal costs accuracy (a cold path is not attributed;
 * a defining edge also on cold paths overcounts, section 4.3), so it is
 * kept only for one of those gains: the exact plan needs the hash and the
 * cold one does not, or the cold one executes at least a tenth less on
 * the training run.
 */
static int cold_pays(const struct wpp_tpp *cold, const struct wpp_tpp *exact, uint64_t array_max)
{
	int cold_hashed = wpp_tpp_ncounters(cold) > array_max;
	int exact_hashed = wpp_tpp_ncounters(exact) > array_max;
	if (exact_hashed != cold_hashed)
		return exact_hashed;
	return training_cost(cold, array_max) <= 0.9 * training_cost(exact, array_max);
}

int wpp_tpp_plan(struct wpp_tpp *t, const struct wpp_cfg *cfg, const struct wpp_dag *d,
		 const uint64_t *train, const struct wpp_tpp_params *p, char *why, size_t whylen)
{
	if (!p->array_max || !(p->cold_pct > 0))
		return plan_once(t, cfg, d, train, p, why, whylen);
	struct wpp_tpp_params q = *p;
	struct wpp_tpp exact;
	q.cold_pct = 0;
	if (plan_once(&exact, cfg, d, train, &q, why, whylen))
		return -1;
	if (plan_once(t, cfg, d, train, p, why, whylen)) {
		wpp_tpp_free(&exact);
		return -1;
	}
	if (t->ncold && !cold_pays(t, &exact, p->array_max)) {
		uint32_t declined = t->ncold;
		wpp_tpp_free(t);
		*t = exact;
		t->ncold_declined = declined;
	} else {
		wpp_tpp_free(&exact);
	}
	return 0;
}
