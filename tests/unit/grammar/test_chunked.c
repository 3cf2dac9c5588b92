/* SPDX-License-Identifier: MIT */
/* The chunked grammar builder (sequitur_chunked.h): the export expands to
 * exactly what was appended, whatever the input shape and however it was
 * split into calls; the grammar does not depend on the split; snapshots
 * mid-run and mid-chunk; a run of 2^32-1 in O(log n); the serialized form
 * round-trips; the canonical renumbering matches seq_export's; hot
 * subpaths on its DAG equal those on SEQUITUR(1)'s. */
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
#include "analysis/grammar/sequitur_chunked.h"
#include "analysis/grammar/sequitur_serial.h"
#include "test_util.h"
#include "tracegen.h"

/* A random stream: blocks copied from earlier, long runs, noise, gaps. */
static void make_stream(uint64_t *rng, uint32_t *in, size_t n, int with_gaps)
{
	size_t i = 0;

	while (i < n) {
		uint64_t r = tu_rand(rng) % 100;
		if (r < 35 && i > 16) { /* an earlier block again */
			size_t from = tu_rand(rng) % (i - 8), len = 1 + tu_rand(rng) % 64;
			for (size_t k = 0; k < len && i < n; k++)
				in[i++] = in[from + k] == TU_GAP ? 3 : in[from + k];
		} else if (r < 55) { /* a run */
			uint32_t t = (uint32_t)(tu_rand(rng) % 12);
			size_t len = 2 + tu_rand(rng) % (r < 50 ? 8 : 300);
			for (size_t k = 0; k < len && i < n; k++)
				in[i++] = t;
		} else if (r < 57 && with_gaps) {
			in[i++] = TU_GAP;
		} else if (r < 80) { /* a loop body repeated */
			uint32_t a = (uint32_t)(tu_rand(rng) % 20), b = (uint32_t)(tu_rand(rng) % 20);
			size_t reps = 1 + tu_rand(rng) % 30;
			for (size_t k = 0; k < reps && i + 1 < n; k++) {
				in[i++] = a;
				in[i++] = b;
			}
		} else {
			in[i++] = (uint32_t)(tu_rand(rng) % 1000);
		}
	}
}

/* Feed in[0..n) split at random points; runs sometimes through
 * seqc_append_run, terminals one at a time or many. */
static struct seqc_builder *feed_split(uint64_t *rng, const uint32_t *in, size_t n,
				       const struct seqc_params *p)
{
	struct seqc_builder *b = seqc_builder_new(p);
	size_t i = 0;

	assert_non_null(b);
	while (i < n) {
		if (in[i] == TU_GAP) {
			assert_int_equal(seqc_append_gap(b), 0);
			i++;
			continue;
		}
		size_t len = 1 + tu_rand(rng) % 50, k = 0;
		while (k < len && i + k < n && in[i + k] != TU_GAP)
			k++;
		switch (tu_rand(rng) % 3) {
		case 0:
			assert_int_equal(seqc_append_many(b, in + i, k), 0);
			break;
		case 1:
			for (size_t j = 0; j < k; j++)
				assert_int_equal(seqc_append(b, in[i + j]), 0);
			break;
		default: /* as runs */
			for (size_t j = 0; j < k;) {
				size_t e = j;
				while (e < k && in[i + e] == in[i + j])
					e++;
				assert_int_equal(seqc_append_run(b, in[i + j], e - j), 0);
				j = e;
			}
		}
		i += k;
	}
	return b;
}

static void assert_expands_to(const struct seq_grammar *g, const uint32_t *in, size_t n)
{
	size_t got_n;
	uint32_t *got = tu_expand_all(g, &got_n);

	assert_non_null(got);
	assert_int_equal(got_n, n);
	assert_memory_equal(got, in, n * sizeof(*in));
	free(got);
}

/* Rule utility, as SEQUITUR has it: every rule is used at least twice
 * (seqc_export inlines the ones used once). */
static void assert_rules_used_twice(const struct seq_grammar *g)
{
	uint32_t *refs = calloc(g->nrules + 1, sizeof(*refs));

	for (uint32_t j = 0; j < g->start[seq_grammar_nodes(g)]; j++)
		if (seq_is_rule(g->sym[j]))
			refs[g->sym[j] & ~SEQ_RULE_BIT]++;
	for (uint32_t r = 0; r < g->nrules; r++)
		assert_true(refs[r] >= 2);
	free(refs);
}

