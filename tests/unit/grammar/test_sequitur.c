/* SPDX-License-Identifier: MIT */
/* SEQUITUR / SEQUITUR(1) builder: paper examples, invariants after every
 * append, lossless expansion, determinism, gaps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/grammar/sequitur.h"
#include "analysis/grammar/sequitur_internal.h"
#include "analysis/grammar/sequitur_serial.h"
#include "test_util.h"
#include "tracegen.h"

#define R(i) (SEQ_RULE_BIT | (i))

static void build_string(enum seq_algorithm algo, const char *s, struct seq_grammar *g)
{
	size_t n = strlen(s);
	uint32_t *in = malloc(n * sizeof(*in));

	for (size_t i = 0; i < n; i++)
		in[i] = s[i] == '|' ? TU_GAP : (uint32_t)(unsigned char)s[i];
	assert_int_equal(tu_build(algo, in, n, g), 0);
	free(in);
}

static void assert_body(const struct seq_grammar *g, uint32_t node, const uint32_t *want,
			uint32_t n)
{
	assert_int_equal(seq_grammar_body_len(g, node), n);
	assert_memory_equal(seq_grammar_body(g, node), want, n * sizeof(*want));
}

/* Larus §3.2: SEQUITUR(1) gives S -> C2C, A -> 11, C -> AA1. */
static void test_paper_lookahead(void **state)
{
	struct seq_grammar g;
	(void)state;
	build_string(SEQ_LOOKAHEAD, "11111211111", &g);
	assert_int_equal(g.nrules, 2);
	assert_int_equal(g.nroots, 1);
	assert_body(&g, 0, (uint32_t[]){'1', '1'}, 2);	      /* A */
	assert_body(&g, 1, (uint32_t[]){R(0), R(0), '1'}, 3); /* C */
	assert_body(&g, 2, (uint32_t[]){R(1), '2', R(1)}, 3); /* S */
	assert_true(g.flags & SEQ_GRAMMAR_LOOKAHEAD);
	seq_grammar_free(&g);
}

/* ... and plain SEQUITUR represents the two 11111 differently:
 * S -> AB2BA, A -> 11, B -> A1. */
static void test_paper_plain(void **state)
{
	struct seq_grammar g;
	(void)state;
	build_string(SEQ_PLAIN, "11111211111", &g);
	assert_int_equal(g.nrules, 2);
	assert_body(&g, 0, (uint32_t[]){'1', '1'}, 2);
	assert_body(&g, 1, (uint32_t[]){R(0), '1'}, 2);
	assert_body(&g, 2, (uint32_t[]){R(0), R(1), '2', R(1), R(0)}, 5);
	seq_grammar_free(&g);
}

/* abcabcabcabc: B -> abc, A -> BB, S -> AA (both algorithms). */
static void test_paper_abc(void **state)
{
	(void)state;
	for (int algo = 0; algo < 2; algo++) {
		struct seq_grammar g;
		build_string(algo, "abcabcabcabc", &g);
		assert_int_equal(g.nrules, 2);
		assert_body(&g, 0, (uint32_t[]){'a', 'b', 'c'}, 3);
		assert_body(&g, 1, (uint32_t[]){R(0), R(0)}, 2);
		assert_body(&g, 2, (uint32_t[]){R(1), R(1)}, 2);
		seq_grammar_free(&g);
	}
}

/* The §3.1 walk-through: abcdbc -> S -> aAdA, A -> bc. */
static void test_paper_abcdbc(void **state)
{
	struct seq_grammar g;
	(void)state;
	build_string(SEQ_PLAIN, "abcdbc", &g);
	assert_int_equal(g.nrules, 1);
	assert_body(&g, 0, (uint32_t[]){'b', 'c'}, 2);
	assert_body(&g, 1, (uint32_t[]){'a', R(0), 'd', R(0)}, 4);
	seq_grammar_free(&g);
}

static void assert_expands_to(const struct seq_grammar *g, const uint32_t *in, size_t n)
{
	size_t m = 0;
	uint32_t *out = tu_expand_all(g, &m);
	assert_non_null(out);
	assert_int_equal(m, n);
	assert_memory_equal(out, in, n * sizeof(*in));
	free(out);
}

