/* SPDX-License-Identifier: MIT */
/*
 * test_wet_tier1.c — tier-1 value groups: the grouping rules against
 * their definition on random input sets and on the paper's example; the
 * pattern builder against the raw values it was fed (every order of
 * reading), with groups that repeat, that never repeat, and that stop
 * repeating halfway.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wet_gen.h"
#include "analysis/wet/wet_tier1.h"

/* The paper's figure 3 shape: two groups over inputs u, v, x; the
 * statement reading x (input set {x}) joins one of them. */
static void test_groups_paper_example(void **state)
{
	(void)state;
	enum { U = 1, V = 2, X = 4 };
	const uint64_t sets[] = {X, U | X, U | X, V | X, V | X, U | X};
	uint32_t group[6];

	assert_int_equal(wet_tier1_groups_from_inputs(6, 1, sets, group), 2);
	assert_int_equal(group[1], group[2]);
	assert_int_equal(group[1], group[5]);
	assert_int_equal(group[3], group[4]);
	assert_int_not_equal(group[1], group[3]);
	/* {x} is a subset of both; it joins exactly one, the first smallest. */
	assert_int_equal(group[0], group[1]);
	assert_int_equal(group[0], 0);
}

static int subset(const uint64_t *a, const uint64_t *b, uint32_t nw)
{
	for (uint32_t i = 0; i < nw; i++)
		if (a[i] & ~b[i])
			return 0;
	return 1;
}

/* On random sets: equal sets share a group; each group has a member whose
 * set holds every member's set; no group's largest set is a proper subset
 * of a statement's set outside the group. */
static void test_groups_random(void **state)
{
	(void)state;
	uint64_t seed = 5;

	for (unsigned round = 0; round < 300; round++) {
		uint32_t n = 1 + (uint32_t)(wet_gen_rand(&seed) % 24), nw = 1 + round % 2;
		uint64_t *sets = calloc((size_t)n * nw, sizeof(*sets));
		uint32_t *group = malloc(n * sizeof(*group)), *top = malloc(n * sizeof(*top));
		int ngroups;

		for (size_t i = 0; i < (size_t)n * nw; i++) {
			uint64_t r = wet_gen_rand(&seed);

			/* Few distinct inputs, so subsets and equal sets happen. */
			sets[i] = r & wet_gen_rand(&seed) & (round % 3 ? 0x3f : 0xff);
		}
		ngroups = wet_tier1_groups_from_inputs(n, nw, sets, group);
		assert_true(ngroups >= 1 && ngroups <= (int)n);
		for (uint32_t s = 0; s < n; s++) {
			assert_true(group[s] < (uint32_t)ngroups);
			/* Groups are numbered by first statement. */
			if (s == 0)
				assert_int_equal(group[s], 0);
			for (uint32_t t = 0; t < s; t++)
				if (!memcmp(sets + s * nw, sets + t * nw, nw * sizeof(*sets)))
					assert_int_equal(group[s], group[t]);
		}
		for (int g = 0; g < ngroups; g++) {
			uint32_t best = UINT32_MAX;

			for (uint32_t s = 0; s < n; s++) {
				int holds_all = group[s] == (uint32_t)g;

				for (uint32_t t = 0; holds_all && t < n; t++)
					if (group[t] == (uint32_t)g && !subset(sets + t * nw, sets + s * nw, nw))
						holds_all = 0;
				if (holds_all) {
					best = s;
					break;
				}
			}
			assert_int_not_equal(best, UINT32_MAX);
			top[g] = best;
			/* The group's largest set joins nothing: no statement
			 * outside it has that set or a larger one. */
			for (uint32_t t = 0; t < n; t++)
				if (group[t] != (uint32_t)g && subset(sets + best * nw, sets + t * nw, nw))
					fail_msg("group %d's set is within statement %u's", g, t);
		}
		free(sets);
		free(group);
		free(top);
	}
}

enum shape { REPEATING, NEVER_REPEATING, STOPS_REPEATING };

/* Values of a node with nstmts statements over one input x: statement s
 * computes f_s(x); x repeats from a small set, or not. */
static void fill(enum shape shape, uint32_t nstmts, uint64_t ninst, uint64_t *v, uint64_t seed)
{
	for (uint64_t k = 0; k < ninst; k++) {
		int repeating = shape == REPEATING || (shape == STOPS_REPEATING && k < ninst / 2);
		uint64_t x = repeating ? wet_gen_rand(&seed) % 5 : wet_gen_rand(&seed);

		for (uint32_t s = 0; s < nstmts; s++)
			v[k * nstmts + s] = s == 0 ? x : x * (s + 3) + 1000 * s;
	}
}

static void check_group(struct wet_t1_group *g, const uint64_t *v, uint32_t nstmts,
			uint64_t ninst, uint64_t seed)
{
	uint64_t x;

	for (uint64_t k = 0; k < ninst; k++)
		for (uint32_t s = 0; s < nstmts; s++) {
			assert_int_equal(wet_t1_value(g, s, k, &x), 0);
			assert_true(x == v[k * nstmts + s]);
		}
	for (uint64_t k = ninst; k-- > 0;)
		for (uint32_t s = nstmts; s-- > 0;) {
			assert_int_equal(wet_t1_value(g, s, k, &x), 0);
			assert_true(x == v[k * nstmts + s]);
		}
	for (unsigned i = 0; ninst && i < 2000; i++) {
		uint64_t k = wet_gen_rand(&seed) % ninst;
		uint32_t s = (uint32_t)(wet_gen_rand(&seed) % nstmts);

		assert_int_equal(wet_t1_value(g, s, k, &x), 0);
		assert_true(x == v[k * nstmts + s]);
	}
	assert_int_equal(wet_t1_value(g, nstmts, 0, &x), -1);
	assert_int_equal(wet_t1_value(g, 0, ninst, &x), -1);
}

static void test_patterns(void **state)
{
	(void)state;
	static const uint64_t counts[] = {0, 1, 255, 256, 257, 6000};

	for (int shape = REPEATING; shape <= STOPS_REPEATING; shape++)
		for (uint32_t nstmts = 1; nstmts <= 4; nstmts++)
			for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
				uint64_t n = counts[c];
				uint64_t *v = malloc((n * nstmts + 1) * sizeof(*v));
				struct wet_t1_builder b;
				struct wet_t1_group g;

				fill(shape, nstmts, n, v, shape * 10 + nstmts);
				assert_int_equal(wet_t1_builder_init(&b, nstmts), 0);
				for (uint64_t k = 0; k < n; k++)
					assert_int_equal(wet_t1_builder_add(&b, v + k * nstmts), 0);
				assert_int_equal(wet_t1_builder_finish(&b, &g), 0);
				assert_int_equal(g.ninst, n);
				check_group(&g, v, nstmts, n, c);
				if (n >= 6000) {
					uint64_t raw = 64 * n * nstmts;

					/* The pattern pays where values repeat, and is
					 * dropped where they stop: at the first check
					 * whose window is mostly new tuples. */
					if (shape == REPEATING) {
						assert_true(g.switch_at == n);
						assert_true(wet_t1_bits(&g) * 8 < raw);
					} else if (shape == NEVER_REPEATING) {
						assert_true(g.switch_at == WET_T1_CHECK_EVERY);
					} else {
						assert_true(g.switch_at > n / 2 &&
							    g.switch_at <= n / 2 + 2 * WET_T1_CHECK_EVERY);
					}
				}
				wet_t1_group_free(&g);
				free(v);
			}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups_paper_example),
		cmocka_unit_test(test_groups_random),
		cmocka_unit_test(test_patterns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
