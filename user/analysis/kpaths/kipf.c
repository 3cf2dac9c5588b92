/* SPDX-License-Identifier: MIT */
/*
 * kipf.c — k-IPF nodes, the k-SF -> k-IPF conversion, merging, ordering.
 */
#include "analysis/kpaths/kipf.h"

#include <stdlib.h>

#include "analysis/kpaths/kslab_internal.h"

static void kipf_node_label(const void *pool, uint32_t idx, uint32_t *fid, uint64_t *value)
{
	const struct kipf_node *n = (const struct kipf_node *)pool + idx;
	*fid = n->fid;
	*value = n->value;
}

struct kipf *kipf_new(unsigned k)
{
	struct kipf *f;

	if (k < 1 || k > WPP_KIPF_MAX_K)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->k = k;
	f->root_map.label = kipf_node_label;
	return f;
}

void kipf_free(struct kipf *f)
{
	if (!f)
		return;
	kslab_map_free(&f->root_map);
	free(f->nodes);
	free(f->roots);
	free(f);
}

static uint32_t new_node(struct kipf *f, uint32_t parent, uint32_t fid, uint64_t value)
{
	if (f->nnodes + 1 >= f->cap) {
		uint32_t ncap = f->cap ? f->cap * 2 : 1024;
		struct kipf_node *nn;
		if (ncap <= f->cap || !(nn = realloc(f->nodes, (size_t)ncap * sizeof(*nn)))) {
			f->failed = 1;
			return 0;
		}
		f->nodes = nn;
		f->cap = ncap;
	}
	f->nnodes++;
	f->nodes[f->nnodes] = (struct kipf_node){.fid = fid, .value = value, .parent = parent};
	return f->nnodes;
}

uint32_t kipf_find(struct kipf *f, uint32_t parent, uint32_t fid, uint64_t value)
{
	uint32_t prev = 0;

	if (!parent)
		return kslab_map_find(&f->root_map, f->nodes, fid, value);
	/* Move to front: the conversion joins many k-SF subtrees with the
	 * same labels in a row, so the child just found is likely next.  (A
	 * global (parent, label) hash table was tried instead: 2-3x slower,
	 * every probe a cache miss where the lists stay hot.) */
	for (uint32_t c = f->nodes[parent].child; c; prev = c, c = f->nodes[c].sibling)
		if (f->nodes[c].value == value && f->nodes[c].fid == fid) {
			if (prev) {
				f->nodes[prev].sibling = f->nodes[c].sibling;
				f->nodes[c].sibling = f->nodes[parent].child;
				f->nodes[parent].child = c;
			}
			return c;
		}
	return 0;
}

uint32_t kipf_child(struct kipf *f, uint32_t parent, uint32_t fid, uint64_t value)
{
	uint32_t c = kipf_find(f, parent, fid, value);

	return c ? c : kipf_new_child(f, parent, fid, value);
}

uint32_t kipf_new_child(struct kipf *f, uint32_t parent, uint32_t fid, uint64_t value)
{
	uint32_t c = new_node(f, parent, fid, value);

	if (!c)
		return 0;
	if (parent) {
		f->nodes[c].sibling = f->nodes[parent].child;
		f->nodes[parent].child = c;
	} else if (kslab_map_insert(&f->root_map, f->nodes, c) < 0) {
		f->failed = 1;
		return 0;
	}
	return c;
}

unsigned kipf_depth(const struct kipf *f, uint32_t idx)
{
	unsigned d = 0;

	while (f->nodes[idx].parent) {
		idx = f->nodes[idx].parent;
		d++;
	}
	return d;
}

/* Figure 7's join_subtree: add the k-SF subtree under rho, levels left,
 * below IPF node parent.  Recursion depth is at most k <= 32. */
static int join_subtree(struct kipf *f, const struct kslab *s, uint32_t rho, uint32_t parent,
			unsigned levels)
{
	const struct kslab_node *r = &s->nodes[rho];
	uint32_t d = kipf_child(f, parent, r->fid, r->value);

	if (!d)
		return -1;
	f->nodes[d].count += r->count;
	if (levels > 1)
		for (uint32_t c = r->child; c; c = s->nodes[c].sibling)
			if (join_subtree(f, s, c, d, levels - 1) < 0)
				return -1;
	return 0;
}

/* After pruning: unlink nodes that count nothing, and raise each count to
 * the sum of its children's.  Both keep every count a lower bound: the
 * occurrences of <p, x> for all x are occurrences of p, so the children's
 * (lower-bound) sum never exceeds p's true count.  It also restores
 * "no child counts more than its prefix", which readers check. */
static uint64_t tighten(struct kipf *f, uint32_t idx)
{
	uint64_t sum = 0;
	uint32_t *link = &f->nodes[idx].child;

	while (*link) {
		uint32_t c = *link;
		uint64_t sub = tighten(f, c);
		if (sub == 0)
			*link = f->nodes[c].sibling;
		else
			link = &f->nodes[c].sibling;
		sum += sub;
	}
	if (f->nodes[idx].count < sum)
		f->nodes[idx].count = sum;
	return f->nodes[idx].count;
}

static void tighten_roots(struct kipf *f)
{
	for (size_t i = 0; i < f->root_map.cap; i++) {
		uint32_t r = f->root_map.slots[i];
		if (r && tighten(f, r) == 0) {
			kslab_map_remove(&f->root_map, f->nodes, r);
			i--; /* backward shift may have pulled another root into slot i */
		}
	}
}

static const struct kslab_node *label_pool;

