/* SPDX-License-Identifier: MIT */
/* Unit tests of user/report/table_fmt: numbers, shares, changes, fitting, wrapping. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/table_fmt.h"

static void test_count(void **state)
{
	char b[FMT_NUM_LEN];
	(void)state;
	assert_string_equal(fmt_count(b, 0), "0");
	assert_string_equal(fmt_count(b, 99999), "99999");
	assert_string_equal(fmt_count(b, 100000), "100k");
	assert_string_equal(fmt_count(b, 123456), "123k");
	assert_string_equal(fmt_count(b, 999499), "999k");
	assert_string_equal(fmt_count(b, 999500), "1.00M"); /* rounding carries into the next unit */
	assert_string_equal(fmt_count(b, 1234567), "1.23M");
	assert_string_equal(fmt_count(b, 45600000), "45.6M");
	assert_string_equal(fmt_count(b, UINT64_MAX), "18.4E");
	/* Brute force: every scaled form is at most 5 characters and parses back within 0.5%. */
	for (uint64_t v = 100000; v < UINT64_MAX / 3; v = v * 3 + 7) {
		const char *units = "kMGTPE";
		double x, scale = 1;
		char *end;
		fmt_count(b, v);
		assert_true(strlen(b) <= 5);
		x = strtod(b, &end);
		for (const char *u = units; *u; u++) {
			scale *= 1000;
			if (*u == *end)
				break;
		}
		assert_true(x * scale >= (double)v * 0.995 && x * scale <= (double)v * 1.005);
	}
}

static void test_pct_change(void **state)
{
	char b[FMT_NUM_LEN];
	(void)state;
	assert_string_equal(fmt_pct(b, 9, 13), "69.2%");
	assert_string_equal(fmt_pct(b, 0, 0), "0.0%");
	assert_string_equal(fmt_pct(b, 1, 100000), "<0.1%");
	assert_string_equal(fmt_pct(b, 5, 5), "100.0%");
	assert_string_equal(fmt_change(b, 0, 5), "new");
	assert_string_equal(fmt_change(b, 10, 0), "-100.0%");
	assert_string_equal(fmt_change(b, 8, 10), "+25.0%");
	assert_string_equal(fmt_change(b, 0, 0), "0.0%");
}

static void test_fit(void **state)
{
	char b[32];
	(void)state;
	assert_string_equal(fmt_fit(b, 6, "main"), "main");
	assert_string_equal(fmt_fit(b, 6, "function_name"), "funct~");
	assert_string_equal(fmt_fit_left(b, 8, "/very/long/path.c"), "~/path.c");
	assert_string_equal(fmt_fit_mid(b, 6, "main"), "main");
	assert_string_equal(fmt_fit_mid(b, 7, "abcdefgh"), "abc~fgh");
	assert_string_equal(fmt_fit_mid(b, 8, "abcdefghijk"), "abc~hijk"); /* the end gets the odd column */
	/* Every cut keeps the width, the start and the end. */
	for (size_t w = 2; w < 20; w++) {
		const char *s = "a_function_with_a_rather_long_name";
		size_t n = strlen(s);
		fmt_fit_mid(b, w, s);
		assert_int_equal(strlen(b), w);
		assert_memory_equal(b, s, (w - 1) / 2);
		assert_string_equal(b + (w - 1) / 2 + 1, s + n - (w - 1 - (w - 1) / 2));
	}
	assert_string_equal(fmt_basename("/a/b/c.c"), "c.c");
	assert_string_equal(fmt_basename("c.c"), "c.c");
}

static void test_wrap(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	(void)state;
	fmt_wrap(f, 4, 20, "aaaa bbbb cccc dddd eeee ffff");
	fmt_wrap(f, 2, 12, "xxxxxxxxxxxxxxxxxxxx");
	fclose(f);
	assert_string_equal(buf, "    aaaa bbbb cccc\n    dddd eeee ffff\n  xxxxxxxxxx\n  xxxxxxxxxx\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_count),
		cmocka_unit_test(test_pct_change),
		cmocka_unit_test(test_fit),
		cmocka_unit_test(test_wrap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
