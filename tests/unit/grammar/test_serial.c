/* SPDX-License-Identifier: MIT */
/* Grammar serialization: round trips, and hostile input rejected cleanly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/crc32c.h"
#include "analysis/grammar/sequitur.h"
#include "analysis/grammar/sequitur_serial.h"
#include "test_util.h"
#include "tracegen.h"

static void assert_same_grammar(const struct seq_grammar *a, const struct seq_grammar *b)
{
	assert_int_equal(a->nrules, b->nrules);
	assert_int_equal(a->nroots, b->nroots);
	assert_int_equal(a->flags, b->flags);
	uint32_t nodes = seq_grammar_nodes(a);
	assert_memory_equal(a->start, b->start, (nodes + 1) * sizeof(uint32_t));
	assert_memory_equal(a->sym, b->sym, a->start[nodes] * sizeof(uint32_t));
	assert_memory_equal(a->exp_len, b->exp_len, nodes * sizeof(uint64_t));
}

static void roundtrip(const struct seq_grammar *g)
{
	uint8_t *buf, *again;
	size_t len, len2;
	struct seq_grammar back;
	char why[200];

	assert_int_equal(seq_serialize(g, &buf, &len), 0);
	if (seq_deserialize(buf, len, &back, why, sizeof(why)) != 0)
		fail_msg("round trip rejected: %s", why);
	assert_same_grammar(g, &back);
	assert_int_equal(seq_serialize(&back, &again, &len2), 0);
	assert_int_equal(len, len2);
	assert_memory_equal(buf, again, len);
	free(buf);
	free(again);
	seq_grammar_free(&back);
}

/* Older versions stay readable: what each writes parses back to the same
 * grammar (version 2 only for canonical grammars; else it writes 1). */
static void roundtrip_version(const struct seq_grammar *g, unsigned version)
{
	uint8_t *buf;
	size_t len;
	struct seq_grammar back;
	char why[200];

	assert_int_equal(seq_serialize_version(g, version, &buf, &len), 0);
	assert_int_equal(buf[4], version);
	if (seq_deserialize(buf, len, &back, why, sizeof(why)) != 0)
		fail_msg("v%u round trip rejected: %s", version, why);
	assert_same_grammar(g, &back);
	free(buf);
	seq_grammar_free(&back);
}

static void test_roundtrip_random(void **state)
{
	uint64_t rng = 42;
	uint32_t in[400];
	(void)state;

	for (int it = 0; it < 600; it++) {
		struct seq_grammar g;
		size_t n = tu_rand(&rng) % 400;
		tu_random_input(&rng, in, n, tu_case_shape((unsigned)it), tu_case_gaps((unsigned)it, 3));
		if (it % 7 == 0) /* large terminal values too */
			for (size_t i = 0; i < n; i++)
				if (in[i] != TU_GAP)
					in[i] = SEQ_TERMINAL_LIMIT - 1 - in[i] * 1000003u;
		assert_int_equal(tu_build(tu_case_algo((unsigned)it), in, n, &g), 0);
		roundtrip(&g);
		roundtrip_version(&g, 1);
		roundtrip_version(&g, 2);
		roundtrip_version(&g, 3);
		/* An exported grammar is canonical: the current version is used. */
		uint8_t *buf;
		size_t len;
		assert_int_equal(seq_serialize(&g, &buf, &len), 0);
		assert_int_equal(buf[4], SEQ_SERIAL_VERSION);
		free(buf);
		seq_grammar_free(&g);
	}
}

static void test_roundtrip_trace(void **state)
{
	size_t n = 300000;
	uint32_t *in = malloc(n * sizeof(*in));
	struct seq_grammar g;
	(void)state;

	assert_true(tracegen_make(5, in, n) > 0);
	assert_int_equal(tu_build(SEQ_LOOKAHEAD, in, n, &g), 0);
	roundtrip(&g);
	roundtrip_version(&g, 1);
	roundtrip_version(&g, 2);
	roundtrip_version(&g, 3);
	roundtrip_version(&g, 4);
	/* The point of version 2: it must be clearly smaller; version 3's
	 * tuning must not lose on the trace it was tuned for, nor version 4's
	 * coding of the rules the class lists miss (this trace has such
	 * rules: a decoder that takes the wrong rank fails the round trip). */
	uint8_t *b1, *b2, *b3, *b4;
	size_t l1, l2, l3, l4;
	assert_int_equal(seq_serialize_version(&g, 1, &b1, &l1), 0);
	assert_int_equal(seq_serialize_version(&g, 2, &b2, &l2), 0);
	assert_int_equal(seq_serialize_version(&g, 3, &b3, &l3), 0);
	assert_int_equal(seq_serialize_version(&g, 4, &b4, &l4), 0);
	assert_true(l2 * 3 < l1 * 2);
	assert_true(l3 < l2);
	assert_true(l4 < l3);
	free(b1);
	free(b2);
	free(b3);
	free(b4);
	seq_grammar_free(&g);
	free(in);
}

