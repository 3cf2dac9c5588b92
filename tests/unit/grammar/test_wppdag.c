/* SPDX-License-Identifier: MIT */
/* DAG queries against brute force over the derivation and the expanded
 * stream. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/grammar/sequitur.h"
#include "test_util.h"
#include "analysis/grammar/wppdag.h"

/* Count rule visits by walking the derivation tree itself. */
static void count_visits(const struct seq_grammar *g, uint32_t node, uint64_t *visits)
{
	visits[node]++;
	for (uint32_t j = 0; j < seq_grammar_body_len(g, node); j++) {
		uint32_t s = seq_grammar_body(g, node)[j];
		if (seq_is_rule(s))
			count_visits(g, s & ~SEQ_RULE_BIT, visits);
	}
}

static void test_node_frequency(void **state)
{
	uint64_t rng = 5;
	uint32_t in[300];
	(void)state;

	for (int it = 0; it < 500; it++) {
		struct seq_grammar g;
		struct wppdag d;
		size_t n = 1 + tu_rand(&rng) % 300;
		tu_random_input(&rng, in, n, tu_case_shape((unsigned)it), tu_case_gaps((unsigned)it, 4));
		assert_int_equal(tu_build(tu_case_algo((unsigned)it), in, n, &g), 0);
		assert_int_equal(wppdag_init(&d, &g), 0);
		uint64_t *visits = calloc(seq_grammar_nodes(&g), sizeof(*visits));
		for (uint32_t k = 0; k < g.nroots; k++)
			count_visits(&g, g.nrules + k, visits);
		assert_memory_equal(visits, d.freq, seq_grammar_nodes(&g) * sizeof(*visits));
		/* Every rule of a SEQUITUR grammar is used at least twice. */
		for (uint32_t r = 0; r < g.nrules; r++)
			assert_true(d.freq[r] >= 2);
		free(visits);
		wppdag_free(&d);
		seq_grammar_free(&g);
	}
}

static uint64_t brute_count(const uint32_t *w, size_t n, const uint32_t *seq, uint32_t m)
{
	uint64_t c = 0;
	for (size_t i = 0; i + m <= n; i++) {
		uint32_t j = 0;
		while (j < m && w[i + j] == seq[j]) /* TU_GAP never matches */
			j++;
		c += j == m;
	}
	return c;
}

static void test_sequence_frequency(void **state)
{
	uint64_t rng = 17;
	uint32_t in[300], seq[8];
	(void)state;

	for (int it = 0; it < 400; it++) {
		struct seq_grammar g;
		struct wppdag d;
		size_t n = 1 + tu_rand(&rng) % 300;
		tu_random_input(&rng, in, n, tu_case_shape((unsigned)it), tu_case_gaps((unsigned)it, 3));
		assert_int_equal(tu_build(tu_case_algo((unsigned)it), in, n, &g), 0);
		assert_int_equal(wppdag_init(&d, &g), 0);
		for (int t = 0; t < 20; t++) {
			uint32_t m = 1 + tu_rand(&rng) % 8;
			size_t at = tu_rand(&rng) % n;
			for (uint32_t j = 0; j < m; j++) /* often a real substring */
				seq[j] = (t & 1 || at + j >= n || in[at + j] == TU_GAP)
					     ? (uint32_t)(tu_rand(&rng) % 3)
					     : in[at + j];
			int failed = 0;
			uint64_t got = wppdag_sequence_frequency(&d, seq, m, &failed);
			assert_false(failed);
			assert_int_equal(got, brute_count(in, n, seq, m));
		}
		wppdag_free(&d);
		seq_grammar_free(&g);
	}
}

/* First and last occurrence of every terminal (and of one that never
 * occurs) against a scan of the stream, gaps skipped. */
