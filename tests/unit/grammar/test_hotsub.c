/* SPDX-License-Identifier: MIT */
/* Minimal hot subpaths from the DAG == brute force over the expanded
 * stream, on many small random inputs and parameters. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/grammar/hotsub.h"
#include "analysis/grammar/sequitur.h"
#include "test_util.h"

struct cand {
	const uint32_t *s;
	uint32_t len;
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	uint32_t n = x->len < y->len ? x->len : y->len;
	for (uint32_t i = 0; i < n; i++)
		if (x->s[i] != y->s[i])
			return x->s[i] < y->s[i] ? -1 : 1;
	return (x->len > y->len) - (x->len < y->len);
}

static uint64_t occ(const uint32_t *w, size_t n, const uint32_t *x, uint32_t len)
{
	uint64_t c = 0;
	for (size_t i = 0; i + len <= n; i++)
		c += !memcmp(w + i, x, len * sizeof(*x));
	return c;
}

/* The definition's cost: occurrences x the sum of the paths' costs. */
static uint64_t brute_cost(const uint32_t *w, size_t n, const uint32_t *x, uint32_t len,
			   const struct hotsub_params *p)
{
	uint64_t sum = 0;
	for (uint32_t i = 0; i < len; i++)
		sum += x[i] < p->ncost ? p->cost[x[i]] : 0;
	return occ(w, n, x, len) * sum;
}

static int hot(const uint32_t *w, size_t n, const uint32_t *x, uint32_t len,
	       const struct hotsub_params *p)
{
	return len >= p->min_len && len <= p->max_len && brute_cost(w, n, x, len, p) >= p->min_cost;
}

/* The definition, literally: every substring (no gap inside) that is hot
 * and has no hot proper prefix; duplicates removed; sorted. */
static size_t brute_minimal(const uint32_t *w, size_t n, const struct hotsub_params *p,
			    struct cand *out)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		for (uint32_t len = 1; len <= p->max_len && i + len <= n; len++) {
			if (w[i + len - 1] == TU_GAP)
				break;
			if (!hot(w, n, w + i, len, p))
				continue;
			/* Lengths are tried upwards, so no shorter prefix from i
			 * is hot: this one is minimal, and every longer one from i
			 * extends it. */
			out[k++] = (struct cand){w + i, len};
			break;
		}
	qsort(out, k, sizeof(*out), cmp_cand);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || cmp_cand(&out[u - 1], &out[i]))
			out[u++] = out[i];
	return u;
}

/* long: max_len up to 48, so several levels of the pruning run and most
 * paths cost nothing (long minimal hot subpaths). */
static void compare_with_brute(int iterations, int long_paths, uint64_t seed)
{
	uint64_t rng = seed;
	uint32_t in[240];
	struct cand *want = malloc(240 * sizeof(*want));
	uint64_t cost[16];
	size_t total_found = 0, longest = 0;

	for (int it = 0; it < iterations; it++) {
		struct seq_grammar g;
		struct wppdag d;
		struct hotsub_result r;
		size_t n = 1 + tu_rand(&rng) % 240;
		unsigned c = (unsigned)it;
		tu_random_input(&rng, in, n, tu_case_shape(c), tu_case_gaps(c, 3));
		/* unit costs in one case of four, across every (shape, algorithm) */
		int unit = c / (2 * TU_SHAPES) % 4 == 1;
		for (int t = 0; t < 16; t++)
			cost[t] = unit ? 1 : tu_rand(&rng) % 20;
		if (long_paths)
			for (int t = 0; t < 16; t++)
				cost[t] = tu_rand(&rng) % 10 < 7 ? 0 : 1 + tu_rand(&rng) % 5;
		struct hotsub_params p = {
		    .min_len = 1 + tu_rand(&rng) % 3,
		    .cost = cost,
		    .ncost = 1 + tu_rand(&rng) % 16,
		};
		p.max_len = p.min_len + tu_rand(&rng) % (long_paths ? 46 : 9);
		p.min_cost = 1 + tu_rand(&rng) % (tu_rand(&rng) % 2 ? 60 : 600);
		assert_int_equal(tu_build(tu_case_algo(c), in, n, &g), 0);
		assert_int_equal(wppdag_init(&d, &g), 0);
		assert_int_equal(hotsub_find(&d, &p, &r), 0);
		size_t nw = brute_minimal(in, n, &p, want);
		if (r.n != nw)
			fail_msg("iteration %d: %zu minimal hot subpaths, brute force %zu", it, r.n,
				 nw);
		for (size_t i = 0; i < nw; i++) {
			assert_int_equal(r.paths[i].len, want[i].len);
			assert_memory_equal(r.paths[i].syms, want[i].s,
					    want[i].len * sizeof(uint32_t));
			assert_int_equal(r.paths[i].occurrences,
					 occ(in, n, want[i].s, want[i].len));
			assert_int_equal(r.paths[i].cost,
					 brute_cost(in, n, want[i].s, want[i].len, &p));
		}
		total_found += nw;
		for (size_t i = 0; i < nw; i++)
			if (want[i].len > longest)
				longest = want[i].len;
		hotsub_result_free(&r);
		wppdag_free(&d);
		seq_grammar_free(&g);
	}
	/* The parameters must actually produce answers to compare, and the
	 * long run must reach past the first pruning level (16). */
	assert_true(total_found > (size_t)iterations);
	if (long_paths)
		assert_true(longest > 32);
	free(want);
}

static void test_hotsub_vs_brute(void **state)
{
	(void)state;
	compare_with_brute(1500, 0, 31);
}

static void test_hotsub_long_vs_brute(void **state)
{
	(void)state;
	compare_with_brute(400, 1, 77);
}

/* Larus' Figure 5 example: abbcabbcabbc, unit costs, 2 <= len <= 3,
 * cost >= 6: ab, bb, bc are minimal (3 x 2); ca (2 x 2) is not hot, and
 * cab (2 x 3) is hot but extends no hot prefix... so it is minimal too. */
static void test_paper_example(void **state)
{
	uint32_t in[12];
	const char *s = "abbcabbcabbc";
	uint64_t cost[128];
	struct seq_grammar g;
	struct wppdag d;
	struct hotsub_result r;
	(void)state;

	for (int i = 0; i < 12; i++)
		in[i] = (uint32_t)s[i];
	for (int i = 0; i < 128; i++)
		cost[i] = 1;
	struct hotsub_params p = {
	    .min_len = 2, .max_len = 3, .min_cost = 6, .cost = cost, .ncost = 128};
	assert_int_equal(tu_build(SEQ_LOOKAHEAD, in, 12, &g), 0);
	assert_int_equal(wppdag_init(&d, &g), 0);
	assert_int_equal(hotsub_find(&d, &p, &r), 0);
	const char *want[] = {"ab", "bb", "bc", "cab"};
	assert_int_equal(r.n, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(r.paths[i].len, strlen(want[i]));
		for (uint32_t j = 0; j < r.paths[i].len; j++)
			assert_int_equal(r.paths[i].syms[j], (uint32_t)want[i][j]);
	}
	hotsub_result_free(&r);
	wppdag_free(&d);
	seq_grammar_free(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_paper_example),
	    cmocka_unit_test(test_hotsub_vs_brute),
	    cmocka_unit_test(test_hotsub_long_vs_brute),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