static void assert_same_grammar(const struct seq_grammar *a, const struct seq_grammar *b)
{
	assert_int_equal(a->nrules, b->nrules);
	assert_int_equal(a->nroots, b->nroots);
	assert_int_equal(a->flags, b->flags);
	assert_memory_equal(a->start, b->start, (seq_grammar_nodes(a) + 1) * sizeof(*a->start));
	assert_memory_equal(a->sym, b->sym, a->start[seq_grammar_nodes(a)] * sizeof(*a->sym));
}

/* Random streams, random splits, several chunk sizes: exact expansion,
 * one grammar whatever the split, serialization round trip. */
static void test_random_streams(void **state)
{
	static const struct seqc_params params[] = {
	    {0, {{0}}},
	    {1, {{1, 1, 2}}},
	    {2, {{3, 2, 16}, {2, 1, 8}}},
	    {1, {{6, 8, 64}}},
	    {3, {{2, 1, 1}, {1, 1, 4}, {3, 2, 32}}},
	};
	(void)state;
	for (unsigned it = 0; it < 60; it++) {
		uint64_t rng = 0x5eed + it;
		size_t n = 1 + tu_rand(&rng) % (it % 4 == 0 ? 20000 : 3000);
		uint32_t *in = malloc(n * sizeof(*in));
		const struct seqc_params *p = &params[it % 5];
		struct seq_grammar g1, g2, g3;
		uint8_t *ser;
		size_t serlen;

		assert_non_null(in);
		make_stream(&rng, in, n, it % 3 != 0);
		struct seqc_builder *b1 = feed_split(&rng, in, n, p);
		struct seqc_builder *b2 = feed_split(&rng, in, n, p);
		assert_int_equal(seqc_export(b1, &g1), 0);
		assert_int_equal(seqc_export(b2, &g2), 0);
		assert_true(g1.flags & SEQ_GRAMMAR_CHUNKED);
		assert_expands_to(&g1, in, n);
		assert_rules_used_twice(&g1);
		assert_same_grammar(&g1, &g2);
		/* Canonical already: renumbering changes nothing. */
		assert_int_equal(seq_grammar_canonical(&g1, &g3), 0);
		assert_same_grammar(&g1, &g3);
		seq_grammar_free(&g3);
		assert_int_equal(seq_serialize(&g1, &ser, &serlen), 0);
		assert_int_equal(seq_deserialize(ser, serlen, &g3, NULL, 0), 0);
		/* The kind travels in the GRAMMAR chunk's header, not here. */
		assert_int_equal(g3.flags, 0);
		g3.flags = g1.flags;
		assert_same_grammar(&g1, &g3);
		free(ser);
		seq_grammar_free(&g1);
		seq_grammar_free(&g2);
		seq_grammar_free(&g3);
		seqc_builder_free(b1);
		seqc_builder_free(b2);
		free(in);
	}
}

/* A snapshot after every few appends (mid-run, mid-chunk, right after a
 * gap) expands to everything appended so far, and taking snapshots does
 * not change the final grammar. */
static void test_snapshots(void **state)
{
	(void)state;
	for (unsigned it = 0; it < 8; it++) {
		uint64_t rng = 0xabc + it;
		size_t n = 1500;
		uint32_t *in = malloc(n * sizeof(*in));
		struct seqc_builder *b = seqc_builder_new(NULL);
		struct seq_grammar g, plain;

		make_stream(&rng, in, n, 1);
		for (size_t i = 0; i < n; i++) {
			if (in[i] == TU_GAP)
				assert_int_equal(seqc_append_gap(b), 0);
			else
				assert_int_equal(seqc_append(b, in[i]), 0);
			if (i % 7 == it % 7) {
				assert_int_equal(seqc_export(b, &g), 0);
				assert_expands_to(&g, in, i + 1);
				seq_grammar_free(&g);
			}
		}
		assert_int_equal(seqc_export(b, &g), 0);
		struct seqc_builder *ref = feed_split(&rng, in, n, NULL);
		assert_int_equal(seqc_export(ref, &plain), 0);
		assert_same_grammar(&g, &plain);
		seq_grammar_free(&g);
		seq_grammar_free(&plain);
		seqc_builder_free(ref);
		seqc_builder_free(b);
		free(in);
	}
}

/* A run of 2^32-1 (a crafted REPEAT count) is O(log n) rules and
 * symbols, and its expansion length is exact. */