/* Every invariant, checked from scratch after every single append. */
static void test_invariants_every_step(void **state)
{
	uint64_t rng = 0x1234567;
	uint32_t in[160];
	char why[200];
	(void)state;

	for (int it = 0; it < 2000; it++) {
		enum seq_algorithm algo = it & 1;
		size_t n = 1 + tu_rand(&rng) % 160;
		tu_random_input(&rng, in, n, (unsigned)it / 2, it % 5 == 0);
		struct seq_builder *b = seq_builder_new(algo);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(in[i] == TU_GAP ? seq_append_gap(b) : seq_append(b, in[i]),
					 0);
			if (seq_builder_check(b, why, sizeof(why)) != 0)
				fail_msg("iteration %d, step %zu: %s", it, i, why);
		}
		assert_int_equal(seq_finish(b), 0);
		if (seq_builder_check(b, why, sizeof(why)) != 0)
			fail_msg("iteration %d, end: %s", it, why);
		struct seq_grammar g;
		assert_int_equal(seq_export(b, &g), 0);
		assert_expands_to(&g, in, n);
		seq_grammar_free(&g);
		seq_builder_free(b);
	}
}

static void roundtrip_big(const uint32_t *in, size_t n)
{
	for (int algo = 0; algo < 2; algo++) {
		struct seq_grammar g;
		char why[200];
		struct seq_builder *b = seq_builder_new(algo);
		assert_int_equal(seq_append_many(b, in, n), 0);
		assert_int_equal(seq_finish(b), 0);
		if (n <= 200000 && seq_builder_check(b, why, sizeof(why)) != 0)
			fail_msg("%s", why);
		assert_int_equal(seq_export(b, &g), 0);
		seq_builder_free(b);
		assert_expands_to(&g, in, n);
		seq_grammar_free(&g);
	}
}

static void test_adversarial(void **state)
{
	size_t n = 100000;
	uint32_t *in = malloc(n * sizeof(*in));
	(void)state;

	for (size_t i = 0; i < n; i++) /* one long run */
		in[i] = 7;
	roundtrip_big(in, n);
	for (size_t i = 0; i < n; i++) /* all distinct */
		in[i] = (uint32_t)i;
	roundtrip_big(in, n);
	in[0] = 0; /* Fibonacci word: repetitive but never periodic */
	in[1] = 1;
	for (size_t a = 1, b = 2; b < n; a = b, b = b + a)
		for (size_t i = 0; i < a && b + i < n; i++)
			in[b + i] = in[i];
	roundtrip_big(in, n);
	for (size_t i = 0; i < n; i++) /* sawtooth of growing teeth */
		in[i] = (uint32_t)(i % (1 + i / 1000));
	roundtrip_big(in, n);
	for (size_t i = 0; i < n; i++) /* runs of growing length */
		in[i] = (uint32_t)((size_t)__builtin_sqrt((double)i) & 1);
	roundtrip_big(in, n);
	uint64_t rng = 99;
	for (size_t i = 0; i < n; i++) /* noise over a huge alphabet */
		in[i] = (uint32_t)(tu_rand(&rng) % (SEQ_TERMINAL_LIMIT));
	roundtrip_big(in, n);
	free(in);
}

static void test_synthetic_trace(void **state)
{
	size_t n = 1000000;
	uint32_t *in = malloc(n * sizeof(*in));
	(void)state;

	assert_true(tracegen_make(7, in, n) > 0);
	roundtrip_big(in, n);
	free(in);
}

static void serialize(const struct seq_grammar *g, uint8_t **buf, size_t *len)
{
	assert_int_equal(seq_serialize(g, buf, len), 0);
}

/* Two grammars serialize to the same bytes (both are freed). */
static void assert_same_grammar(struct seq_grammar *g1, struct seq_grammar *g2)
{
	uint8_t *a, *b;
	size_t alen, blen;

	serialize(g1, &a, &alen);
	serialize(g2, &b, &blen);
	assert_int_equal(alen, blen);
	assert_memory_equal(a, b, alen);
	free(a);
	free(b);
	seq_grammar_free(g1);
	seq_grammar_free(g2);
}

/* Same input, same bytes: across builders, however the input is fed, and
 * whether or not snapshots were taken on the way. */
static void test_determinism(void **state)
{
	size_t n = 200000;
	uint32_t *in = malloc(n * sizeof(*in));
	(void)state;

	assert_true(tracegen_make(3, in, n) > 0);
	for (int algo = 0; algo < 2; algo++) {
		struct seq_grammar g1, g2, snap;

		/* A builder with a different history of allocations first. */
		struct seq_builder *noise = seq_builder_new(algo);
		for (uint32_t i = 0; i < 5000; i++)
			seq_append(noise, (i * 2654435761u) % 97);
		assert_int_equal(tu_build(algo, in, n, &g1), 0);
		seq_builder_free(noise);

		struct seq_builder *bld = seq_builder_new(algo);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(seq_append(bld, in[i]), 0);
			if (i % 50000 == 777) { /* snapshots must not disturb */
				assert_int_equal(seq_export(bld, &snap), 0);
				assert_expands_to(&snap, in, i + 1);
				seq_grammar_free(&snap);
			}
		}
		assert_int_equal(seq_finish(bld), 0);
		assert_int_equal(seq_export(bld, &g2), 0);
		seq_builder_free(bld);
		assert_same_grammar(&g1, &g2);
	}
	free(in);
}

