/* SPDX-License-Identifier: MIT */
/*
 * Stream assembly: batches given in scrambled order, signal batches spliced
 * (nested, several at one point, at the very start and end, past the end),
 * orphans, cycles, duplicates, seq holes and explicit gaps.  The expected
 * word sequences are written out by hand.  Word k of batch "B" is B*100+k,
 * so a flattened stream reads like a transcript; a gap flattens to 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "decode/stream.h"

struct spec {
	uint64_t seq;
	int signal;
	uint64_t parent_seq;
	uint32_t parent_off;
	uint32_t nwords;
};

static uint64_t storage[64][16];

static void build(struct wpp_thread_trace *th, const struct spec *s, size_t n)
{
	memset(th, 0, sizeof(*th));
	th->batches = calloc(n, sizeof(*th->batches));
	th->nbatches = n;
	for (size_t i = 0; i < n; i++) {
		for (uint32_t k = 0; k < s[i].nwords; k++)
			storage[i][k] = s[i].seq * 100 + 100 + k; /* seq 0 -> 100.. */
		th->batches[i] = (struct wpp_batch_ref){.seq = s[i].seq,
							.parent_seq = s[i].parent_seq,
							.parent_off = s[i].parent_off,
							.flags = s[i].signal ? WPP_BATCH_SIGNAL : 0,
							.nwords = s[i].nwords,
							.words = (const unsigned char *)storage[i]};
	}
}

static size_t flatten(const struct wpp_stream *st, uint64_t *out, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < st->nsegs; i++) {
		const struct wpp_segment *g = &st->segs[i];
		if (g->kind == WPP_SEG_GAP) {
			assert_true(n < cap);
			out[n++] = 0;
			continue;
		}
		for (uint32_t k = g->from; k < g->to; k++) {
			assert_true(n < cap);
			out[n++] = wpp_batch_word(g->batch, k);
		}
	}
	return n;
}

static void check(struct wpp_thread_trace *th, const uint64_t *expect, size_t nexpect, struct wpp_stream *st)
{
	uint64_t got[256];
	size_t n;

	assert_int_equal(wpp_stream_assemble(th, st), 0);
	n = flatten(st, got, 256);
	if (n != nexpect || memcmp(got, expect, n * 8) != 0) {
		for (size_t i = 0; i < n; i++)
			print_message("%llu ", (unsigned long long)got[i]);
		print_message("\n");
		fail_msg("stream differs (got %zu words, expected %zu)", n, nexpect);
	}
}

static void test_out_of_order(void **state)
{
	static const struct spec s[] = {{2, 0, 0, 0, 2}, {0, 0, 0, 0, 3}, {1, 0, 0, 0, 1}};
	static const uint64_t e[] = {100, 101, 102, 200, 300, 301};
	struct wpp_thread_trace th;
	struct wpp_stream st;

	(void)state;
	build(&th, s, 3);
	check(&th, e, 6, &st);
	assert_int_equal(st.missing_seqs, 0);
	wpp_stream_free(&st);
	free(th.batches);
}

static void test_signal_splices(void **state)
{
	/* main 0 (4 words), signal 1 into 0 after 2 words; signal 2 (nested) into 1 after 1;
	 * signal 3 into 0 also after 2 (goes after 1 by seq); signal 4 into 0 at 0 (front);
	 * signal 6 into 5 at 99 (past the end: clamped); main 5. */
	static const struct spec s[] = {
		{5, 0, 0, 0, 2}, {3, 1, 0, 2, 1}, {0, 0, 0, 0, 4}, {2, 1, 1, 1, 2},
		{1, 1, 0, 2, 2}, {4, 1, 0, 0, 1}, {6, 1, 5, 99, 1},
	};
	static const uint64_t e[] = {500, 100, 101, 200, 300, 301, 201, 400, 102, 103, 600, 601, 700};
	struct wpp_thread_trace th;
	struct wpp_stream st;

	(void)state;
	build(&th, s, 7);
	check(&th, e, 13, &st);
	assert_int_equal(st.missing_seqs, 0);
	assert_int_equal(st.clamped_offsets, 1);
	assert_int_equal(st.orphan_signal_batches, 0);
	/* depth of the nested batch */
	for (size_t i = 0; i < st.nsegs; i++)
		if (st.segs[i].batch->seq == 2)
			assert_int_equal(st.segs[i].signal_depth, 2);
	wpp_stream_free(&st);
	free(th.batches);
}

static void test_gaps(void **state)
{
	/* seqs 0, 1, 4, 5: holes 2 and 3 -> one gap of 2 batches before 4;
	 * explicit gap after 5 goes to the end; explicit gap after 6 also at the end. */
	static const struct spec s[] = {{0, 0, 0, 0, 1}, {1, 0, 0, 0, 1}, {4, 0, 0, 0, 1}, {5, 0, 0, 0, 1}};
	static const uint64_t e[] = {100, 200, 0, 500, 600, 0, 0};
	struct wpp_gap_ref gaps[] = {{6, 7, 1}, {5, 10, 1}};
	struct wpp_thread_trace th;
	struct wpp_stream st;

	(void)state;
	build(&th, s, 4);
	th.gaps = gaps;
	th.ngaps = 2;
	check(&th, e, 7, &st);
	assert_int_equal(st.missing_seqs, 2);
	assert_int_equal(st.segs[2].lost_words, WPP_LOST_UNKNOWN);
	assert_int_equal(st.segs[2].lost_batches, 2);
	assert_int_equal(st.segs[5].lost_words, 10);
	assert_int_equal(st.segs[6].lost_words, 7);
	wpp_stream_free(&st);

	/* An explicit gap covering the hole replaces the unknown-size one. */
	struct wpp_gap_ref g2[] = {{1, 33, 2}};
	static const uint64_t e2[] = {100, 200, 0, 500, 600};
	th.gaps = g2;
	th.ngaps = 1;
	check(&th, e2, 5, &st);
	assert_int_equal(st.segs[2].lost_words, 33);
	wpp_stream_free(&st);
	free(th.batches);
}