static void test_huge_run(void **state)
{
	struct seqc_builder *b = seqc_builder_new(NULL);
	struct seq_grammar g;
	struct seqc_stats st;
	(void)state;

	assert_int_equal(seqc_append(b, 7), 0);
	assert_int_equal(seqc_append_run(b, 9, 0xffffffffull), 0);
	assert_int_equal(seqc_append(b, 7), 0);
	assert_int_equal(seqc_append_run(b, 9, 0xffffffffull), 0); /* the same atom again */
	assert_int_equal(seqc_export(b, &g), 0);			/* snapshot mid-run */
	assert_int_equal(seq_grammar_total_len(&g), 2 + 2 * 0xffffffffull);
	assert_true(g.nrules <= 40);
	assert_true(g.start[seq_grammar_nodes(&g)] <= 120);
	assert_int_equal(g.nroots, 1);
	seq_grammar_free(&g);
	assert_int_equal(seqc_append_run(b, 9, 0xffffffffull), 0); /* extends the run */
	assert_int_equal(seqc_append_gap(b), 0);
	assert_int_equal(seqc_export(b, &g), 0);
	assert_int_equal(seq_grammar_total_len(&g), 2 + 3 * 0xffffffffull);
	assert_int_equal(g.nroots, 2);
	assert_true(g.nrules <= 80);
	seqc_builder_stats(b, &st);
	assert_int_equal(st.input_symbols, 2 + 3 * 0xffffffffull);
	assert_int_equal(st.level[0].atoms, 4);
	seq_grammar_free(&g);
	/* Beyond the bound a grammar can count: refused, builder unchanged. */
	assert_int_equal(seqc_append_run(b, 9, 1ull << 62), -1);
	assert_int_equal(seqc_append(b, SEQ_TERMINAL_LIMIT), -1);
	assert_false(seqc_builder_failed(b));
	seqc_builder_free(b);
}

/* Repetitive input collapses: a loop of one block repeated many times
 * gives a grammar of a few rules, and only unique chunks reach the body
 * SEQUITUR(1). */
static void test_dedup(void **state)
{
	size_t n = 200000;
	uint32_t *in = malloc(n * sizeof(*in));
	struct seqc_builder *b = seqc_builder_new(NULL);
	struct seq_grammar g;
	struct seqc_stats st;
	(void)state;

	for (size_t i = 0; i < n; i++)
		in[i] = (uint32_t)(i % 37 == 5 ? 100 + i / 37 % 3 : i % 37);
	assert_int_equal(seqc_append_many(b, in, n), 0);
	seqc_builder_stats(b, &st);
	assert_true(st.level[0].unique_chunks < 200);
	assert_true(st.level[0].body.input_symbols < 5000);
	assert_int_equal(seqc_export(b, &g), 0);
	assert_expands_to(&g, in, n);
	assert_true(g.start[seq_grammar_nodes(&g)] < 2000);
	seq_grammar_free(&g);
	seqc_builder_free(b);
	free(in);
}

/* Synthetic program traces (tracegen.h): exact expansion at the default
 * settings; empty builders export empty segments. */
static void test_traces_and_empty(void **state)
{
	size_t n = 300000;
	uint32_t *in = malloc(n * sizeof(*in));
	struct seq_grammar g;
	(void)state;

	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct seqc_builder *b = seqc_builder_new(NULL);
		if (seed == 3)
			assert_true(tracegen_random_loops(seed, in, n) > 0);
		else
			assert_true(tracegen_make(seed, in, n) > 0);
		assert_int_equal(seqc_append_many(b, in, n), 0);
		assert_int_equal(seqc_export(b, &g), 0);
		assert_expands_to(&g, in, n);
		seq_grammar_free(&g);
		seqc_builder_free(b);
	}
	struct seqc_builder *e = seqc_builder_new(NULL);
	assert_int_equal(seqc_export(e, &g), 0);
	assert_int_equal(g.nroots, 1);
	assert_int_equal(seq_grammar_total_len(&g), 0);
	seq_grammar_free(&g);
	assert_int_equal(seqc_append_gap(e), 0);
	assert_int_equal(seqc_append_gap(e), 0);
	assert_int_equal(seqc_export(e, &g), 0);
	assert_int_equal(g.nroots, 3);
	seq_grammar_free(&g);
	seqc_builder_free(e);
	free(in);
}

/* seq_grammar_canonical gives seq_export's numbering for a SEQUITUR(1)
 * grammar written in another order, and drops unreachable rules. */
