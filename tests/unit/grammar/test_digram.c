/* SPDX-License-Identifier: MIT */
/* The bucketed digram index (sequitur_digram.h) against a plain array of
 * (key, value) pairs, under random finds, inserts, puts and removals —
 * including keys crowded into one home bucket, so that entries overflow
 * into later buckets, overflow counts saturate, and removals must take
 * their counts back.  Half the keys are stored under a value that names
 * a rule (SEQ_DIGRAM_WHOLE), whose key lookups must read from the rule's
 * guard (its next and prev are the two body nodes), and removal must find
 * by its alias.  After every operation the table's own consistency check
 * must pass and every key must be found where the reference says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/grammar/sequitur_digram.h"
#include "test_util.h"

#define MAX_KEYS 4000u

/* Key k is the whole body of a rule: guard 3k+1 -> 3k+2 -> 3k+3 -> guard
 * (the digram's node is 3k+2); node 0 is never used, as in the builder.
 * Even keys are stored under their node, odd ones under their rule. */
struct world {
	struct seq_node n[3 * MAX_KEYS + 1];
	uint64_t key[MAX_KEYS];
	int present[MAX_KEYS];
	uint32_t nkeys;
};

static uint32_t node_of(uint32_t k)
{
	return 3 * k + 2;
}

static uint32_t value_of(uint32_t k)
{
	return k % 2 ? (node_of(k) - 1) | SEQ_DIGRAM_WHOLE : node_of(k);
}

static void add_key(struct world *w, uint32_t first, uint32_t second)
{
	uint32_t k = w->nkeys++, a = node_of(k), g = a - 1;

	w->n[g] = (struct seq_node){0x80000000u | g, a + 1, a, 2};
	w->n[a] = (struct seq_node){first, g, a + 1, 0};
	w->n[a + 1] = (struct seq_node){second, a, g, 0};
	w->key[k] = seq_digram_key(first, second);
}

/* Remove k's entry as the builder does: by its node or the alias that
 * names the node's rule. */
static int remove_key(struct seq_digram_index *idx, const struct world *w, uint32_t k)
{
	uint32_t a = node_of(k);

	return seq_digram_remove_if(idx, w->key[k], a, w->n[a].prev | SEQ_DIGRAM_WHOLE);
}

static void check_all(const struct seq_digram_index *idx, const struct world *w)
{
	char why[160];
	uint32_t expect = 0;

	if (seq_digram_check(idx, why, sizeof(why)) < 0)
		fail_msg("%s", why);
	for (uint32_t k = 0; k < w->nkeys; k++) {
		uint32_t got = seq_digram_find(idx, w->n, w->key[k]);
		assert_int_equal(got, w->present[k] ? value_of(k) : SEQ_DIGRAM_NONE);
		if (w->present[k])
			assert_int_equal(seq_digram_node_of(w->n, got), node_of(k));
		expect += w->present[k] != 0;
	}
	assert_int_equal(idx->count, expect);
}

/* Keys whose home bucket, in a table of 2^log2_buckets buckets, is 5. */
static void crowded_keys(struct world *w, unsigned log2_buckets, uint32_t n)
{
	for (uint32_t second = 1; w->nkeys < n; second++)
		if (seq_digram_fp(seq_digram_key(7, second)) >> (32 - log2_buckets) == 5)
			add_key(w, 7, second);
}

/* Every key of w into the table, in order. */
static void insert_all(struct seq_digram_index *idx, struct world *w)
{
	for (uint32_t k = 0; k < w->nkeys; k++) {
		assert_int_equal(seq_digram_insert_absent(idx, seq_digram_fp(w->key[k]), value_of(k)),
				 0);
		w->present[k] = 1;
	}
}

static void random_ops(struct seq_digram_index *idx, struct world *w, uint64_t *rng, int ops,
		       int check_every)
{
	for (int op = 0; op < ops; op++) {
		uint32_t k = (uint32_t)(tu_rand(rng) % w->nkeys);
		int kind = (int)(tu_rand(rng) % 4);
		uint32_t replaced;

		switch (kind) {
		case 0: /* insert if absent */
			if (!w->present[k])
				assert_int_equal(seq_digram_insert_absent(idx, seq_digram_fp(w->key[k]),
									  value_of(k)),
						 0);
			w->present[k] = 1;
			break;
		case 1: /* find, and add if absent (the builder's lookup) */
			assert_int_equal(seq_digram_find(idx, w->n, w->key[k]),
					 w->present[k] ? value_of(k) : SEQ_DIGRAM_NONE);
			if (!w->present[k])
				assert_int_equal(seq_digram_insert_absent(idx, seq_digram_fp(w->key[k]),
									  value_of(k)),
						 0);
			w->present[k] = 1;
			break;
		case 2: /* put: the same value again (replacing itself) */
			assert_int_equal(seq_digram_put(idx, w->n, w->key[k], value_of(k), &replaced), 0);
			assert_int_equal(replaced, w->present[k] ? value_of(k) : SEQ_DIGRAM_NONE);
			w->present[k] = 1;
			break;
		default: /* remove */
			assert_int_equal(remove_key(idx, w, k), w->present[k]);
			w->present[k] = 0;
			break;
		}
		if (op % check_every == 0)
			check_all(idx, w);
	}
	check_all(idx, w);
}

