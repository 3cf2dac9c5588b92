/* SPDX-License-Identifier: MIT */
/*
 * forest_check.c — compare a k-IPF with the brute-force reference, node by
 * node (see forest_check.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "forest_check.h"

struct walk {
	const struct kipf *f;
	const struct ngram_ref *ref;
	size_t nodes;
	uint64_t lost; /* 0: exact comparison */
	uint64_t deficit[WPP_KIPF_MAX_K];
};

/* Every node of the forest is an n-gram the reference knows, with its count
 * (exact) or not above it (pruned). */
static void walk_node(struct walk *w, uint32_t idx, uint32_t *fids, uint64_t *values,
		      unsigned depth)
{
	const struct kipf_node *nd = &w->f->nodes[idx];
	uint64_t truth;

	fids[depth] = nd->fid;
	values[depth] = nd->value;
	truth = ngram_ref_count(w->ref, fids, values, depth + 1);
	assert_true(depth < w->f->k);
	assert_true(nd->count > 0);
	if (w->lost == 0)
		assert_int_equal(nd->count, truth);
	else
		assert_true(nd->count <= truth);
	w->nodes++;
	for (uint32_t c = nd->child; c; c = w->f->nodes[c].sibling)
		walk_node(w, c, fids, values, depth + 1);
}

static void walk_forest(struct walk *w)
{
	uint32_t fids[WPP_KIPF_MAX_K];
	uint64_t values[WPP_KIPF_MAX_K];

	for (uint32_t r = 0; r < w->f->nroots; r++)
		walk_node(w, w->f->roots[r], fids, values, 0);
}

/* Every reference n-gram is in the forest: count equal (exact) or within
 * [truth - lost, truth] (pruned); deficits per level summed. */
static void ref_gram(void *ctx, const struct ev *gram, unsigned n, uint64_t count)
{
	struct walk *w = ctx;
	uint32_t idx = 0;
	uint64_t have;

	for (unsigned i = 0; i < n; i++) {
		idx = kipf_find((struct kipf *)w->f, idx, gram[i].fid, gram[i].value);
		if (!idx)
			break;
	}
	have = idx ? w->f->nodes[idx].count : 0;
	if (w->lost == 0) {
		assert_int_equal(have, count);
	} else {
		assert_true(have <= count);
		assert_true(count - have <= w->lost);
		w->deficit[n - 1] += count - have;
	}
}

void forest_check(const struct kipf *f, const struct ngram_ref *ref, uint64_t lost)
{
	struct walk w = {.f = f, .ref = ref, .lost = lost};

	walk_forest(&w);
	ngram_ref_each(ref, ref_gram, &w);
	if (lost == 0)
		assert_int_equal(w.nodes, ngram_ref_distinct(ref));
	for (unsigned n = 0; n < f->k; n++)
		assert_true(w.deficit[n] <= lost);
}

void forest_same(const struct kipf *a, const struct kipf *b)
{
	/* The totals first, for a readable failure; then every node. */
	assert_int_equal(a->k, b->k);
	assert_int_equal(a->items, b->items);
	assert_int_equal(a->lost_items, b->lost_items);
	assert_int_equal(a->nroots, b->nroots);
	assert_true(kipf_equal(a, b));
}
