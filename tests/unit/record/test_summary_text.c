/* SPDX-License-Identifier: MIT */
/*
 * test_summary_text.c — record's summary figures (user/record/
 * summary_text.c): three significant digits for bytes per path record at
 * REPEAT-heavy and at varied runs' sizes, never an exponent, and nouns
 * that agree with their counts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "record/summary_text.h"

static void per(uint64_t bytes, uint64_t records, const char *want)
{
	char buf[64];
	summary_per_record(buf, sizeof(buf), bytes, records);
	assert_string_equal(buf, want);
}

static void test_per_record(void **state)
{
	(void)state;
	per(213, 100000, ", 0.00213 bytes per path record"); /* was 0.002 */
	per(2, 1000, ", 0.00200 bytes per path record");
	per(5, 2, ", 2.50 bytes per path record");
	per(99, 1000, ", 0.0990 bytes per path record");
	per(4, 10, ", 0.400 bytes per path record");
	per(1234, 100, ", 12.34 bytes per path record");
	per(1, 1000000000000ull, ", 0.00000000 bytes per path record"); /* no exponent */
	per(0, 7, ", 0.00 bytes per path record");
	per(7, 0, "");
}

static void test_noun(void **state)
{
	(void)state;
	assert_string_equal(summary_noun(1, "process", "processes"), "process");
	assert_string_equal(summary_noun(0, "process", "processes"), "processes");
	assert_string_equal(summary_noun(2, "thread", "threads"), "threads");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_per_record),
	    cmocka_unit_test(test_noun),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