static void test_first_last(void **state)
{
	uint64_t rng = 29;
	uint32_t in[300];
	(void)state;

	for (unsigned it = 0; it < 600; it++) {
		struct seq_grammar g;
		struct wppdag d;
		size_t n = 1 + tu_rand(&rng) % 300;
		tu_random_input(&rng, in, n, tu_case_shape(it), tu_case_gaps(it, 3));
		assert_int_equal(tu_build(tu_case_algo(it), in, n, &g), 0);
		assert_int_equal(wppdag_init(&d, &g), 0);
		for (uint32_t t = 0; t <= 16; t++) {
			uint64_t pos = 0, want_first = UINT64_MAX, want_last = UINT64_MAX;
			for (size_t i = 0; i < n; i++) {
				if (in[i] == TU_GAP)
					continue;
				if (in[i] == t) {
					if (want_first == UINT64_MAX)
						want_first = pos;
					want_last = pos;
				}
				pos++;
			}
			uint64_t first = UINT64_MAX, last = UINT64_MAX;
			int found = wppdag_first_last(&d, t, &first, &last);
			assert_int_equal(found, want_first != UINT64_MAX);
			assert_int_equal(first, want_first);
			assert_int_equal(last, want_last);
		}
		wppdag_free(&d);
		seq_grammar_free(&g);
	}
}

/* Brute-force contexts: k symbols after (or before) each occurrence, the
 * segment end shown as padding. */
static uint64_t brute_context(const uint32_t *w, size_t n, const uint32_t *seq, uint32_t m,
			      const uint32_t *ctx, uint32_t k, enum wppdag_side side)
{
	uint64_t c = 0;
	for (size_t i = 0; i + m <= n; i++) {
		if (brute_count(w + i, m, seq, m) != 1)
			continue;
		int same = 1;
		for (uint32_t j = 0; j < k && same; j++) {
			long pos = side == WPPDAG_AFTER ? (long)(i + m + j) : (long)i - (long)k + j;
			uint32_t s;
			if (side == WPPDAG_AFTER) {
				/* past the segment end: padding from then on */
				int ended = 0;
				for (long p = (long)(i + m); p <= pos; p++)
					if (p >= (long)n || w[p] == TU_GAP)
						ended = 1;
				s = ended ? WPPDAG_PAD_END : w[pos];
			} else {
				int ended = 0;
				for (long p = (long)i - 1; p >= pos; p--)
					if (p < 0 || w[p] == TU_GAP)
						ended = 1;
				s = ended ? WPPDAG_PAD_START : w[pos];
			}
			same = s == ctx[j];
		}
		c += same;
	}
	return c;
}

static void test_contexts(void **state)
{
	uint64_t rng = 23;
	uint32_t in[200];
	(void)state;

	for (int it = 0; it < 300; it++) {
		struct seq_grammar g;
		struct wppdag d;
		size_t n = 2 + tu_rand(&rng) % 199;
		tu_random_input(&rng, in, n, tu_case_shape((unsigned)it), tu_case_gaps((unsigned)it, 3));
		assert_int_equal(tu_build(tu_case_algo((unsigned)it), in, n, &g), 0);
		assert_int_equal(wppdag_init(&d, &g), 0);
		size_t at = tu_rand(&rng) % n;
		if (in[at] == TU_GAP)
			in[at] = 0; /* keep the query a real symbol; the input is
				       no longer needed unchanged: rebuild */
		seq_grammar_free(&g);
		wppdag_free(&d);
		assert_int_equal(tu_build(tu_case_algo((unsigned)it), in, n, &g), 0);
		assert_int_equal(wppdag_init(&d, &g), 0);
		uint32_t m = 1;
		while (m < 3 && at + m < n && in[at + m] != TU_GAP)
			m++;
		uint32_t k = 1 + tu_rand(&rng) % 3;
		for (int side = 0; side < 2; side++) {
			struct wppdag_context *c;
			size_t nc;
			assert_int_equal(wppdag_contexts(&d, in + at, m, k, side, &c, &nc), 0);
			uint64_t total = 0;
			for (size_t i = 0; i < nc; i++) {
				assert_int_equal(c[i].count, brute_context(in, n, in + at, m,
									   c[i].syms, k, side));
				if (i)
					assert_true(c[i - 1].count >= c[i].count);
				total += c[i].count;
			}
			/* Every occurrence has exactly one context. */
			assert_int_equal(total, brute_count(in, n, in + at, m));
			wppdag_contexts_free(c, nc);
		}
		wppdag_free(&d);
		seq_grammar_free(&g);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_node_frequency),
	    cmocka_unit_test(test_sequence_frequency),
	    cmocka_unit_test(test_contexts),
	    cmocka_unit_test(test_first_last),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
