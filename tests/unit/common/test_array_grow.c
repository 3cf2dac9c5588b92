/* SPDX-License-Identifier: MIT */
/* array_grow.h: doubling from the first size, growing past a need of
 * more than twice the capacity in one call, keeping elements, and leaving
 * array and capacity untouched when the capacity's type or the byte size
 * would overflow. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "common/array_grow.h"

static void doubles_from_first(void **state)
{
	uint64_t *v = NULL;
	size_t cap = 0, n = 0;
	(void)state;
	assert_int_equal(ARRAY_GROW(v, cap, 1, 16), 0);
	assert_int_equal(cap, 16);
	for (; n < 1000; n++) {
		assert_int_equal(ARRAY_GROW(v, cap, n + 1, 16), 0);
		v[n] = n * 7;
	}
	assert_int_equal(cap, 1024);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(v[i], i * 7);
	/* Enough room already: nothing moves. */
	uint64_t *before = v;
	assert_int_equal(ARRAY_GROW(v, cap, 1024, 16), 0);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 1024);
	free(v);
}

static void grows_past_twice(void **state)
{
	char *v = NULL;
	unsigned cap = 0;
	(void)state;
	assert_int_equal(ARRAY_GROW(v, cap, 5000, 64), 0);
	assert_int_equal(cap, 8192);
	v[4999] = 1;
	assert_int_equal(ARRAY_GROW(v, cap, 100000, 64), 0);
	assert_int_equal(cap, 131072);
	v[99999] = 1;
	free(v);
}

static void narrow_counters_refuse(void **state)
{
	char *v = NULL;
	int icap = 0;
	uint32_t ucap = 0;
	(void)state;
	/* A need past what an int capacity holds: refused, nothing changed. */
	assert_int_equal(ARRAY_GROW(v, icap, (size_t)INT_MAX + 1, 16), -1);
	assert_null(v);
	assert_int_equal(icap, 0);
	assert_int_equal(ARRAY_GROW(v, ucap, (size_t)UINT32_MAX + 1, 16), -1);
	assert_null(v);
	assert_int_equal(ucap, 0);
}

static void byte_size_overflow_refused(void **state)
{
	struct big {
		char b[4096];
	} *v = NULL;
	size_t cap = 0;
	(void)state;
	assert_int_equal(ARRAY_GROW(v, cap, SIZE_MAX / 1024, 1), -1);
	assert_null(v);
	assert_int_equal(cap, 0);
	assert_int_equal(ARRAY_GROW(v, cap, SIZE_MAX, 1), -1);
	assert_int_equal(cap, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(doubles_from_first),
		cmocka_unit_test(grows_past_twice),
		cmocka_unit_test(narrow_counters_refuse),
		cmocka_unit_test(byte_size_overflow_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
