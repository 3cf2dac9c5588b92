/* SPDX-License-Identifier: MIT */
/*
 * edge_profile.c — path counts to DAG edge counts (see edge_profile.h).
 * Each function is kept with its own copy of its DAG's edges, so profiles
 * of several recordings can be summed after each is closed; an open
 * addressing table on the stable id finds it.
 */
#include "report/edge_profile.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "wpp/edge_profile.h"
#include "wpp/meta_format.h"

struct fn_entry {
	uint64_t stable_id;
	char *name, *source; /* source: its unit's main source file ("?" unknown) */
	uint32_t nedges;
	int conflicting;
	struct wpp_meta_edge *edges; /* copied: the recording's metadata */
	uint64_t *count;	     /* [nedges] */
};

struct edge_profile {
	struct fn_entry *slot;
	size_t cap, n;
	uint64_t path_executions;
};

struct edge_profile *edge_profile_new(void)
{
	return calloc(1, sizeof(struct edge_profile));
}

void edge_profile_free(struct edge_profile *ep)
{
	if (!ep)
		return;
	for (size_t i = 0; i < ep->cap; i++) {
		free(ep->slot[i].name);
		free(ep->slot[i].source);
		free(ep->slot[i].edges);
		free(ep->slot[i].count);
	}
	free(ep->slot);
	free(ep);
}

static size_t slot_of(const struct fn_entry *slot, size_t cap, uint64_t id)
{
	size_t k = (size_t)((id * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & (cap - 1);
	while (slot[k].name && slot[k].stable_id != id)
		k = (k + 1) & (cap - 1);
	return k;
}

static int grow(struct edge_profile *ep)
{
	size_t cap = ep->cap ? ep->cap * 2 : 256;
	struct fn_entry *slot = calloc(cap, sizeof(*slot));
	if (!slot)
		return -1;
	for (size_t i = 0; i < ep->cap; i++)
		if (ep->slot[i].name)
			slot[slot_of(slot, cap, ep->slot[i].stable_id)] = ep->slot[i];
	free(ep->slot);
	ep->slot = slot;
	ep->cap = cap;
	return 0;
}

static int same_dag(const struct fn_entry *f, const struct wpp_fn *fn)
{
	if (f->nedges != fn->nedges)
		return 0;
	for (uint32_t i = 0; i < fn->nedges; i++)
		if (f->edges[i].src != fn->edges[i].src || f->edges[i].dst != fn->edges[i].dst ||
		    f->edges[i].kind != fn->edges[i].kind)
			return 0;
	return 1;
}

/* fn's entry, made on first sight; NULL when out of memory. */
static struct fn_entry *entry_of(struct edge_profile *ep, const struct wpp_fn *fn)
{
	if ((ep->n + 1) * 2 > ep->cap && grow(ep) < 0)
		return NULL;
	struct fn_entry *f = &ep->slot[slot_of(ep->slot, ep->cap, fn->stable_id)];
	if (f->name) {
		if (!f->conflicting && !same_dag(f, fn))
			f->conflicting = 1;
		return f;
	}
	f->name = strdup(fn->name ? fn->name : "?");
	f->source = strdup(fn->tu && fn->tu->source && *fn->tu->source ? fn->tu->source : "?");
	f->edges = malloc(((size_t)fn->nedges + 1) * sizeof(*f->edges));
	f->count = calloc((size_t)fn->nedges + 1, sizeof(uint64_t));
	if (!f->name || !f->source || !f->edges || !f->count) {
		free(f->name), free(f->source), free(f->edges), free(f->count);
		memset(f, 0, sizeof(*f));
		return NULL;
	}
	f->stable_id = fn->stable_id;
	f->nedges = fn->nedges;
	memcpy(f->edges, fn->edges, (size_t)fn->nedges * sizeof(*f->edges));
	ep->n++;
	return f;
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

int edge_profile_add(struct edge_profile *ep, const struct rpt_profile *p)
{
	for (size_t i = 0; i < p->npaths; i++) {
		const struct rpt_path *r = &p->paths[i];
		if (r->is_block || !r->fn || !r->nblocks)
			continue;
		struct fn_entry *f = entry_of(ep, r->fn);
		if (!f)
			return -1;
		if (!f->conflicting)
			add_path(f->count, r);
		ep->path_executions += r->count;
	}
	return 0;
}

static int by_stable_id(const void *a, const void *b)
{
	const struct fn_entry *x = *(const struct fn_entry *const *)a;
	const struct fn_entry *y = *(const struct fn_entry *const *)b;
	return (x->stable_id > y->stable_id) - (x->stable_id < y->stable_id);
}

/* A name or source is one field: nothing a reader splits or stops at. */
static void put_field(FILE *out, const char *s)
{
	for (const char *c = s; *c; c++)
		fputc((unsigned char)*c <= ' ' || *c == 0x7f ? '?' : *c, out);
}

int edge_profile_write(const struct edge_profile *ep, FILE *out, const char *source,
		       struct edge_profile_stats *st)
{
	const struct fn_entry **list = malloc((ep->n + 1) * sizeof(*list));
	size_t n = 0;

	memset(st, 0, sizeof(*st));
	if (!list)
		return -1;
	for (size_t i = 0; i < ep->cap; i++)
		if (ep->slot[i].name)
			list[n++] = &ep->slot[i];
	qsort(list, n, sizeof(*list), by_stable_id);
	st->path_executions = ep->path_executions;
	fprintf(out, "%s %d\n", WPP_EDGE_PROFILE_MAGIC, WPP_EDGE_PROFILE_VERSION);
	fprintf(out, "# from %s\n", source);
	for (size_t k = 0; k < n; k++) {
		const struct fn_entry *f = list[k];
		if (f->conflicting) {
			st->conflicting++;
			continue;
		}
		fprintf(out, "f %016" PRIx64 " %" PRIu32 " ", f->stable_id, f->nedges);
		put_field(out, f->name);
		fputc(' ', out);
		put_field(out, f->source);
		fputc('\n', out);
		for (uint32_t i = 0; i < f->nedges; i++) {
			const struct wpp_meta_edge *e = &f->edges[i];
			fprintf(out, "e %" PRIu32 " %" PRIu32 " %" PRIu32 " %" PRIu64 " %d\n",
				e->src, e->dst, e->kind, f->count[i], e->inc != 0);
			if (e->inc != 0)
				st->increments += f->count[i];
		}
		st->functions++;
		st->edges += f->nedges;
	}
	free(list);
	return ferror(out) ? -1 : 0;
}
