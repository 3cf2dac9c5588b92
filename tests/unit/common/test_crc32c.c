/* SPDX-License-Identifier: MIT */
/* CRC-32C: the standard check value, hardware vs table on every length and
 * alignment, and continuation across pieces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "common/crc32c.h"

static void check_value(void **state)
{
	(void)state;
	/* The published CRC-32C check value of "123456789". */
	assert_int_equal(wpp_crc32c(0, "123456789", 9), 0xe3069283u);
	assert_int_equal(wpp_crc32c_table(0, "123456789", 9), 0xe3069283u);
	assert_int_equal(wpp_crc32c(0, "", 0), 0);
	/* Writers checksum empty payloads by (NULL, 0). */
	assert_int_equal(wpp_crc32c(0x1234u, NULL, 0), 0x1234u);
	assert_int_equal(wpp_crc32c_table(0x1234u, NULL, 0), 0x1234u);
}

static void hw_matches_table(void **state)
{
	unsigned char buf[300];
	(void)state;
	srand(7);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)rand();
	for (size_t off = 0; off < 9; off++)
		for (size_t len = 0; len + off <= sizeof(buf); len++)
			assert_int_equal(wpp_crc32c(0, buf + off, len),
					 wpp_crc32c_table(0, buf + off, len));
}

static void continuation(void **state)
{
	unsigned char buf[1000];
	(void)state;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (unsigned char)(i * 7 + 3);
	uint32_t whole = wpp_crc32c(0, buf, sizeof(buf));
	for (size_t cut = 0; cut <= sizeof(buf); cut += 37)
		assert_int_equal(wpp_crc32c(wpp_crc32c(0, buf, cut), buf + cut, sizeof(buf) - cut),
				 whole);
}

/* Buffers long enough for the three-lane loop (several rounds plus a tail),
 * at every alignment and around the round boundaries. */
static void long_buffers_match_table(void **state)
{
	enum { N = 16 * 1024 + 77 };
	unsigned char *buf = malloc(N);
	(void)state;
	assert_non_null(buf);
	srand(11);
	for (size_t i = 0; i < N; i++)
		buf[i] = (unsigned char)rand();
	static const size_t lens[] = {3071, 3072, 3073, 3080, 6143, 6144, 6151, 9216, 12000, 16384};
	for (size_t off = 0; off < 9; off++)
		for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++)
			assert_int_equal(wpp_crc32c(0x1234567u, buf + off, lens[k]),
					 wpp_crc32c_table(0x1234567u, buf + off, lens[k]));
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(check_value),
		cmocka_unit_test(hw_matches_table),
		cmocka_unit_test(continuation),
		cmocka_unit_test(long_buffers_match_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