/* A gap ends a segment: no rule spans it, each segment expands to its
 * own stretch, and repeated content across segments still shares rules. */
static void test_gaps(void **state)
{
	struct seq_grammar g;
	(void)state;

	build_string(SEQ_LOOKAHEAD, "abcab|cabc||abcabc", &g);
	assert_int_equal(g.nroots, 4);
	assert_int_equal(g.exp_len[g.nrules + 0], 5);
	assert_int_equal(g.exp_len[g.nrules + 1], 4);
	assert_int_equal(g.exp_len[g.nrules + 2], 0);
	assert_int_equal(g.exp_len[g.nrules + 3], 6);
	uint32_t in[] = {'a', 'b',    'c',    'a', 'b', TU_GAP, 'c', 'a', 'b',
			 'c', TU_GAP, TU_GAP, 'a', 'b', 'c',	'a', 'b', 'c'};
	assert_expands_to(&g, in, sizeof(in) / sizeof(in[0]));
	/* "ab" is shared by segments 0, 1 and 3 through one rule. */
	int shared = 0;
	for (uint32_t r = 0; r < g.nrules; r++)
		if (g.exp_len[r] == 2 && seq_grammar_body(&g, r)[0] == 'a')
			shared = 1;
	assert_true(shared);
	seq_grammar_free(&g);

	/* "ab|ab": the digram ab across the gap must not become "b a". */
	build_string(SEQ_PLAIN, "xab|ab", &g);
	for (uint32_t i = 0; i < seq_grammar_nodes(&g); i++)
		for (uint32_t j = 0; j + 1 < seq_grammar_body_len(&g, i); j++)
			assert_false(seq_grammar_body(&g, i)[j] == 'b' &&
				     seq_grammar_body(&g, i)[j + 1] == 'a');
	seq_grammar_free(&g);
}

static void test_bad_terminal(void **state)
{
	struct seq_builder *b = seq_builder_new(SEQ_LOOKAHEAD);
	struct seq_stats st;
	(void)state;

	assert_int_equal(seq_append(b, SEQ_TERMINAL_LIMIT), -1);
	assert_int_equal(seq_append(b, UINT32_MAX), -1);
	assert_int_equal(seq_append(b, SEQ_TERMINAL_LIMIT - 1), 0);
	assert_false(seq_builder_failed(b));
	seq_builder_stats(b, &st);
	assert_int_equal(st.input_symbols, 1);
	seq_builder_free(b);

	/* seq_append_many stops at a bad terminal: what came before it is
	 * in, the builder is not poisoned, and appending goes on as if the
	 * bad one had never been offered (both algorithms; the second call
	 * holds a symbol back, SEQUITUR(1)'s own loop). */
	uint32_t in[] = {1, 2, 1, 2, 1, 2, 3, SEQ_TERMINAL_LIMIT, 9, 9}, good[] = {1, 2, 1, 2, 1, 2, 3, 4, 1, 2, 3};
	for (int algo = 0; algo < 2; algo++) {
		enum seq_algorithm a = algo ? SEQ_LOOKAHEAD : SEQ_PLAIN;
		struct seq_builder *x = seq_builder_new(a), *y = seq_builder_new(a);
		struct seq_grammar gx, gy;
		assert_int_equal(seq_append_many(x, in, 3), 0);
		assert_int_equal(seq_append_many(x, in + 3, 7), -1);
		assert_false(seq_builder_failed(x));
		assert_int_equal(seq_append_many(x, good + 7, 4), 0);
		assert_int_equal(seq_append_many(y, good, 11), 0);
		assert_int_equal(seq_finish(x), 0);
		assert_int_equal(seq_finish(y), 0);
		seq_builder_stats(x, &st);
		assert_int_equal(st.input_symbols, 11);
		assert_int_equal(seq_export(x, &gx), 0);
		assert_int_equal(seq_export(y, &gy), 0);
		assert_same_grammar(&gx, &gy);
		seq_builder_free(x);
		seq_builder_free(y);
	}
}

