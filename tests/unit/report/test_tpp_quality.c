/* SPDX-License-Identifier: MIT */
/*
 * test_tpp_quality.c — AoDF arithmetic (report/tpp_quality.h) on an
 * example worked by hand:
 *
 *   function 1  path  blocks  full        tpp   over        under
 *               0     3       6+4 = 10    12    2 x 3 = 6
 *               1     2       5           3                 2 x 2 = 4
 *               2     4       -           1     1 x 4 = 4
 *               total weight 10 x 3 + 5 x 2 = 40; AoDF = 100 - 14/40 = 65 %
 *   function 2  path 7, 5 blocks, 4 in full, none in tpp (cold):
 *               under 20 of 20; AoDF 0 %
 *   summed      over 10 + under 24 of 60: AoDF 100 - 3400/60 = 43.33 %
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "report/tpp_quality.h"

static void hand_example(void **state)
{
	(void)state;
	/* out of order, and function 1's path 0 in two images */
	struct tppq_path ref[] = {{2, 7, 4, 5}, {1, 0, 6, 3}, {1, 1, 5, 2}, {1, 0, 4, 3}};
	struct tppq_path tpp[] = {{1, 2, 1, 4}, {1, 1, 3, 2}, {1, 0, 12, 3}};
	struct tppq_fn *f;
	size_t n;

	assert_int_equal(tppq_compare(ref, 4, tpp, 3, &f, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(f[0].fn_key, 1);
	assert_int_equal(f[0].ref_exec, 15);
	assert_int_equal(f[0].tpp_exec, 16);
	assert_int_equal(f[0].total, 40);
	assert_int_equal(f[0].over, 10);
	assert_int_equal(f[0].under, 4);
	assert_float_equal(tppq_aodf(f[0].total, f[0].over, f[0].under), 65.0, 1e-9);
	assert_int_equal(f[1].fn_key, 2);
	assert_int_equal(f[1].total, 20);
	assert_int_equal(f[1].under, 20);
	assert_int_equal(f[1].over, 0);
	assert_float_equal(tppq_aodf(f[1].total, f[1].over, f[1].under), 0.0, 1e-9);
	assert_float_equal(tppq_aodf(60, 10, 24), 100.0 - 3400.0 / 60.0, 1e-9);
	free(f);
}

static void edges(void **state)
{
	(void)state;
	struct tppq_fn *f;
	size_t n;
	/* nothing to compare: no function, AoDF 100 */
	assert_int_equal(tppq_compare(NULL, 0, NULL, 0, &f, &n), 0);
	assert_int_equal(n, 0);
	free(f);
	assert_float_equal(tppq_aodf(0, 0, 0), 100.0, 0);
	/* paths only in tpp: all overcount, AoDF floored at 0 */
	assert_float_equal(tppq_aodf(0, 5, 0), 0.0, 0);
	assert_float_equal(tppq_aodf(10, 30, 0), 0.0, 0);
	/* weights saturate instead of wrapping */
	struct tppq_path big[] = {{1, 0, UINT64_MAX / 2, 4}};
	assert_int_equal(tppq_compare(big, 1, NULL, 0, &f, &n), 0);
	assert_int_equal(f[0].total, UINT64_MAX);
	assert_int_equal(f[0].under, UINT64_MAX);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(hand_example),
	    cmocka_unit_test(edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
