/* SPDX-License-Identifier: MIT */
/*
 * profile_view.c — group a profile's entries into the rows of one view.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "report/profile.h"

/* Order that makes entries of one merged row adjacent: function identity,
 * then object (so same-named functions of two binaries stay apart). */
static int merge_order(const struct rpt_path *a, const struct rpt_path *b, int by_function)
{
	int c;

	if ((c = rpt_fn_cmp(a->fn, b->fn)) != 0 || (c = strcmp(a->object, b->object)) != 0)
		return c;
	if (a->fn != b->fn)
		return (uintptr_t)a->fn < (uintptr_t)b->fn ? -1 : 1;
	if (by_function)
		return 0;
	if (a->is_block != b->is_block)
		return a->is_block - b->is_block;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int by_path_order(const void *x, const void *y)
{
	return merge_order(*(const struct rpt_path *const *)x, *(const struct rpt_path *const *)y,
			   0);
}

static enum rpt_sort sort_key;
static enum rpt_by sort_by;

static int row_order(const void *x, const void *y)
{
	const struct rpt_row *a = x, *b = y;
	uint64_t va = sort_key == RPT_SORT_COST ? a->cost : a->count;
	uint64_t vb = sort_key == RPT_SORT_COST ? b->cost : b->count;
	int c;

	if (va != vb)
		return va > vb ? -1 : 1;
	if (a->image)
		return a->image->pid != b->image->pid ? (a->image->pid < b->image->pid ? -1 : 1)
						      : (a->image->gen < b->image->gen ? -1 : 1);
	c = merge_order(a->path, b->path, sort_by == RPT_BY_FUNCTION);
	return c;
}

size_t rpt_rows(const struct rpt_profile *p, enum rpt_by by, enum rpt_sort sort,
		struct rpt_row **out)
{
	const struct rpt_path **order = NULL;
	struct rpt_row *rows = calloc(p->npaths + p->nimages + 1, sizeof(*rows));
	size_t n = 0;

	if (!rows)
		wpp_die("out of memory");
	if (by == RPT_BY_PROCESS) {
		for (size_t i = 0; i < p->nimages; i++)
			rows[n++] = (struct rpt_row){.image = &p->images[i],
						     .count = p->images[i].count,
						     .cost = p->images[i].cost,
						     .distinct = p->images[i].distinct,
						     .nimages = 1};
	} else {
		order = malloc((p->npaths + 1) * sizeof(*order));
		if (!order)
			wpp_die("out of memory");
		for (size_t i = 0; i < p->npaths; i++)
			order[i] = &p->paths[i];
		if (p->npaths)
			qsort(order, p->npaths, sizeof(*order), by_path_order);
		for (size_t i = 0; i < p->npaths; i++) {
			const struct rpt_path *r = order[i];
			struct rpt_row *row = n ? &rows[n - 1] : NULL;
			int same = row && merge_order(row->path, r, by == RPT_BY_FUNCTION) == 0;
			if (!same) {
				row = &rows[n++];
				*row =
				    (struct rpt_row){.path = r, .fn = r->fn, .object = r->object};
			}
			row->count += r->count;
			row->cost += r->cost;
			/* One entry per image and path: a path row's entries are its images. */
			if (by == RPT_BY_PATH)
				row->nimages++;
		}
		/* Distinct paths of a function row: entries whose path key changes
		 * (the same path in two images is one path). */
		if (by == RPT_BY_FUNCTION)
			for (size_t i = 0, k = 0; k < n; k++) {
				size_t j = i;
				uint64_t distinct = 0;
				while (j < p->npaths &&
				       merge_order(order[j], rows[k].path, 1) == 0) {
					if (j == i || merge_order(order[j], order[j - 1], 0) != 0)
						distinct++;
					j++;
				}
				rows[k].distinct = distinct;
				i = j;
			}
	}
	free(order);
	sort_key = sort;
	sort_by = by;
	if (n)
		qsort(rows, n, sizeof(*rows), row_order);
	/* A function row's path was only its identity while merging. */
	if (by == RPT_BY_FUNCTION)
		for (size_t k = 0; k < n; k++)
			rows[k].path = NULL;
	*out = rows;
	return n;
}