static int slab_label_cmp(const void *a, const void *b)
{
	const struct kslab_node *x = &label_pool[*(const uint32_t *)a],
				*y = &label_pool[*(const uint32_t *)b];

	if (x->fid != y->fid)
		return x->fid < y->fid ? -1 : 1;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* The live k-SF nodes sorted by label: order[0] = how many, then indices. */
static uint32_t *by_label(const struct kslab *s)
{
	uint32_t *order = malloc(((size_t)s->used + 1) * sizeof(*order));
	uint32_t n = 0;

	if (!order)
		return NULL;
	for (uint32_t i = 1; i < s->used; i++)
		if (s->nodes[i].fid)
			order[1 + n++] = i;
	order[0] = n;
	label_pool = s->nodes;
	qsort(order + 1, n, sizeof(*order), slab_label_cmp);
	return order;
}

int kipf_add_kslab(struct kipf *f, const struct kslab *s)
{
	if (f->k > (s->k < 2 ? 1 : s->k) || s->failed) {
		f->failed = 1;
		return -1;
	}
	/* Every node roots a subtree of the k-IPF (Figure 7): the k-paths that
	 * start at that node's position.  Nodes are joined grouped by label,
	 * as in the paper: consecutive joins then walk the same k-IPF subtree
	 * while it is in cache (in array order, big forests spend most of the
	 * conversion in cache misses). */
	uint32_t *order = by_label(s);
	if (!order) {
		f->failed = 1;
		return -1;
	}
	for (uint32_t i = 0; i < order[0]; i++)
		if (join_subtree(f, s, order[i + 1], 0, f->k) < 0) {
			free(order);
			return -1;
		}
	free(order);
	f->items += s->st.items;
	f->lost_items += s->st.lost_items;
	f->peak_slab_nodes += s->st.peak_nodes;
	if (s->st.lost_items)
		tighten_roots(f);
	return 0;
}

static int merge_subtree(struct kipf *dst, const struct kipf *src, uint32_t from, uint32_t parent,
			 unsigned levels)
{
	const struct kipf_node *n = &src->nodes[from];
	uint32_t d = kipf_child(dst, parent, n->fid, n->value);

	if (!d)
		return -1;
	dst->nodes[d].count += n->count;
	if (levels > 1)
		for (uint32_t c = n->child; c; c = src->nodes[c].sibling)
			if (merge_subtree(dst, src, c, d, levels - 1) < 0)
				return -1;
	return 0;
}

int kipf_merge(struct kipf *dst, const struct kipf *src)
{
	for (size_t i = 0; i < src->root_map.cap; i++)
		if (src->root_map.slots[i] &&
		    merge_subtree(dst, src, src->root_map.slots[i], 0, dst->k) < 0)
			return -1;
	dst->items += src->items;
	dst->lost_items += src->lost_items;
	dst->peak_slab_nodes += src->peak_slab_nodes;
	dst->failed |= src->failed;
	return 0;
}

static const struct kipf_node *sort_pool;

static int label_cmp(const void *a, const void *b)
{
	const struct kipf_node *x = &sort_pool[*(const uint32_t *)a],
			       *y = &sort_pool[*(const uint32_t *)b];

	if (x->fid != y->fid)
		return x->fid < y->fid ? -1 : 1;
	return x->value < y->value ? -1 : x->value > y->value;
}

int kipf_sort(struct kipf *f)
{
	uint32_t *tmp = malloc(((size_t)f->nnodes + 1) * sizeof(*tmp));
	uint32_t *roots = malloc((f->root_map.n + 1) * sizeof(*roots));

	if (!tmp || !roots) {
		free(tmp);
		free(roots);
		return -1;
	}
	sort_pool = f->nodes;
	for (uint32_t i = 1; i <= f->nnodes; i++) {
		uint32_t n = 0;
		for (uint32_t c = f->nodes[i].child; c; c = f->nodes[c].sibling)
			tmp[n++] = c;
		if (n < 2)
			continue;
		qsort(tmp, n, sizeof(*tmp), label_cmp);
		f->nodes[i].child = tmp[0];
		for (uint32_t j = 0; j + 1 < n; j++)
			f->nodes[tmp[j]].sibling = tmp[j + 1];
		f->nodes[tmp[n - 1]].sibling = 0;
	}
	f->nroots = 0;
	for (size_t i = 0; i < f->root_map.cap; i++)
		if (f->root_map.slots[i])
			roots[f->nroots++] = f->root_map.slots[i];
	qsort(roots, f->nroots, sizeof(*roots), label_cmp);
	free(f->roots);
	f->roots = roots;
	free(tmp);
	return 0;
}

/* Sibling lists walked together: sorted forests list children in the same
 * (fid, value) order when they are equal. */
static int equal_siblings(const struct kipf *a, uint32_t x, const struct kipf *b, uint32_t y)
{
	for (; x && y; x = a->nodes[x].sibling, y = b->nodes[y].sibling)
		if (a->nodes[x].fid != b->nodes[y].fid || a->nodes[x].value != b->nodes[y].value ||
		    a->nodes[x].count != b->nodes[y].count ||
		    !equal_siblings(a, a->nodes[x].child, b, b->nodes[y].child))
			return 0;
	return !x && !y;
}

int kipf_equal(const struct kipf *a, const struct kipf *b)
{
	if (a->k != b->k || a->items != b->items || a->lost_items != b->lost_items ||
	    a->nroots != b->nroots)
		return 0;
	for (uint32_t r = 0; r < a->nroots; r++) {
		const struct kipf_node *x = &a->nodes[a->roots[r]], *y = &b->nodes[b->roots[r]];
		if (x->fid != y->fid || x->value != y->value || x->count != y->count ||
		    !equal_siblings(a, x->child, b, y->child))
			return 0;
	}
	return 1;
}
