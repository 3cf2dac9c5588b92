/* SPDX-License-Identifier: MIT */
/* Counting path records (path_records.h) against the rule spelled out word
 * by word here: on words at the edges of every kind (control, REPEAT, WET
 * value, the unregistered fid, the least and largest plain fids), mixed at
 * random into plain words, at every length and offset, so that both the
 * all-plain blocks and the blocks weighed word by word are checked; the
 * copying count the same way, its copy exact and nothing written past it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/path_records.h"
#include "wpp/trace_abi.h"

/* The header's rule: a control word counts the executions a REPEAT adds
 * (its low 32 bits) and nothing else; a WET value word (top bits 10)
 * nothing; any other word one. */
static uint64_t oracle(const uint64_t *w, uint32_t n)
{
	uint64_t r = 0;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t fid = (uint32_t)(w[i] >> 40);
		if (fid == 0) {
			if (((w[i] >> 32) & 0xff) == WPP_CTRL_REPEAT)
				r += (uint32_t)w[i];
		} else if ((w[i] >> 62) != 2) {
			r++;
		}
	}
	return r;
}

static uint64_t rnd64(void)
{
	return (uint64_t)rand() << 62 ^ (uint64_t)rand() << 31 ^ (uint64_t)rand();
}

/* A word of a kind picked at random; plain ones most of the time. */
static uint64_t some_word(unsigned plain_per_256)
{
	static const uint64_t edges[] = {
	    1,
	    (UINT64_C(1) << 40) - 1,		     /* control, largest payload */
	    UINT64_C(1) << 40,			     /* fid 1, payload 0 */
	    (UINT64_C(1) << 63) - 1,		     /* largest below the top bit */
	    UINT64_C(1) << 63,			     /* a WET value word */
	    (UINT64_C(3) << 62) - 1,		     /* the last value word */
	    UINT64_C(3) << 62,			     /* top bits 11 */
	    UINT64_C(0xffffff) << 40,		     /* the unregistered fid */
	    ~UINT64_C(0),
	};
	unsigned k = (unsigned)rand() % 256;
	if (k < plain_per_256) /* a plain path word: fid 1 .. 2^23 - 1 */
		return (uint64_t)(1 + rand() % ((1 << 23) - 1)) << 40 | (rnd64() & WPP_PAYLOAD_MASK);
	switch (k % 4) {
	case 0:
		return wpp_make_ctrl(WPP_CTRL_REPEAT, (uint32_t)rand());
	case 1:
		return wpp_make_ctrl((uint32_t)rand() % 256, (uint32_t)rand());
	case 2:
		return edges[(unsigned)rand() % (sizeof(edges) / sizeof(edges[0]))];
	default:
		return rnd64();
	}
}

/* wpp_copy_path_records of w[0..n) into a buffer at every offset mod 8:
 * the oracle's count, the words copied, the canaries around them kept. */
static void copies_and_counts(const uint64_t *w, uint32_t n)
{
	enum { CAP = 320 };
	uint64_t dst[CAP + 16];
	uint32_t at = n % 8;

	assert_true(n + at + 1 <= CAP + 16);
	memset(dst, 0xa5, sizeof(dst));
	assert_int_equal(wpp_copy_path_records(dst + at, w, n), oracle(w, n));
	assert_memory_equal(dst + at, w, (size_t)n * sizeof(*w));
	for (uint32_t i = 0; i < at; i++)
		assert_true(dst[i] == UINT64_C(0xa5a5a5a5a5a5a5a5));
	assert_true(dst[at + n] == UINT64_C(0xa5a5a5a5a5a5a5a5));
}

static void matches_rule(void **state)
{
	enum { N = 300 };
	uint64_t w[N];
	(void)state;
	srand(23);
	for (unsigned density = 0; density <= 256; density += 32)
		for (int round = 0; round < 20; round++) {
			for (unsigned i = 0; i < N; i++)
				w[i] = some_word(density == 256 ? 255 : density);
			for (uint32_t off = 0; off < 9; off++)
				for (uint32_t n = 0; n + off <= N; n += 1 + n / 16) {
					assert_int_equal(wpp_count_path_records(w + off, n),
							 oracle(w + off, n));
					copies_and_counts(w + off, n);
				}
		}
}

static void all_plain(void **state)
{
	uint64_t w[64];
	(void)state;
	for (unsigned i = 0; i < 64; i++)
		w[i] = (uint64_t)(i + 1) << 40 | i;
	assert_int_equal(wpp_count_path_records(w, 64), 64);
	/* one REPEAT in the last block: 63 plain words and 1000 executions */
	w[60] = wpp_make_ctrl(WPP_CTRL_REPEAT, 1000);
	assert_int_equal(wpp_count_path_records(w, 64), 63 + 1000);
	copies_and_counts(w, 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(matches_rule),
	    cmocka_unit_test(all_plain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