/* SEQUITUR(1) should not be worse than SEQUITUR on trace-shaped input. */
static void test_lookahead_not_larger(void **state)
{
	size_t n = 500000;
	uint32_t *in = malloc(n * sizeof(*in));
	struct seq_stats st[2];
	(void)state;

	assert_true(tracegen_make(11, in, n) > 0);
	for (int algo = 0; algo < 2; algo++) {
		struct seq_builder *b = seq_builder_new(algo);
		seq_append_many(b, in, n);
		seq_finish(b);
		seq_builder_stats(b, &st[algo]);
		seq_builder_free(b);
	}
	assert_true(st[SEQ_LOOKAHEAD].grammar_symbols <= st[SEQ_PLAIN].grammar_symbols);
	free(in);
}

/* How feed() hands the input to the builder. */
enum feed_mode { FEED_MANY, FEED_RUNS };

/* Feed in[] (TU_GAP = gap) through seq_append_many in chunks of random
 * length, or through seq_append_run for every run of equal symbols; then
 * finish, check every invariant and export. */
static void feed(enum seq_algorithm algo, enum feed_mode mode, const uint32_t *in, size_t n,
		 uint64_t *rng, struct seq_grammar *g)
{
	struct seq_builder *b = seq_builder_new(algo);
	char why[200];

	for (size_t i = 0; i < n;) {
		size_t j = i;
		if (in[i] == TU_GAP) {
			assert_int_equal(seq_append_gap(b), 0);
			i++;
			continue;
		}
		if (mode == FEED_RUNS) {
			while (j < n && in[j] == in[i])
				j++;
			assert_int_equal(seq_append_run(b, in[i], j - i), 0);
		} else {
			/* Chunks short and long, across the prefetch distance. */
			size_t len = 1 + tu_rand(rng) % (tu_rand(rng) % 2 ? 12 : 400);
			while (j < n && j - i < len && in[j] != TU_GAP)
				j++;
			assert_int_equal(seq_append_many(b, in + i, j - i), 0);
		}
		i = j;
	}
	assert_int_equal(seq_finish(b), 0);
	if (seq_builder_check(b, why, sizeof(why)) != 0)
		fail_msg("%s", why);
	assert_int_equal(seq_export(b, g), 0);
	seq_builder_free(b);
}

/* Runs of random length (up to 2 000) over a small alphabet, mixed with
 * stretches of the shapes of tu_random_input. */
static void runs_input(uint64_t *rng, uint32_t *in, size_t n, unsigned shape)
{
	for (size_t i = 0; i < n;) {
		size_t len = 1 + tu_rand(rng) % (tu_rand(rng) % 4 ? 2000 : 20);
		if (len > n - i)
			len = n - i;
		if (tu_rand(rng) % 3) {
			uint32_t sym = (uint32_t)(tu_rand(rng) % 4);
			for (size_t k = 0; k < len; k++)
				in[i + k] = sym;
		} else {
			tu_random_input(rng, in + i, len, shape, shape % 2);
		}
		i += len;
	}
}

/*
 * The entry points are one algorithm: seq_append_many (which skips the
 * per-step prefetch it already made, and is the path the benchmark and
 * the grammar consumer take) and seq_append_run must give the grammar of
 * one seq_append per symbol, byte for byte, on random inputs with long
 * runs, gaps and the other shapes.
 */
static void test_entry_points_agree(void **state)
{
	uint64_t rng = 0xfeed;
	size_t cap = 20000;
	uint32_t *in = malloc(cap * sizeof(*in));
	(void)state;

	for (int it = 0; it < 120; it++) {
		size_t n = 1 + tu_rand(&rng) % cap;
		if (it % 2)
			runs_input(&rng, in, n, (unsigned)it % TU_SHAPES);
		else
			tu_random_input(&rng, in, n, (unsigned)it % TU_SHAPES, it % 3 == 0);
		for (int algo = 0; algo < 2; algo++) {
			struct seq_grammar ref, g;
			uint8_t *a, *b;
			size_t alen, blen;
			assert_int_equal(tu_build(algo, in, n, &ref), 0);
			serialize(&ref, &a, &alen);
			for (int mode = FEED_MANY; mode <= FEED_RUNS; mode++) {
				feed(algo, mode, in, n, &rng, &g);
				serialize(&g, &b, &blen);
				if (alen != blen || memcmp(a, b, alen))
					fail_msg(
					    "iteration %d, algorithm %d, mode %d: grammar differs",
					    it, algo, mode);
				free(b);
				seq_grammar_free(&g);
			}
			size_t m;
			uint32_t *out = tu_expand_all(&ref, &m);
			assert_int_equal(m, n);
			assert_memory_equal(out, in, n * sizeof(*in));
			free(out);
			free(a);
			seq_grammar_free(&ref);
		}
	}
	free(in);
}