static void test_orphans_cycles_duplicates(void **state)
{
	/* 1: signal whose parent 9 is missing -> placed by seq; 3 <-> 4 form a parent cycle;
	 * seq 0 appears twice (first in file order wins); 2 a self-parented signal batch. */
	static const struct spec s[] = {
		{0, 0, 0, 0, 2}, {1, 1, 9, 0, 1}, {0, 0, 0, 0, 5}, {2, 1, 2, 0, 1},
		{3, 1, 4, 0, 1}, {4, 1, 3, 1, 1}, {5, 0, 0, 0, 1},
	};
	struct wpp_thread_trace th;
	struct wpp_stream st;
	uint64_t got[64];
	size_t n;

	(void)state;
	build(&th, s, 7);
	assert_int_equal(wpp_stream_assemble(&th, &st), 0);
	n = flatten(&st, got, 64);
	/* 0 (first copy, 2 words), orphan 1, self-parented 2, main 5, then the cycle appended */
	static const uint64_t head[] = {100, 101, 200, 300, 600};
	assert_true(n >= 5);
	assert_memory_equal(got, head, sizeof(head));
	assert_int_equal(n, 7); /* both cycle members appear exactly once */
	assert_true((got[5] == 400 && got[6] == 500) || (got[5] == 500 && got[6] == 400));
	assert_int_equal(st.duplicate_batches, 1);
	assert_int_equal(st.orphan_signal_batches, 3); /* 1, 2 and one entry into the cycle */
	wpp_stream_free(&st);
	free(th.batches);
}

/* A thread salvaged while it was publishing a batch: the salvaged copy (a
 * prefix, here 2 of 4 words) loses to the published batch wherever it sits
 * in the file, and is no duplicate; two published copies still are. */
static void test_salvaged_copy(void **state)
{
	static const struct spec before[] = {{1, 0, 0, 0, 2}, {0, 0, 0, 0, 1}, {1, 0, 0, 0, 4}};
	static const struct spec after[] = {{0, 0, 0, 0, 1}, {1, 0, 0, 0, 4}, {1, 0, 0, 0, 2}};
	static const struct spec both[] = {{1, 0, 0, 0, 4}, {1, 0, 0, 0, 2}};
	static const uint64_t e[] = {100, 200, 201, 202, 203};
	const struct spec *cases[] = {before, after};
	const size_t copy_at[] = {0, 2}; /* the 2-word batch is the salvaged copy */
	struct wpp_thread_trace th;
	struct wpp_stream st;

	(void)state;
	for (int c = 0; c < 2; c++) {
		build(&th, cases[c], 3);
		th.batches[copy_at[c]].flags |= WPP_BATCH_SALVAGED;
		check(&th, e, 5, &st);
		assert_int_equal(st.duplicate_batches, 0);
		wpp_stream_free(&st);
		free(th.batches);
	}
	build(&th, both, 2);
	check(&th, e + 1, 4, &st);
	assert_int_equal(st.duplicate_batches, 1);
	wpp_stream_free(&st);
	free(th.batches);
}

static void test_deep_nesting(void **state)
{
	/* 60 nested signal batches: each splices into the previous after 1 word. */
	struct spec s[60];
	struct wpp_thread_trace th;
	struct wpp_stream st;
	uint64_t got[256], e[256];
	size_t n = 0;

	(void)state;
	for (int i = 0; i < 60; i++)
		s[i] = (struct spec){(uint64_t)i, i > 0, (uint64_t)(i ? i - 1 : 0), 1, 2};
	build(&th, s, 60);
	for (int i = 0; i < 60; i++)
		e[n++] = (uint64_t)i * 100 + 100;
	for (int i = 59; i >= 0; i--)
		e[n++] = (uint64_t)i * 100 + 101;
	assert_int_equal(wpp_stream_assemble(&th, &st), 0);
	assert_int_equal(flatten(&st, got, 256), n);
	assert_memory_equal(got, e, n * 8);
	wpp_stream_free(&st);
	free(th.batches);
}

static void test_empty(void **state)
{
	struct wpp_thread_trace th = {0};
	struct wpp_stream st;

	(void)state;
	assert_int_equal(wpp_stream_assemble(&th, &st), 0);
	assert_int_equal(st.nsegs, 0);
	wpp_stream_free(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_out_of_order),
		cmocka_unit_test(test_signal_splices),
		cmocka_unit_test(test_gaps),
		cmocka_unit_test(test_orphans_cycles_duplicates),
		cmocka_unit_test(test_salvaged_copy),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
