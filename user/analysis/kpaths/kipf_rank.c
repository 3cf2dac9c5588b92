/* SPDX-License-Identifier: MIT */
/*
 * kipf_rank.c — select and order k-paths for the report (see kipf_rank.h).
 */
#include "analysis/kpaths/kipf_rank.h"

#include <stdlib.h>

struct cand {
	double cost; /* 0 when ranking by count */
	uint64_t count;
	uint32_t idx;
	uint32_t depth;
	size_t order; /* preorder position: label order within equal counts */
};

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->cost != y->cost)
		return x->cost > y->cost ? -1 : 1;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth > y->depth ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

long kipf_rank(const struct kipf *f, const struct kipf_rank_opts *o, uint32_t **out, size_t *total)
{
	struct cand *c = NULL;
	size_t n = 0, cap = 0, order = 0;
	uint32_t next[WPP_KIPF_MAX_K];
	unsigned k = o->k < f->k ? o->k : f->k;

	*out = NULL;
	*total = 0;
	for (uint32_t r = 0; r < f->nroots; r++) {
		uint32_t root = f->roots[r];
		unsigned depth = 0;
		uint32_t idx = root;

		if (o->keep && !o->keep(o->keep_ctx, f->nodes[root].fid, f->nodes[root].value))
			continue;
		/* Preorder over the subtree cut at depth k. */
		for (;;) {
			const struct kipf_node *nd = &f->nodes[idx];
			int has_child = depth + 1 < k && nd->child;
			int maximal = !has_child;

			if (nd->count >= o->min_count && (o->all || maximal)) {
				if (n == cap) {
					size_t ncap = cap ? cap * 2 : 256;
					struct cand *nc = realloc(c, ncap * sizeof(*nc));
					if (!nc) {
						free(c);
						return -1;
					}
					c = nc;
					cap = ncap;
				}
				c[n++] = (struct cand){.cost = o->cost ? o->cost[idx] : 0,
						       .count = nd->count,
						       .idx = idx,
						       .depth = depth,
						       .order = order};
			}
			order++;
			/* Counts never grow down a path of an exact forest, so a
			 * cold node's subtree is skipped; a pruned one is walked. */
			if (has_child && (f->lost_items || nd->count >= o->min_count)) {
				next[depth] = f->nodes[nd->child].sibling;
				idx = nd->child;
				depth++;
				continue;
			}
			while (depth > 0 && !next[depth - 1])
				depth--;
			if (depth == 0)
				break;
			idx = next[depth - 1];
			next[depth - 1] = f->nodes[idx].sibling;
		}
	}
	if (n)
		qsort(c, n, sizeof(*c), cand_cmp);
	*total = n;
	if (o->top && n > o->top)
		n = o->top;
	*out = malloc((n ? n : 1) * sizeof(**out));
	if (!*out) {
		free(c);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		(*out)[i] = c[i].idx;
	free(c);
	return (long)n;
}
