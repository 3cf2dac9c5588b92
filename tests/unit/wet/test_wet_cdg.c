/* SPDX-License-Identifier: MIT */
/*
 * test_wet_cdg.c — post-dominators and control dependences against their
 * definitions on random CFGs (self loops, repeated edges, infinite loops,
 * unreachable blocks): d post-dominates b when the exit cannot be reached
 * from b once d is removed; b depends on p when b post-dominates (or is) a
 * successor of p and does not strictly post-dominate p.  Plus a
 * hand-checked if/else and loop, and malformed CFGs rejected.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/wet/wet_cdg.h"
#include "wet_gen.h"

#define MAXN 26

struct graph {
	uint32_t n;
	uint32_t off[MAXN + 1], succ[MAXN * 4];
	/* The augmented graph the definitions use: exit = n. */
	uint8_t to_exit[MAXN];
};

/* Can the exit be reached from b without passing through `removed`? */
static int reaches_exit(const struct graph *g, uint32_t b, uint32_t removed)
{
	uint8_t seen[MAXN + 1] = {0};
	uint32_t stack[MAXN + 1], sp = 0;

	if (b == removed)
		return 0;
	stack[sp++] = b;
	seen[b] = 1;
	while (sp) {
		uint32_t v = stack[--sp];

		if (g->to_exit[v])
			return 1;
		for (uint32_t e = g->off[v]; e < g->off[v + 1]; e++) {
			uint32_t w = g->succ[e];

			if (w != removed && !seen[w]) {
				seen[w] = 1;
				stack[sp++] = w;
			}
		}
	}
	return 0;
}

/* d post-dominates b (d == n is the exit, which post-dominates all). */
static int pdom(const struct graph *g, uint32_t d, uint32_t b)
{
	if (d == g->n || d == b)
		return 1;
	return !reaches_exit(g, b, d);
}

static void augment(struct graph *g)
{
	for (uint32_t b = 0; b < g->n; b++)
		g->to_exit[b] = g->off[b + 1] == g->off[b];
	/* Blocks that reach no exit flow into it too (computed on the graph
	 * with only the real exits). */
	uint8_t reach[MAXN];

	for (uint32_t b = 0; b < g->n; b++)
		reach[b] = reaches_exit(g, b, UINT32_MAX);
	for (uint32_t b = 0; b < g->n; b++)
		if (!reach[b])
			g->to_exit[b] = 1;
}

static void random_graph(struct graph *g, uint64_t *seed)
{
	uint32_t k = 0;

	g->n = 1 + (uint32_t)(wet_gen_rand(seed) % MAXN);
	for (uint32_t b = 0; b < g->n; b++) {
		uint32_t nsucc = (uint32_t)(wet_gen_rand(seed) % 4);

		g->off[b] = k;
		for (uint32_t i = 0; i < nsucc; i++)
			g->succ[k++] = (uint32_t)(wet_gen_rand(seed) % g->n);
	}
	g->off[g->n] = k;
	augment(g);
}

static void check_graph(struct graph *g)
{
	struct wet_cfg cfg = {g->n, g->off, g->succ};
	uint32_t ipdom[MAXN];
	struct wet_cdeps cd;

	assert_int_equal(wet_postdom(&cfg, ipdom), 0);
	for (uint32_t b = 0; b < g->n; b++) {
		uint32_t d = ipdom[b];

		/* d strictly post-dominates b, and every strict post-dominator
		 * of b post-dominates d (d is the closest). */
		assert_true(d <= g->n && d != b);
		if (!pdom(g, d, b))
			fail_msg("block %u: ipdom %u does not post-dominate it", b, d);
		for (uint32_t o = 0; o <= g->n; o++)
			if (o != b && pdom(g, o, b) && !pdom(g, o, d))
				fail_msg("block %u: %u post-dominates it but not its ipdom %u", b, o, d);
	}
	assert_int_equal(wet_control_deps(&cfg, ipdom, &cd), 0);
	for (uint32_t b = 0; b < g->n; b++)
		for (uint32_t p = 0; p < g->n; p++) {
			int want = 0, got = 0;

			for (uint32_t e = g->off[p]; e < g->off[p + 1]; e++)
				if (pdom(g, b, g->succ[e]) && !(b != p && pdom(g, b, p)))
					want = 1;
			for (uint32_t i = cd.off[b]; i < cd.off[b + 1]; i++) {
				if (cd.on[i] == p)
					got++;
				if (i > cd.off[b])
					assert_true(cd.on[i - 1] < cd.on[i]);
			}
			if (want != got)
				fail_msg("block %u on %u: want %d, got %d", b, p, want, got);
		}
	wet_cdeps_free(&cd);
}

