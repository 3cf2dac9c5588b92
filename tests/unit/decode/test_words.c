/* SPDX-License-Identifier: MIT */
/*
 * test_words.c — wpp_words_count (user/decode/trace_words.h), the counts
 * `wpptrace info` prints: hand-made word runs whose items are worked out
 * by hand from the rules in trace_words.h, including malformed and
 * cut-short items, REPEATs with nothing before them, unaligned input and
 * a two-word item across the counter's copy window.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "decode/trace_words.h"

static struct wpp_word_counts count(const uint64_t *w, size_t n, size_t misalign)
{
	unsigned char *bytes = malloc(n * 8 + misalign + 1);
	struct wpp_word_counts c = {0};
	assert_non_null(bytes);
	memcpy(bytes + misalign, w, n * 8);
	wpp_words_count(bytes + misalign, n, &c);
	free(bytes);
	return c;
}

static void expect(struct wpp_word_counts c, uint64_t records, uint64_t repeats,
		   uint64_t repetitions, uint64_t control, uint64_t malformed)
{
	assert_int_equal(c.records, records);
	assert_int_equal(c.repeats, repeats);
	assert_int_equal(c.repetitions, repetitions);
	assert_int_equal(c.control, control);
	assert_int_equal(c.malformed, malformed);
}

static uint64_t rec(uint32_t fid, uint64_t id)
{
	return wpp_make_word(fid, id);
}

static uint64_t ctrl(enum wpp_ctrl_op op, uint32_t operand)
{
	return wpp_make_ctrl(op, operand);
}

static void test_records_and_repeats(void **state)
{
	(void)state;
	const uint64_t w[] = {
	    rec(1, 7), ctrl(WPP_CTRL_REPEAT, 3), ctrl(WPP_CTRL_REPEAT, 2), /* 1 record, 5 more */
	    rec(2, 9),							   /* a record */
	    ctrl(WPP_CTRL_WIDE_PATH, 5), 123 | WPP_WIDE_ID_MARK,	   /* a wide record */
	    ctrl(WPP_CTRL_REPEAT, 1),					   /* repeats the wide one */
	};
	for (size_t mis = 0; mis < 8; mis++)
		expect(count(w, sizeof(w) / 8, mis), 3, 3, 6, 0, 0);
}

static void test_repeat_with_nothing_before(void **state)
{
	(void)state;
	/* Unattributable, but still a REPEAT word adding its executions. */
	const uint64_t w[] = {ctrl(WPP_CTRL_REPEAT, 4), rec(3, 1)};
	expect(count(w, 2, 0), 1, 1, 4, 0, 0);
}

static void test_control_words(void **state)
{
	(void)state;
	/* zero, PAD, and a GAP pair (one item); the GAP forgets the record
	 * before it, so the REPEAT after it is unattributable. */
	const uint64_t w[] = {0, rec(1, 2), ctrl(WPP_CTRL_PAD, 0), ctrl(WPP_CTRL_GAP, 0), 77,
			      ctrl(WPP_CTRL_REPEAT, 2)};
	expect(count(w, 6, 3), 1, 1, 2, 3, 0);
}

static void test_malformed(void **state)
{
	(void)state;
	const uint64_t w[] = {
	    ctrl(WPP_CTRL_REPEAT, 0),					  /* 1 word */
	    ctrl(60, 1),						  /* unknown op: 1 word */
	    ctrl(WPP_CTRL_WIDE_PATH, WPP_FID_CONTROL), 5 | WPP_WIDE_ID_MARK, /* 2 words */
	    ctrl(WPP_CTRL_WIDE_PATH, 4), 5,				  /* no mark: 2 words */
	    rec(1, 1),							  /* a record */
	    ctrl(WPP_CTRL_WIDE_PATH, 4),				  /* cut short at the end */
	};
	expect(count(w, sizeof(w) / 8, 1), 1, 0, 0, 0, 5);
	/* A GAP cut short is malformed too. */
	const uint64_t g[] = {rec(1, 1), ctrl(WPP_CTRL_GAP, 0)};
	expect(count(g, 2, 0), 1, 0, 0, 0, 1);
}

/* Wide pairs opened on every position around the counter's 1024-word copy
 * window: never cut short, never counted twice. */
static void test_pair_across_window(void **state)
{
	(void)state;
	enum { N = 3000 };
	uint64_t *w = malloc(N * sizeof(*w));
	assert_non_null(w);
	for (size_t at = 1015; at < 1030; at++) {
		size_t i = 0, records = 0;
		for (; i < at; i++, records++)
			w[i] = rec(2, i);
		for (; i + 2 <= N; i += 2, records++) {
			w[i] = ctrl(WPP_CTRL_WIDE_PATH, 3);
			w[i + 1] = (uint64_t)i | WPP_WIDE_ID_MARK;
		}
		if (i < N)
			w[i++] = rec(2, 0), records++;
		expect(count(w, N, at % 8), records, 0, 0, 0, 0);
	}
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_records_and_repeats),
	    cmocka_unit_test(test_repeat_with_nothing_before),
	    cmocka_unit_test(test_control_words),
	    cmocka_unit_test(test_malformed),
	    cmocka_unit_test(test_pair_across_window),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
