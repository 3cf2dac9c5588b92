/* SPDX-License-Identifier: MIT */
/*
 * Path regeneration against brute force: for random small DAGs numbered by
 * the test's own Ball-Larus (testlib.c), enumerate every ENTRY->EXIT path by
 * depth-first search, check that the path sums are exactly 0..npaths-1, and
 * that wpp_path_expand() turns each sum back into that very path with the
 * right start and end kinds.  Ids >= npaths must be rejected.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "symbolizer/meta_model.h"
#include "decode/path_regen.h"
#include "testlib.h"

struct enum_ctx {
	const struct tl_func *f;
	const struct wpp_fn *fn;
	uint32_t stack[TL_MAX_BLOCKS + 2];
	uint32_t depth;
	uint32_t first_kind;
	unsigned char *seen; /* per path id */
	uint64_t npaths_seen;
};

static enum wpp_path_start expect_start(uint32_t kind)
{
	return kind == WPP_EDGE_FUNC_ENTRY   ? WPP_START_ENTRY
	       : kind == WPP_EDGE_BACK_ENTRY ? WPP_START_BACK_EDGE
	       : kind == WPP_EDGE_CALL_ENTRY ? WPP_START_CALL
					     : WPP_START_CUT;
}

static enum wpp_path_end expect_end(uint32_t kind)
{
	return kind == WPP_EDGE_RETURN      ? WPP_END_RETURN
	       : kind == WPP_EDGE_BACK_EXIT ? WPP_END_BACK_EDGE
	       : kind == WPP_EDGE_CALL_EXIT ? WPP_END_CALL
	       : kind == WPP_EDGE_CUT_EXIT  ? WPP_END_CUT
					    : WPP_END_NORETURN;
}

static void dfs(struct enum_ctx *c, uint32_t node, uint64_t sum)
{
	const struct tl_func *f = c->f;

	for (uint32_t i = 0; i < f->nedges; i++) {
		const struct tl_edge *e = &f->edges[i];
		if (e->src != node)
			continue;
		if (node == f->nblocks)
			c->first_kind = e->kind;
		if (e->dst == f->nblocks + 1) {
			uint64_t id = sum + e->val;
			uint32_t blocks[TL_MAX_BLOCKS];
			struct wpp_path p;

			assert_true(id < f->npaths);
			assert_false(c->seen[id]); /* numbering is a bijection */
			c->seen[id] = 1;
			c->npaths_seen++;
			assert_int_equal(wpp_path_expand(c->fn, id, blocks, TL_MAX_BLOCKS, &p), 0);
			assert_int_equal(p.nblocks, c->depth);
			assert_memory_equal(p.blocks, c->stack, c->depth * sizeof(uint32_t));
			assert_int_equal(p.start, expect_start(c->first_kind));
			assert_int_equal(p.end, expect_end(e->kind));
		} else {
			c->stack[c->depth++] = e->dst;
			dfs(c, e->dst, sum + e->val);
			c->depth--;
		}
	}
}

