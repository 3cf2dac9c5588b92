/* SPDX-License-Identifier: MIT */
/*
 * edge_profile.c — path counts to DAG edge counts (see edge_profile.h).
 * Functions are gathered by their metadata record (one per binary), then
 * sorted by stable id so equal ids from several binaries merge and the
 * file's order is the format's.
 */
#include "edge_profile.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "wpp/edge_profile.h"
#include "wpp/meta_format.h"

struct fn_edges {
	const struct wpp_fn *fn;
	uint64_t *count; /* [fn->nedges], parallel to fn->edges */
};

struct fn_table {
	struct fn_edges *slot; /* open addressing on the fn pointer */
	size_t cap, n;
};

static size_t slot_of(const struct fn_table *t, const struct wpp_fn *fn)
{
	size_t k = (size_t)(((uintptr_t)fn >> 4) * UINT64_C(0x9E3779B97F4A7C15)) & (t->cap - 1);
	while (t->slot[k].fn && t->slot[k].fn != fn)
		k = (k + 1) & (t->cap - 1);
	return k;
}

static int table_grow(struct fn_table *t)
{
	struct fn_table g = {calloc(t->cap ? t->cap * 2 : 64, sizeof(*g.slot)),
			     t->cap ? t->cap * 2 : 64, t->n};
	if (!g.slot)
		return -1;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slot[i].fn)
			g.slot[slot_of(&g, t->slot[i].fn)] = t->slot[i];
	free(t->slot);
	*t = g;
	return 0;
}

static uint64_t *counts_of(struct fn_table *t, const struct wpp_fn *fn)
{
	if ((t->n + 1) * 2 > t->cap && table_grow(t) < 0)
		return NULL;
	size_t k = slot_of(t, fn);
	if (!t->slot[k].fn) {
		uint64_t *c = calloc((size_t)fn->nedges + 1, sizeof(uint64_t));
		if (!c)
			return NULL;
		t->slot[k] = (struct fn_edges){fn, c};
		t->n++;
	}
	return t->slot[k].count;
}

/* The REAL edge u->v of fn, or UINT32_MAX. */
static uint32_t real_edge(const struct wpp_fn *fn, uint32_t u, uint32_t v)
{
	for (uint32_t i = fn->out_first[u]; i < fn->out_first[u + 1]; i++)
		if (fn->edges[i].dst == v && fn->edges[i].kind == WPP_EDGE_REAL)
			return i;
	return UINT32_MAX;
}

static void add_path(uint64_t *count, const struct rpt_path *r)
{
	const struct wpp_fn *fn = r->fn;
	if (r->entry_edge < fn->nedges)
		count[r->entry_edge] += r->count;
	for (uint32_t i = 0; i + 1 < r->nblocks; i++) {
		uint32_t e = real_edge(fn, r->blocks[i], r->blocks[i + 1]);
		if (e != UINT32_MAX)
			count[e] += r->count;
	}
	if (r->exit_edge < fn->nedges)
		count[r->exit_edge] += r->count;
}

static int by_stable_id(const void *a, const void *b)
{
	const struct fn_edges *x = a, *y = b;
	if (x->fn->stable_id != y->fn->stable_id)
		return x->fn->stable_id < y->fn->stable_id ? -1 : 1;
	return strcmp(x->fn->name, y->fn->name);
}

static int same_dag(const struct wpp_fn *a, const struct wpp_fn *b)
{
	if (a->nedges != b->nedges)
		return 0;
	for (uint32_t i = 0; i < a->nedges; i++)
		if (a->edges[i].src != b->edges[i].src || a->edges[i].dst != b->edges[i].dst ||
		    a->edges[i].kind != b->edges[i].kind)
			return 0;
	return 1;
}

static void write_fn(FILE *out, const struct fn_edges *f, struct edge_profile_stats *st)
{
	const struct wpp_fn *fn = f->fn;
	fprintf(out, "f %016" PRIx64 " %" PRIu32 " %s\n", fn->stable_id, fn->nedges, fn->name);
	for (uint32_t i = 0; i < fn->nedges; i++) {
		const struct wpp_meta_edge *e = &fn->edges[i];
		fprintf(out, "e %" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu64 " %d\n", e->src,
			e->dst, e->kind, f->count[i], e->inc != 0);
		if (e->inc != 0)
			st->increments += f->count[i];
	}
	st->functions++;
	st->edges += fn->nedges;
}

int rpt_edge_profile_write(FILE *out, const struct rpt_profile *p, struct edge_profile_stats *st)
{
	struct fn_table t = {0};
	struct fn_edges *list = NULL;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	for (size_t i = 0; i < p->npaths; i++) {
		const struct rpt_path *r = &p->paths[i];
		if (r->is_block || !r->fn || !r->nblocks)
			continue;
		uint64_t *count = counts_of(&t, r->fn);
		if (!count)
			goto out;
		add_path(count, r);
		st->path_executions += r->count;
	}
	list = malloc((t.n + 1) * sizeof(*list));
	if (!list)
		goto out;
	size_t n = 0;
	for (size_t i = 0; i < t.cap; i++)
		if (t.slot[i].fn)
			list[n++] = t.slot[i];
	qsort(list, n, sizeof(*list), by_stable_id);
	fprintf(out, "%s %d\n", WPP_EDGE_PROFILE_MAGIC, WPP_EDGE_PROFILE_VERSION);
	fprintf(out, "# from %s: %zu functions\n", p->file, n);
	for (size_t a = 0, b; a < n; a = b) {
		/* the same function in several binaries: one entry, summed */
		for (b = a + 1; b < n && list[b].fn->stable_id == list[a].fn->stable_id; b++)
			if (same_dag(list[a].fn, list[b].fn))
				for (uint32_t e = 0; e < list[a].fn->nedges; e++)
					list[a].count[e] += list[b].count[e];
		write_fn(out, &list[a], st);
	}
	rc = ferror(out) ? -1 : 0;
out:
	for (size_t i = 0; i < t.cap; i++)
		free(t.slot[i].count);
	free(t.slot);
	free(list);
	return rc;
}