/* Loops as a program runs them: bodies of 2 to 20 paths from a small pool
 * of symbols, each repeated a random number of times, now and then with
 * one path of an iteration replaced (a variant). */
static void loops_input(uint64_t *rng, uint32_t *in, size_t n)
{
	uint32_t body[20];

	for (size_t i = 0; i < n;) {
		uint32_t len = 2 + (uint32_t)(tu_rand(rng) % 19), pool = 3 + (uint32_t)(tu_rand(rng) % 40);
		for (uint32_t k = 0; k < len; k++)
			body[k] = (uint32_t)(tu_rand(rng) % pool);
		for (uint64_t reps = 1 + tu_rand(rng) % 60; reps && i < n; reps--)
			for (uint32_t k = 0; k < len && i < n; k++)
				in[i++] = tu_rand(rng) % 50 ? body[k] : (uint32_t)(tu_rand(rng) % pool);
	}
}

/* Build in[] (TU_GAP = gap) one symbol at a time; with general_only set,
 * every step through the general path.  Invariants checked, exported. */
static void build_checked(enum seq_algorithm algo, int general_only, const uint32_t *in, size_t n,
			  struct seq_grammar *g)
{
	struct seq_builder *b = seq_builder_new(algo);
	char why[200];

	if (general_only)
		seq_builder_general_only(b);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(in[i] == TU_GAP ? seq_append_gap(b) : seq_append(b, in[i]), 0);
	assert_int_equal(seq_finish(b), 0);
	if (seq_builder_check(b, why, sizeof(why)) != 0)
		fail_msg("%s", why);
	assert_int_equal(seq_export(b, g), 0);
	seq_builder_free(b);
}

/*
 * The fast paths at the end of a segment (check_tail: substituting a whole
 * rule in place; fold_pair: making or extending a rule for a duplicate
 * pair) must give exactly the grammar of the general path, byte for byte,
 * for both algorithms: on every input shape, on loop-shaped inputs (which
 * exercise fold_pair on nearly every step) and on long runs.
 */
static void test_fast_paths_match_general_path(void **state)
{
	uint64_t rng = 0xfa57;
	size_t cap = 12000;
	uint32_t *in = malloc(cap * sizeof(*in));
	(void)state;

	for (int it = 0; it < 240; it++) {
		size_t n = 1 + tu_rand(&rng) % cap;
		switch (it % 3) {
		case 0:
			tu_random_input(&rng, in, n, (unsigned)(it / 3) % TU_SHAPES, it % 2);
			break;
		case 1:
			loops_input(&rng, in, n);
			if (it % 4 == 1)
				for (size_t i = 0; i < n; i++)
					if (tu_rand(&rng) % 997 == 0)
						in[i] = TU_GAP;
			break;
		default:
			runs_input(&rng, in, n, (unsigned)(it / 3) % TU_SHAPES);
			break;
		}
		for (int algo = 0; algo < 2; algo++) {
			struct seq_grammar fast, general;
			uint8_t *a, *b;
			size_t alen, blen;
			build_checked(algo, 0, in, n, &fast);
			build_checked(algo, 1, in, n, &general);
			serialize(&fast, &a, &alen);
			serialize(&general, &b, &blen);
			if (alen != blen || memcmp(a, b, alen))
				fail_msg("iteration %d (shape %d), algorithm %d: the fast paths' grammar "
					 "differs from the general path's",
					 it, it % 3, algo);
			free(a);
			free(b);
			seq_grammar_free(&fast);
			seq_grammar_free(&general);
		}
	}
	free(in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_paper_lookahead),
	    cmocka_unit_test(test_paper_plain),
	    cmocka_unit_test(test_paper_abc),
	    cmocka_unit_test(test_paper_abcdbc),
	    cmocka_unit_test(test_invariants_every_step),
	    cmocka_unit_test(test_adversarial),
	    cmocka_unit_test(test_synthetic_trace),
	    cmocka_unit_test(test_determinism),
	    cmocka_unit_test(test_gaps),
	    cmocka_unit_test(test_bad_terminal),
	    cmocka_unit_test(test_lookahead_not_larger),
	    cmocka_unit_test(test_entry_points_agree),
	    cmocka_unit_test(test_fast_paths_match_general_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