/* Grammars not in seq_export's numbering (hand-made, valid DAGs): version
 * 2 cannot hold them, so seq_serialize falls back to version 1, and the
 * result still round trips. */
static void test_noncanonical_falls_back(void **state)
{
	uint64_t rng = 99;
	(void)state;

	for (int it = 0; it < 500; it++) {
		struct seq_grammar g;
		uint32_t nrules = 1 + tu_rand(&rng) % 12, nroots = 1 + tu_rand(&rng) % 3;
		uint32_t lens[20], total = 0;
		for (uint32_t i = 0; i < nrules + nroots; i++)
			total += lens[i] = (i < nrules ? 2 : 0) + tu_rand(&rng) % 4;
		assert_int_equal(seq_grammar_alloc(&g, nrules, nroots, total), 0);
		uint32_t pos = 0;
		for (uint32_t i = 0; i < nrules + nroots; i++) {
			uint32_t self = i < nrules ? i : nrules;
			g.start[i] = pos;
			for (uint32_t j = 0; j < lens[i]; j++)
				g.sym[pos++] = self && tu_rand(&rng) % 2
						   ? SEQ_RULE_BIT | (uint32_t)(tu_rand(&rng) % self)
						   : (uint32_t)(tu_rand(&rng) % 5);
		}
		g.start[nrules + nroots] = pos;
		assert_int_equal(seq_grammar_finish(&g, NULL, 0), 0);
		roundtrip(&g);
		roundtrip_version(&g, 1);
		seq_grammar_free(&g);
	}
}

static void fix_crc(uint8_t *buf, size_t len)
{
	uint32_t crc = wpp_crc32c(0, buf, len - 4);
	for (int i = 0; i < 4; i++)
		buf[len - 4 + i] = (uint8_t)(crc >> (8 * i));
}

static void make_sample(uint8_t **buf, size_t *len)
{
	struct seq_grammar g;
	assert_int_equal(
	    tu_build(SEQ_LOOKAHEAD,
		     (uint32_t[]){1, 2, 1, 2, 3, 1, 2, 1, 2, 3, TU_GAP, 1, 2, 3, 9, 1, 2, 3, 9}, 19,
		     &g),
	    0);
	assert_int_equal(seq_serialize(&g, buf, len), 0);
	seq_grammar_free(&g);
}

/* Truncations and single-byte damage: always a clean rejection. */
static void test_corruption_rejected(void **state)
{
	uint8_t *buf;
	size_t len;
	struct seq_grammar g;
	char why[200];
	(void)state;

	make_sample(&buf, &len);
	for (size_t cut = 0; cut < len; cut++) {
		assert_int_equal(seq_deserialize(buf, cut, &g, why, sizeof(why)), -1);
		assert_true(why[0] != '\0');
	}
	for (size_t i = 0; i < len; i++)
		for (int bit = 0; bit < 8; bit++) {
			buf[i] ^= (uint8_t)(1u << bit);
			assert_int_equal(seq_deserialize(buf, len, &g, why, sizeof(why)), -1);
			buf[i] ^= (uint8_t)(1u << bit);
		}
	assert_int_equal(seq_deserialize(buf, len, &g, why, sizeof(why)), 0);
	seq_grammar_free(&g);
	free(buf);
}

/* Hostile input with a correct checksum: the parser must stay in bounds
 * (ASan watches), and whatever it accepts must be a sound DAG. */
