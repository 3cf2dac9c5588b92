/* SPDX-License-Identifier: MIT */
/* The range coder behind grammar format version 2: random mixes of
 * modelled bits, direct bits and gamma-coded integers decode to exactly
 * what was encoded, and the decoder never reads outside its buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/grammar/sequitur_rc.h"
#include "test_util.h"

enum { BIT, DIRECT, GAMMA };

struct op {
	int kind;
	unsigned ctx, nbits;
	uint64_t value;
};

/* Contexts 0 and 2 plain (format version 2), context 1 fine (version 3). */
static void init_gammas(struct rc_gamma_model gm[3])
{
	rc_gamma_init(&gm[0]);
	rc_gamma_init_fine(&gm[1]);
	rc_gamma_init(&gm[2]);
}

static void test_rc_roundtrip(void **state)
{
	uint64_t rng = 2024;
	(void)state;

	for (int it = 0; it < 300; it++) {
		size_t n = tu_rand(&rng) % 3000;
		struct op *ops = malloc((n ? n : 1) * sizeof(*ops));
		uint16_t bits[4];
		struct rc_gamma_model gm[3];
		struct rc_enc e;
		/* Skewed bits (so the models adapt hard) and values of every
		 * magnitude up to 2^62. */
		unsigned skew = 1 + tu_rand(&rng) % 60;
		for (size_t i = 0; i < n; i++) {
			struct op *o = &ops[i];
			o->kind = (int)(tu_rand(&rng) % 3);
			o->ctx = (unsigned)(tu_rand(&rng) % 3);
			if (o->kind == BIT) {
				o->value = tu_rand(&rng) % 64 < skew;
			} else if (o->kind == DIRECT) {
				o->nbits = 1 + (unsigned)(tu_rand(&rng) % 32);
				o->value = tu_rand(&rng) & ((1ull << o->nbits) - 1);
			} else {
				/* Half of them small: the fine models' trees. */
				unsigned mag = (unsigned)(tu_rand(&rng) % 2
								? tu_rand(&rng) % 63
								: tu_rand(&rng) % (RC_GAMMA_FINE_BITS + 1));
				o->value = mag ? tu_rand(&rng) >> (64 - mag) : 0;
			}
		}
		rc_probs_init(bits, 4);
		init_gammas(gm);
		rc_enc_init(&e);
		for (size_t i = 0; i < n; i++) {
			struct op *o = &ops[i];
			if (o->kind == BIT)
				rc_enc_bit(&e, &bits[o->ctx], (unsigned)o->value);
			else if (o->kind == DIRECT)
				rc_enc_direct(&e, (uint32_t)o->value, o->nbits);
			else
				rc_enc_gamma(&e, &gm[o->ctx], o->value);
		}
		assert_int_equal(rc_enc_finish(&e), 0);

		struct rc_dec d;
		rc_probs_init(bits, 4);
		init_gammas(gm);
		/* An exact-size copy so ASan sees any read past the end. */
		uint8_t *copy = malloc(e.n);
		memcpy(copy, e.buf, e.n);
		assert_int_equal(rc_dec_init(&d, copy, e.n), 0);
		for (size_t i = 0; i < n; i++) {
			struct op *o = &ops[i];
			uint64_t got;
			if (o->kind == BIT)
				got = rc_dec_bit(&d, &bits[o->ctx]);
			else if (o->kind == DIRECT)
				got = rc_dec_direct(&d, o->nbits);
			else
				got = rc_dec_gamma(&d, &gm[o->ctx], UINT64_MAX >> 1);
			assert_true(got == o->value);
		}
		assert_int_equal(d.overrun, 0);
		free(copy);
		free(e.buf);
		free(ops);
	}
}

/* Code value with a fresh model from init, decode it with bound max. */
static uint64_t gamma_through(void (*init)(struct rc_gamma_model *), uint64_t value, uint64_t max)
{
	struct rc_gamma_model m;
	struct rc_enc e;
	struct rc_dec d;
	uint64_t got;

	init(&m);
	rc_enc_init(&e);
	rc_enc_gamma(&e, &m, value);
	assert_int_equal(rc_enc_finish(&e), 0);
	init(&m);
	assert_int_equal(rc_dec_init(&d, e.buf, e.n), 0);
	got = rc_dec_gamma(&d, &m, max);
	free(e.buf);
	return got;
}

/* A gamma value above the caller's bound is reported as bound + 1. */
static void test_rc_gamma_bound(void **state)
{
	struct rc_dec d;
	(void)state;

	assert_true(gamma_through(rc_gamma_init, 1000000, 999) == 1000);
	/* The same for a value a fine model codes bit by bit. */
	assert_true(gamma_through(rc_gamma_init_fine, 600, 599) == 600);
	assert_true(gamma_through(rc_gamma_init_fine, 600, 600) == 600);
	/* A stream that does not start with the zero byte is refused. */
	uint8_t junk[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	assert_int_equal(rc_dec_init(&d, junk, sizeof(junk)), -1);
	/* Too short: refused, never read past the end. */
	assert_int_equal(rc_dec_init(&d, junk, 3), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rc_roundtrip),
	    cmocka_unit_test(test_rc_gamma_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