static void test_random_dags(void **state)
{
	unsigned seed = 2024;
	uint64_t total_paths = 0;

	(void)state;
	for (int iter = 0; iter < 400; iter++) {
		struct tl_func f;
		uint32_t n = 1 + (uint32_t)(rand_r(&seed) % 14);
		char err[200];
		size_t size;
		void *blob;
		struct wpp_tu *tu;
		struct enum_ctx c = {0};
		uint32_t blocks[TL_MAX_BLOCKS];
		struct wpp_path p;

		tl_random_dag(&f, n, &seed);
		blob = tl_blob(&f, 1, 9, WPP_MODE_PATHS, &size);
		tu = wpp_meta_parse(blob, size, err, sizeof(err));
		if (!tu)
			fail_msg("iteration %d: %s", iter, err);
		c.f = &f;
		c.fn = tu->by_local[0];
		c.seen = calloc(f.npaths, 1);
		dfs(&c, f.nblocks, 0);
		assert_int_equal(c.npaths_seen, f.npaths); /* every id 0..npaths-1 hit once */
		total_paths += f.npaths;
		for (uint64_t k = 0; k < 4; k++)
			assert_int_equal(wpp_path_expand(c.fn, f.npaths + k * 977, blocks, TL_MAX_BLOCKS, &p), -1);
		assert_int_equal(wpp_path_expand(c.fn, UINT64_MAX, blocks, TL_MAX_BLOCKS, &p), -1);
		/* a buffer too small for the longest path must fail, not overflow */
		if (f.nblocks > 1)
			for (uint64_t id = 0; id < f.npaths; id++)
				if (wpp_path_expand(c.fn, id, blocks, 1, &p) == 0)
					assert_int_equal(p.nblocks, 1);
		free(c.seen);
		wpp_tu_free(tu);
		free(blob);
	}
	print_message("checked %llu paths\n", (unsigned long long)total_paths);
}

/* A hand-checked diamond: the classic 4-path example with a loop back edge. */
static void test_diamond(void **state)
{
	/* blocks: 0 entry, 1/2 arms, 3 join/latch; back edge 3->0 becomes 3->EXIT + ENTRY->0 */
	struct tl_func f = {.name = "diamond", .nblocks = 4};
	uint32_t blocks[8];
	struct wpp_path p;
	char err[200];
	size_t size;

	(void)state;
	f.edges[f.nedges++] = (struct tl_edge){4, 0, WPP_EDGE_FUNC_ENTRY, 0};
	f.edges[f.nedges++] = (struct tl_edge){4, 0, WPP_EDGE_BACK_ENTRY, 0};
	f.edges[f.nedges++] = (struct tl_edge){0, 1, WPP_EDGE_REAL, 0};
	f.edges[f.nedges++] = (struct tl_edge){0, 2, WPP_EDGE_REAL, 0};
	f.edges[f.nedges++] = (struct tl_edge){1, 3, WPP_EDGE_REAL, 0};
	f.edges[f.nedges++] = (struct tl_edge){2, 3, WPP_EDGE_REAL, 0};
	f.edges[f.nedges++] = (struct tl_edge){3, 5, WPP_EDGE_RETURN, 0};
	f.edges[f.nedges++] = (struct tl_edge){3, 5, WPP_EDGE_BACK_EXIT, 0};
	tl_number(&f);
	assert_int_equal(f.npaths, 8);
	void *blob = tl_blob(&f, 1, 1, WPP_MODE_PATHS, &size);
	struct wpp_tu *tu = wpp_meta_parse(blob, size, err, sizeof(err));
	assert_non_null(tu);
	/* id 0: entry, 0 -> 1 -> 3, return.  Edge vals: ENTRY: 0, 4; 0: 0, 2; 3: 0, 1. */
	assert_int_equal(wpp_path_expand(tu->by_local[0], 0, blocks, 8, &p), 0);
	assert_int_equal(p.nblocks, 3);
	assert_int_equal(blocks[0], 0);
	assert_int_equal(blocks[1], 1);
	assert_int_equal(blocks[2], 3);
	assert_int_equal(p.start, WPP_START_ENTRY);
	assert_int_equal(p.end, WPP_END_RETURN);
	/* id 7 = 4 + 2 + 1: after back edge, 0 -> 2 -> 3, back edge */
	assert_int_equal(wpp_path_expand(tu->by_local[0], 7, blocks, 8, &p), 0);
	assert_int_equal(blocks[1], 2);
	assert_int_equal(p.start, WPP_START_BACK_EDGE);
	assert_int_equal(p.end, WPP_END_BACK_EDGE);
	assert_int_equal(wpp_path_expand(tu->by_local[0], 8, blocks, 8, &p), -1);
	wpp_tu_free(tu);
	free(blob);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_diamond),
		cmocka_unit_test(test_random_dags),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