static void test_canonical(void **state)
{
	uint32_t in[] = {1, 2, 3, 1, 2, 3, 4, 1, 2, 3, 4, TU_GAP, 2, 3, 4, 2, 3};
	struct seq_grammar g, rev, back;
	(void)state;

	assert_int_equal(tu_build(SEQ_LOOKAHEAD, in, sizeof(in) / sizeof(in[0]), &g), 0);
	/* Reversed rule order would refer upwards; add an unreachable rule
	 * first instead and shift every reference by one. */
	uint32_t nodes = seq_grammar_nodes(&g), nsym = g.start[nodes];
	assert_int_equal(seq_grammar_alloc(&rev, g.nrules + 1, g.nroots, nsym + 2), 0);
	rev.sym[0] = 5;
	rev.sym[1] = 6;
	rev.start[0] = 0;
	for (uint32_t i = 0; i < nodes; i++) {
		rev.start[i + 1] = g.start[i] + 2;
		for (uint32_t j = g.start[i]; j < g.start[i + 1]; j++)
			rev.sym[j + 2] = seq_is_rule(g.sym[j]) ? g.sym[j] + 1 : g.sym[j];
	}
	rev.start[nodes + 1] = nsym + 2;
	rev.flags = g.flags;
	assert_int_equal(seq_grammar_canonical(&rev, &back), 0);
	assert_same_grammar(&g, &back);
	seq_grammar_free(&g);
	seq_grammar_free(&rev);
	seq_grammar_free(&back);
}

/* Everything downstream is defined on the expansion: minimal hot
 * subpaths found on the chunked grammar's DAG equal those found on
 * SEQUITUR(1)'s for the same stream (paths, occurrences, costs). */
static void test_hot_subpaths_agree(void **state)
{
	size_t n = 200000;
	uint32_t *in = malloc(n * sizeof(*in));
	(void)state;

	for (uint64_t seed = 11; seed <= 13; seed++) {
		long distinct = seed == 13 ? tracegen_random_loops(seed, in, n)
					   : tracegen_make(seed, in, n);
		uint64_t *cost = malloc((size_t)distinct * sizeof(*cost));
		struct seq_grammar gs, gc;
		struct wppdag ds, dc;
		struct seqc_builder *b = seqc_builder_new(NULL);

		assert_true(distinct > 0);
		for (long t = 0; t < distinct; t++)
			cost[t] = 1 + (uint64_t)(t * 7919 % 61);
		assert_int_equal(tu_build(SEQ_LOOKAHEAD, in, n, &gs), 0);
		assert_int_equal(seqc_append_many(b, in, n), 0);
		assert_int_equal(seqc_export(b, &gc), 0);
		assert_int_equal(wppdag_init(&ds, &gs), 0);
		assert_int_equal(wppdag_init(&dc, &gc), 0);
		for (uint32_t len = 2; len <= 24; len += 11) {
			struct hotsub_params p = {.min_len = 2,
						  .max_len = len,
						  .min_cost = 20000,
						  .cost = cost,
						  .ncost = (uint32_t)distinct};
			struct hotsub_result rs, rc;
			assert_int_equal(hotsub_find(&ds, &p, &rs), 0);
			assert_int_equal(hotsub_find(&dc, &p, &rc), 0);
			assert_true(rs.n > 0);
			assert_int_equal(rs.n, rc.n);
			assert_int_equal(rs.distinct_grams, rc.distinct_grams);
			for (size_t i = 0; i < rs.n; i++) {
				assert_int_equal(rs.paths[i].len, rc.paths[i].len);
				assert_memory_equal(rs.paths[i].syms, rc.paths[i].syms,
						    rs.paths[i].len * sizeof(uint32_t));
				assert_int_equal(rs.paths[i].occurrences, rc.paths[i].occurrences);
				assert_int_equal(rs.paths[i].cost, rc.paths[i].cost);
			}
			hotsub_result_free(&rs);
			hotsub_result_free(&rc);
		}
		wppdag_free(&ds);
		wppdag_free(&dc);
		seq_grammar_free(&gs);
		seq_grammar_free(&gc);
		seqc_builder_free(b);
		free(cost);
	}
	free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_streams), cmocka_unit_test(test_snapshots),
	    cmocka_unit_test(test_huge_run),	   cmocka_unit_test(test_dedup),
	    cmocka_unit_test(test_traces_and_empty), cmocka_unit_test(test_canonical),
	    cmocka_unit_test(test_hot_subpaths_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