static void test_hostile_valid_checksum(void **state)
{
	uint8_t *sample;
	size_t len;
	uint64_t rng = 7;
	(void)state;

	make_sample(&sample, &len);
	uint8_t *buf = malloc(len + 64);
	for (int it = 0; it < 20000; it++) {
		size_t n = len;
		memcpy(buf, sample, len);
		int edits = 1 + tu_rand(&rng) % 4;
		for (int e = 0; e < edits; e++) {
			size_t at = 4 + tu_rand(&rng) % (n - 8);
			switch (tu_rand(&rng) % 3) {
			case 0:
				buf[at] = (uint8_t)tu_rand(&rng);
				break;
			case 1: /* a long varint */
				buf[at] |= 0x80;
				break;
			default: /* drop a byte */
				memmove(buf + at, buf + at + 1, n - at - 1);
				n--;
				break;
			}
		}
		fix_crc(buf, n);
		struct seq_grammar g;
		char why[200];
		if (seq_deserialize(buf, n, &g, why, sizeof(why)) == 0) {
			/* Accepted: it must expand within its stated size. */
			size_t m;
			uint64_t total = seq_grammar_total_len(&g);
			if (total < 100000) {
				uint32_t *out = tu_expand_all(&g, &m);
				assert_non_null(out);
				assert_int_equal(m, total + g.nroots - 1);
				free(out);
			}
			seq_grammar_free(&g);
		} else {
			assert_true(why[0] != '\0');
		}
	}
	/* A reference to itself (a cycle) is refused. */
	uint8_t cyc[] = {'W', 'P', 'P', 'G', 1, 0, 1, 5, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0};
	fix_crc(cyc, sizeof(cyc));
	struct seq_grammar g;
	char why[200];
	assert_int_equal(seq_deserialize(cyc, sizeof(cyc), &g, why, sizeof(why)), -1);
	free(buf);
	free(sample);
}

/* The same attacks on a larger range-coded grammar (version 2, 3 or 4, a
 * trace with gaps), so the edits land in the payload as well as the
 * header. */
static void hostile_range_coded(unsigned version)
{
	size_t n = 3000, len;
	uint32_t *in = malloc(n * sizeof(*in));
	uint8_t *sample;
	struct seq_grammar g;
	uint64_t rng = 11 + version;
	char why[200];

	assert_true(tracegen_make(9, in, n) > 0);
	for (size_t i = 500; i < n; i += 700)
		in[i] = TU_GAP;
	assert_int_equal(tu_build(SEQ_LOOKAHEAD, in, n, &g), 0);
	assert_int_equal(seq_serialize_version(&g, version, &sample, &len), 0);
	assert_int_equal(sample[4], version);
	seq_grammar_free(&g);
	for (size_t cut = 0; cut < len; cut++)
		assert_int_equal(seq_deserialize(sample, cut, &g, why, sizeof(why)), -1);
	uint8_t *buf = malloc(len);
	for (int it = 0; it < 6000; it++) {
		size_t m = len;
		memcpy(buf, sample, len);
		int edits = 1 + tu_rand(&rng) % 3;
		for (int e = 0; e < edits; e++) {
			size_t at = 5 + tu_rand(&rng) % (m - 9);
			if (tu_rand(&rng) % 4) {
				buf[at] ^= (uint8_t)(1u << (tu_rand(&rng) % 8));
			} else {
				memmove(buf + at, buf + at + 1, m - at - 1);
				m--;
			}
		}
		/* Unchanged CRC: always rejected.  Fixed CRC: the parser must stay
		 * in bounds and anything accepted must be a sound grammar. */
		if (m == len && memcmp(buf, sample, len) != 0)
			assert_int_equal(seq_deserialize(buf, m, &g, why, sizeof(why)), -1);
		fix_crc(buf, m);
		if (seq_deserialize(buf, m, &g, why, sizeof(why)) == 0) {
			size_t k;
			uint64_t total = seq_grammar_total_len(&g);
			if (total < 1000000) {
				uint32_t *out = tu_expand_all(&g, &k);
				assert_non_null(out);
				assert_int_equal(k, total + g.nroots - 1);
				free(out);
			}
			seq_grammar_free(&g);
		} else {
			assert_true(why[0] != '\0');
		}
	}
	free(buf);
	free(sample);
	free(in);
}

static void test_hostile_v2(void **state)
{
	(void)state;
	hostile_range_coded(2);
}

static void test_hostile_v3(void **state)
{
	(void)state;
	hostile_range_coded(3);
}

static void test_hostile_v4(void **state)
{
	(void)state;
	hostile_range_coded(4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip_random),
	    cmocka_unit_test(test_roundtrip_trace),
	    cmocka_unit_test(test_corruption_rejected),
	    cmocka_unit_test(test_hostile_valid_checksum),
	    cmocka_unit_test(test_noncanonical_falls_back),
	    cmocka_unit_test(test_hostile_v2),
	    cmocka_unit_test(test_hostile_v3),
	    cmocka_unit_test(test_hostile_v4),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