static void test_random_keys(void **state)
{
	uint64_t rng = 0xd16a;
	(void)state;

	for (int it = 0; it < 20; it++) {
		struct world *w = calloc(1, sizeof(*w));
		struct seq_digram_index idx;
		uint32_t nkeys = 10 + (uint32_t)(tu_rand(&rng) % (MAX_KEYS - 10));

		assert_non_null(w);
		/* Distinct keys (second symbols differ), first symbols from a
		 * small set, as a program's paths. */
		while (w->nkeys < nkeys)
			add_key(w, (uint32_t)(tu_rand(&rng) % 50),
				w->nkeys * 1024 + (uint32_t)(tu_rand(&rng) % 1024));
		assert_int_equal(seq_digram_init(&idx, 4), 0);
		random_ops(&idx, w, &rng, 6000, 97); /* grows from 2 buckets */
		seq_digram_free(&idx);
		free(w);
	}
}

/* 600 keys with one home bucket in the initial table: 592 of them go past
 * it, so its count saturates (sticky), later buckets' counts do not; then
 * removals in random order must keep every remaining key reachable, and
 * growth must redistribute them. */
static void test_crowded_bucket(void **state)
{
	uint64_t rng = 0xc0d;
	(void)state;

	for (int it = 0; it < 4; it++) {
		struct world *w = calloc(1, sizeof(*w));
		struct seq_digram_index idx;

		assert_non_null(w);
		assert_int_equal(seq_digram_init(&idx, 10), 0); /* 128 buckets */
		crowded_keys(w, 7, it < 2 ? 600 : 60);
		insert_all(&idx, w);
		check_all(&idx, w);
		if (it < 2) {
			assert_int_equal(idx.mask, 127); /* no growth: 600 <= 3/4 of 1024 */
			assert_int_equal(idx.overflow[5], SEQ_DIGRAM_STICKY);
		}
		random_ops(&idx, w, &rng, 3000, 1);
		/* Remove everything: the table must end empty and consistent. */
		for (uint32_t k = 0; k < w->nkeys; k++)
			if (w->present[k]) {
				assert_int_equal(remove_key(&idx, w, k), 1);
				w->present[k] = 0;
			}
		check_all(&idx, w);
		seq_digram_free(&idx);
		free(w);
	}
}

/* The check catches a broken overflow count (lookups would stop early). */
static void test_check_catches_broken_count(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	struct seq_digram_index idx;
	char why[160];
	(void)state;

	assert_non_null(w);
	assert_int_equal(seq_digram_init(&idx, 10), 0);
	crowded_keys(w, 7, 20);
	insert_all(&idx, w);
	assert_int_equal(seq_digram_check(&idx, why, sizeof(why)), 0);
	assert_int_equal(idx.overflow[5], 12);
	idx.overflow[5] = 0;
	assert_int_equal(seq_digram_check(&idx, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "overflow"));
	/* ... and with it zero, the keys placed past bucket 5 are lost. */
	assert_int_equal(seq_digram_find(&idx, w->n, w->key[19]), SEQ_DIGRAM_NONE);
	seq_digram_free(&idx);
	free(w);
}

/* The node array's growth: contents kept through every doubling, across
 * the switch from the heap to a mapping (2 MiB) and through mremap, and
 * the big mappings on 2 MiB boundaries (huge pages stay whole). */
static void test_growable_keeps_contents(void **state)
{
	(void)state;
	size_t bytes = 16 << 10, top = (size_t)32 << 20;
	uint32_t *a = seq_grow_growable(NULL, 0, bytes);

	assert_non_null(a);
	for (size_t i = 0; i < bytes / 4; i++)
		a[i] = (uint32_t)(i * 2654435761u);
	while (bytes < top) {
		uint32_t *b = seq_grow_growable(a, bytes, 2 * bytes);
		assert_non_null(b);
		for (size_t i = 0; i < bytes / 4; i++)
			assert_int_equal(b[i], (uint32_t)(i * 2654435761u));
		if (2 * bytes >= ((size_t)2 << 20))
			assert_int_equal((uintptr_t)b % ((size_t)2 << 20), 0);
		for (size_t i = bytes / 4; i < 2 * bytes / 4; i++)
			b[i] = (uint32_t)(i * 2654435761u);
		a = b;
		bytes *= 2;
	}
	seq_free_growable(a, bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_keys),
	    cmocka_unit_test(test_crowded_bucket),
	    cmocka_unit_test(test_check_catches_broken_count),
	    cmocka_unit_test(test_growable_keeps_contents),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
