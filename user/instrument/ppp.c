/* SPDX-License-Identifier: MIT */
/*
 * ppp.c — preferential path numbering (see ppp.h).
 *
 * Each interesting path is decoded from its Ball-Larus id into its edges;
 * every edge then lists its occurrences (path, prefix), where the prefix
 * before an edge is named by the Ball-Larus partial sum up to it (id minus
 * what is left to decode: unique among the prefixes reaching one node).
 * Nodes are processed bottom-up; cis(q) lives only while q's node is
 * processed, since prefix q ends there.
 */
#include "instrument/ppp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/dag_walk.h"

struct occurrence {
	uint64_t prefix; /* Ball-Larus partial sum of the path before the edge */
	uint32_t path;
};

/* A node's prefixes and their cumulative interval sizes. */
struct prefix_table {
	uint64_t *key;
	int64_t *cis;
	uint32_t n;
};

struct ppp_work {
	const struct wpp_dag *d;
	struct wpp_dag_walk walk;
	uint32_t *estart; /* occurrences of edge e: occ[estart[e] .. estart[e + 1]) */
	struct occurrence *occ;
	int64_t *pid;
	struct prefix_table pt;
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
	if (x->prefix != y->prefix)
		return (x->prefix > y->prefix) - (x->prefix < y->prefix);
	return (x->path > y->path) - (x->path < y->path);
}

/* Paths to EXIT per node, from the numbered DAG (fits: numbering bounded
 * every count). */
static void count_paths(struct ppp_work *w)
{
	const struct wpp_dag *d = w->d;
	for (uint32_t k = 0; k < w->walk.nn; k++) {
		uint32_t v = w->walk.order[k];
		uint64_t sum = v == WPP_DAG_EXIT(d->nblocks) ? 1 : 0;
		for (uint32_t i = w->walk.out.start[v]; i < w->walk.out.start[v + 1]; i++)
			sum += w->walk.np[d->edges[w->walk.out.adj[i]].dst];
		w->walk.np[v] = sum;
	}
}

/* The out-edge of v taking Ball-Larus remainder r (val <= r < val +
 * paths from its target), or WPP_NONE. */
static uint32_t edge_for(const struct ppp_work *w, uint32_t v, uint64_t r)
{
	const struct wpp_dag *d = w->d;
	for (uint32_t i = w->walk.out.start[v]; i < w->walk.out.start[v + 1]; i++) {
		const struct wpp_dag_edge *e = &d->edges[w->walk.out.adj[i]];
		uint64_t np = w->walk.np[e->dst];
		if (r >= e->val && r - e->val < np)
			return w->walk.out.adj[i];
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
		uint32_t e = edge_for(w, v, r);
		if (e == WPP_NONE || steps > d->nedges)
			return fail(w, "a Ball-Larus id does not decode to a path of this DAG");
		if (fill)
			w->occ[fill[e]++] = (struct occurrence){id - r, p};
		else
			w->estart[e + 1]++;
		r -= d->edges[e].val;
		v = d->edges[e].dst;
	}
	return 0;
}

/* The distinct prefixes of the occurrences on v's out-edges, each cis 0. */
static void prefixes_of(struct ppp_work *w, uint32_t v)
{
	const struct wpp_dag_adj *out = &w->walk.out;
	uint32_t n = 0;

	for (uint32_t i = out->start[v]; i < out->start[v + 1]; i++) {
		uint32_t e = out->adj[i];
		for (uint32_t k = w->estart[e]; k < w->estart[e + 1]; k++)
			w->pt.key[n++] = w->occ[k].prefix;
	}
	qsort(w->pt.key, n, sizeof(uint64_t), cmp_u64);
	uint32_t m = 0;
	for (uint32_t k = 0; k < n; k++)
		if (!m || w->pt.key[m - 1] != w->pt.key[k])
			w->pt.key[m++] = w->pt.key[k];
	memset(w->pt.cis, 0, (size_t)m * sizeof(int64_t));
	w->pt.n = m;
}