static void test_random_graphs(void **state)
{
	(void)state;
	uint64_t seed = 77;
	struct graph g;

	for (unsigned i = 0; i < 3000; i++) {
		random_graph(&g, &seed);
		check_graph(&g);
	}
}

/* 0: if (c) 1 else 2; 3: loop header { 4 } -> 3 or 5; 5: return. */
static void test_hand_checked(void **state)
{
	(void)state;
	const uint32_t off[] = {0, 2, 3, 4, 6, 7, 7};
	const uint32_t succ[] = {1, 2, 3, 3, 4, 5, 3};
	struct wet_cfg cfg = {6, off, succ};
	uint32_t ipdom[6];
	struct wet_cdeps cd;

	assert_int_equal(wet_postdom(&cfg, ipdom), 0);
	assert_int_equal(ipdom[0], 3);
	assert_int_equal(ipdom[1], 3);
	assert_int_equal(ipdom[2], 3);
	assert_int_equal(ipdom[3], 5);
	assert_int_equal(ipdom[4], 3);
	assert_int_equal(ipdom[5], 6);
	assert_int_equal(wet_control_deps(&cfg, ipdom, &cd), 0);
	/* 1 and 2 on 0; 4 and the header 3 itself on 3; nothing else. */
	assert_int_equal(cd.off[1] - cd.off[0], 0);
	assert_int_equal(cd.off[2] - cd.off[1], 1);
	assert_int_equal(cd.on[cd.off[1]], 0);
	assert_int_equal(cd.off[3] - cd.off[2], 1);
	assert_int_equal(cd.on[cd.off[2]], 0);
	assert_int_equal(cd.off[4] - cd.off[3], 1);
	assert_int_equal(cd.on[cd.off[3]], 3);
	assert_int_equal(cd.off[5] - cd.off[4], 1);
	assert_int_equal(cd.on[cd.off[4]], 3);
	assert_int_equal(cd.off[6] - cd.off[5], 0);
	wet_cdeps_free(&cd);
}

static void test_malformed(void **state)
{
	(void)state;
	const uint32_t off_bad_succ[] = {0, 1, 1};
	const uint32_t succ_bad[] = {7};
	const uint32_t off_backward[] = {0, 2, 1};
	const uint32_t succ_ok[] = {1, 1};
	struct wet_cfg a = {2, off_bad_succ, succ_bad}, b = {2, off_backward, succ_ok};
	uint32_t ipdom[2] = {0, 0}, bad_ipdom[2] = {5, 5};
	struct wet_cdeps cd;

	assert_int_equal(wet_postdom(&a, ipdom), -1);
	assert_int_equal(wet_postdom(&b, ipdom), -1);
	assert_int_equal(wet_control_deps(&a, ipdom, &cd), -1);
	/* An ipdom array naming blocks that do not exist. */
	struct wet_cfg c = {2, (const uint32_t[]){0, 1, 1}, (const uint32_t[]){1}};

	assert_int_equal(wet_control_deps(&c, bad_ipdom, &cd), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_graphs),
		cmocka_unit_test(test_hand_checked),
		cmocka_unit_test(test_malformed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
