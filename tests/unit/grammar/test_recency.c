/* SPDX-License-Identifier: MIT */
/* The uncapped move-to-front list (sequitur_recency.h) against a plain
 * array kept in move-to-front order: same rank for every symbol and same
 * symbol at every rank, after every touch, across the capacity doublings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/grammar/sequitur_recency.h"
#include "test_util.h"

static void check_against(const struct recency *r, const uint32_t *list, uint32_t n,
			  const uint32_t *stamp)
{
	assert_int_equal(r->n, n);
	for (uint32_t k = 0; k < n; k++) {
		assert_int_equal(recency_at(r, k), list[k]);
		assert_int_equal(recency_rank(r, stamp[list[k]]), k);
	}
}

static void test_against_plain_list(void **state)
{
	uint64_t rng = 0x7ec0;
	(void)state;

	for (int it = 0; it < 60; it++) {
		uint32_t nsym = 1 + (uint32_t)(tu_rand(&rng) % (it < 30 ? 40 : 3000));
		uint32_t touches = 1 + (uint32_t)(tu_rand(&rng) % 5000);
		uint32_t *stamp = calloc(nsym, sizeof(*stamp));
		uint32_t *list = malloc(nsym * sizeof(*list)), n = 0;
		struct recency r = {0};

		for (uint32_t t = 0; t < touches; t++) {
			/* Skewed: recent symbols again, often (as in a program's loops). */
			uint32_t s = tu_rand(&rng) % 3 && n ? list[tu_rand(&rng) % (n < 8 ? n : 8)]
							    : (uint32_t)(tu_rand(&rng) % nsym);
			uint32_t k = 0;
			while (k < n && list[k] != s)
				k++;
			if (k == n)
				n++;
			memmove(list + 1, list, k * sizeof(*list));
			list[0] = s;
			assert_int_equal(recency_touch(&r, &stamp[s], s), 0);
			if (t % 97 == 0 || t + 1 == touches)
				check_against(&r, list, n, stamp);
		}
		recency_free(&r);
		free(stamp);
		free(list);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_against_plain_list),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