static int64_t *cis_of(struct ppp_work *w, uint64_t prefix)
{
	uint64_t *k = bsearch(&prefix, w->pt.key, w->pt.n, sizeof(uint64_t), cmp_u64);
	return &w->pt.cis[k - w->pt.key]; /* always there: prefixes_of saw it */
}

/* Figure 10's body for one edge: the join, the partial ids, the new cis. */
static int number_edge(struct ppp_work *w, uint32_t e, int64_t *weight)
{
	struct occurrence *o = w->occ + w->estart[e];
	uint32_t n = w->estart[e + 1] - w->estart[e];
	int have = 0;
	int64_t wt = 0;

	for (uint32_t a = 0, b; a < n; a = b) {
		int64_t min = w->pid[o[a].path], wq;
		for (b = a + 1; b < n && o[b].prefix == o[a].prefix; b++)
			if (w->pid[o[b].path] < min)
				min = w->pid[o[b].path];
		if (__builtin_sub_overflow(*cis_of(w, o[a].prefix), min, &wq))
			return fail(w, "preferential weights do not fit 63 bits");
		if (!have || wq > wt)
			wt = wq, have = 1;
	}
	*weight = wt;
	for (uint32_t a = 0, b; a < n; a = b) {
		int64_t max = INT64_MIN;
		for (b = a; b < n && o[b].prefix == o[a].prefix; b++) {
			int64_t *pid = &w->pid[o[b].path];
			if (__builtin_add_overflow(*pid, wt, pid))
				return fail(w, "preferential ids do not fit 63 bits");
			if (*pid > max)
				max = *pid;
		}
		if (max == INT64_MAX)
			return fail(w, "preferential ids do not fit 63 bits");
		*cis_of(w, o[a].prefix) = max + 1;
	}
	return 0;
}

static void work_end(struct ppp_work *w)
{
	wpp_dag_walk_end(&w->walk);
	free(w->estart);
	free(w->occ);
	free(w->pid);
	free(w->pt.key);
	free(w->pt.cis);
}

static int number(struct ppp_work *w, struct wpp_ppp *out)
{
	const struct wpp_dag *d = w->d;
	uint32_t np = out->npaths, ne = d->nedges;
	uint64_t nocc;
	uint32_t *fill = NULL;

	if (wpp_dag_walk_begin(&w->walk, d))
		return fail(w, "out of memory (or a cyclic DAG)");
	count_paths(w);
	w->estart = calloc((size_t)ne + 1, sizeof(uint32_t));
	w->pid = calloc((size_t)np + 1, sizeof(int64_t));
	if (!w->estart || !w->pid)
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
	w->occ = malloc(((size_t)nocc + 1) * sizeof(*w->occ));
	w->pt.key = malloc(((size_t)nocc + 1) * sizeof(uint64_t));
	w->pt.cis = malloc(((size_t)nocc + 1) * sizeof(int64_t));
	fill = malloc(((size_t)ne + 1) * sizeof(uint32_t));
	if (!w->occ || !w->pt.key || !w->pt.cis || !fill) {
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
		uint32_t v = w->walk.order[k];
		prefixes_of(w, v);
		for (uint32_t i = w->walk.out.start[v]; i < w->walk.out.start[v + 1]; i++) {
			uint32_t e = w->walk.out.adj[i];
			if (number_edge(w, e, &out->weight[e]))
				return -1;
		}
	}

	/* At ENTRY every path has the empty prefix, so its first edge moved
	 * the smallest id to 0 and the last cis is the interval. */
	int64_t max = -1;
	for (uint32_t p = 0; p < np; p++) {
		if (w->pid[p] < 0)
			return fail(w, "internal error: a preferential id below 0");
		if (w->pid[p] > max)
			max = w->pid[p];
		out->slot_ppp[p] = (uint64_t)w->pid[p];
	}
	out->interval = (uint64_t)(max + 1);
	return 0;
}

int wpp_ppp_number(const struct wpp_dag *d, const uint64_t *bl_ids, size_t n, struct wpp_ppp *out,
		   char *why, size_t whylen)
{
	struct ppp_work w = {.d = d, .why = why, .whylen = whylen};
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
