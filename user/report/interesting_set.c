/* SPDX-License-Identifier: MIT */
/*
 * interesting_set.c — executed paths to an interesting-path set (see
 * interesting_set.h).  Every (function, path) a recording executed is
 * kept as one item with its count; writing sorts the items by stable id
 * and path id, sums repeats, drops functions whose stable id came with
 * two different DAGs, and keeps the selected paths.
 */
#include "report/interesting_set.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "wpp/interesting.h"

struct item {
	uint64_t stable_id, id, count;
	uint32_t nedges;
	int keep;
	const char *name, *source; /* owned by the set's name list */
};

struct interesting_set {
	struct item *items;
	size_t n, cap;
	char **names;
	size_t nnames, names_cap;
};

struct interesting_set *interesting_set_new(void)
{
	return calloc(1, sizeof(struct interesting_set));
}

void interesting_set_free(struct interesting_set *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->items);
	free(s);
}

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 1024;
	while (ncap < need)
		ncap *= 2;
	void *a = realloc(*arr, ncap * size);
	if (!a)
		return -1;
	*arr = a;
	*cap = ncap;
	return 0;
}

int interesting_set_add(struct interesting_set *s, const struct rpt_profile *p)
{
	const struct wpp_fn *last = NULL;
	const char *name = NULL, *source = NULL;

	for (size_t i = 0; i < p->npaths; i++) {
		const struct rpt_path *r = &p->paths[i];
		if (r->is_block || !r->fn || !r->nblocks || !r->count)
			continue;
		if (r->fn != last) { /* paths come grouped by function */
			const char *src = r->fn->tu && r->fn->tu->source && *r->fn->tu->source
					      ? r->fn->tu->source
					      : "?";
			if (grow((void **)&s->names, &s->names_cap, s->nnames + 2,
				 sizeof(*s->names)) ||
			    !(s->names[s->nnames] = strdup(r->fn->name ? r->fn->name : "?")))
				return -1;
			name = s->names[s->nnames++];
			if (!(s->names[s->nnames] = strdup(src)))
				return -1;
			source = s->names[s->nnames++];
			last = r->fn;
		}
		if (grow((void **)&s->items, &s->cap, s->n + 1, sizeof(*s->items)))
			return -1;
		s->items[s->n++] = (struct item){
		    r->fn->stable_id, r->id, r->count, r->fn->nedges, 0, name, source};
	}
	return 0;
}

static int by_fn_then_id(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (x->stable_id != y->stable_id)
		return x->stable_id < y->stable_id ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

static int by_count_desc(const void *a, const void *b)
{
	const struct item *x = *(const struct item *const *)a, *y = *(const struct item *const *)b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return by_fn_then_id(x, y);
}

/* Sort and sum repeats in place; functions with two DAGs get nedges
 * UINT32_MAX on every item. */
static void merge(struct interesting_set *s, struct interesting_stats *st)
{
	size_t k = 0;
	qsort(s->items, s->n, sizeof(*s->items), by_fn_then_id);
	for (size_t i = 0; i < s->n; i++) {
		struct item *it = &s->items[i];
		if (k && s->items[k - 1].stable_id == it->stable_id &&
		    s->items[k - 1].id == it->id) {
			uint64_t *c = &s->items[k - 1].count;
			*c = *c > UINT64_MAX - it->count ? UINT64_MAX : *c + it->count;
		} else {
			s->items[k++] = *it;
		}
	}
	s->n = k;
	for (size_t i = 0, j; i < s->n; i = j) {
		int conflict = 0;
		for (j = i; j < s->n && s->items[j].stable_id == s->items[i].stable_id; j++)
			conflict |= s->items[j].nedges != s->items[i].nedges;
		if (conflict) {
			st->conflicting++;
			for (size_t m = i; m < j; m++)
				s->items[m].nedges = UINT32_MAX;
		}
	}
}

static void put_name(FILE *out, const char *name)
{
	/* a name or source is one field: nothing a reader splits or stops at */
	for (const char *c = name; *c; c++)
		fputc((unsigned char)*c <= ' ' || *c == 0x7f ? '?' : *c, out);
}

/* The selection in a comment line, so the file says what it holds. */
static void describe_selection(FILE *out, const struct interesting_select *sel)
{
	fputs("# kept: ", out);
	if (sel->top)
		fprintf(out, "the %" PRIu64 " hottest ", sel->top);
	else
		fputs("every ", out);
	if (sel->top && sel->min_count > 1)
		fputs("of the ", out);
	fputs(sel->top ? "paths" : "path", out);
	if (sel->min_count > 1)
		fprintf(out, " executed at least %" PRIu64 " times", sel->min_count);
	else if (!sel->top)
		fputs(" executed", out);
	fputc('\n', out);
}

int interesting_set_write(struct interesting_set *s, const struct interesting_select *sel,
			  FILE *out, const char *source, struct interesting_stats *st)
{
	memset(st, 0, sizeof(*st));
	merge(s, st);
	st->executed = s->n;
	for (size_t i = 0; i < s->n; i++)
		s->items[i].keep =
		    s->items[i].nedges != UINT32_MAX && s->items[i].count >= sel->min_count;
	if (sel->top) {
		struct item **order = malloc((s->n + 1) * sizeof(*order));
		size_t m = 0;
		if (!order)
			return -1;
		for (size_t i = 0; i < s->n; i++)
			if (s->items[i].keep)
				order[m++] = &s->items[i];
		qsort(order, m, sizeof(*order), by_count_desc);
		for (size_t i = sel->top; i < m; i++)
			order[i]->keep = 0;
		free(order);
	}
	fprintf(out, "%s %d\n", WPP_INTERESTING_MAGIC, WPP_INTERESTING_VERSION);
	fprintf(out, "# from %s\n", source);
	describe_selection(out, sel);
	for (size_t i = 0, j; i < s->n; i = j) {
		uint64_t kept = 0;
		for (j = i; j < s->n && s->items[j].stable_id == s->items[i].stable_id; j++)
			kept += s->items[j].keep;
		if (!kept)
			continue;
		fprintf(out, "f %016" PRIx64 " %" PRIu32 " %" PRIu64 " ", s->items[i].stable_id,
			s->items[i].nedges, kept);
		put_name(out, s->items[i].name);
		fputc(' ', out);
		put_name(out, s->items[i].source);
		fputc('\n', out);
		for (size_t m = i; m < j; m++)
			if (s->items[m].keep)
				fprintf(out, "p %" PRIu64 " %" PRIu64 "\n", s->items[m].id,
					s->items[m].count);
		st->functions++;
		st->paths += kept;
	}
	return ferror(out) ? -1 : 0;
}
