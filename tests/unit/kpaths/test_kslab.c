/* SPDX-License-Identifier: MIT */
/*
 * test_kslab.c — k-slab forests and their k-IPFs against the brute-force
 * n-gram counter: every node and every count, k = 1..32, random and
 * loop-shaped streams; raw-word rules; merging; the pruning error bound.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/kpaths/kipf.h"
#include "analysis/kpaths/kslab.h"
#include "forest_check.h"
#include "analysis/kpaths/kslab_words.h"
#include "ngram_ref.h"
#include "streams.h"
#include "wpp/trace_abi.h"

static void feed(struct kslab *s, const struct ev *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (e[i].mark)
			kslab_mark(s);
		else
			assert_int_equal(kslab_item(s, e[i].fid, e[i].value), 0);
	}
}

static struct kipf *forest_of(const struct ev *e, size_t n, unsigned k, uint64_t max_nodes,
			      struct kslab_stats *st)
{
	struct kslab *s = kslab_new(k, max_nodes);
	struct kipf *f = kipf_new(k);

	assert_non_null(s);
	assert_non_null(f);
	feed(s, e, n);
	if (st)
		*st = *kslab_stats(s);
	assert_int_equal(kipf_add_kslab(f, s), 0);
	assert_int_equal(kipf_sort(f), 0);
	kslab_free(s);
	return f;
}

static void check_stream(const struct ev *e, size_t n, unsigned k)
{
	struct ngram_ref *ref = ngram_ref_build(&e, &n, 1, k);
	struct kslab_stats st;
	struct kipf *f = forest_of(e, n, k, 0, &st);
	size_t items = 0;

	for (size_t i = 0; i < n; i++)
		items += !e[i].mark;
	assert_int_equal(f->items, items);
	assert_int_equal(st.lost_items, 0);
	forest_check(f, ref, 0);
	kipf_free(f);
	ngram_ref_free(ref);
}

static void test_random_streams_all_k(void **state)
{
	struct ev e[700];
	(void)state;

	for (unsigned k = 1; k <= KSLAB_MAX_K; k++)
		for (uint64_t seed = 1; seed <= 5; seed++) {
			unsigned nf = 1 + (unsigned)(seed % 3),
				 nv = 1 + (unsigned)((seed * 7 + k) % 5);
			size_t n = stream_random(seed * 1000 + k, e, 200 + (seed * 97) % 500, nf,
						 nv, (unsigned)(seed % 3) * 2);
			check_stream(e, n, k);
		}
}

static void test_loopy_streams_all_k(void **state)
{
	struct ev e[3000];
	(void)state;

	for (unsigned k = 1; k <= KSLAB_MAX_K; k++)
		for (uint64_t seed = 1; seed <= 2; seed++) {
			size_t n = stream_loopy(seed * 31 + k, e, 900 + 500 * seed);
			check_stream(e, n, k);
		}
}

static void test_edge_streams(void **state)
{
	struct ev e[64];
	(void)state;

	/* Empty, marks only, one item, a run of one label longer than any slab. */
	for (unsigned k = 1; k <= KSLAB_MAX_K; k++) {
		check_stream(e, 0, k);
		for (int i = 0; i < 5; i++)
			e[i] = (struct ev){.mark = 1};
		check_stream(e, 5, k);
		e[0] = (struct ev){.fid = 3, .value = 9};
		check_stream(e, 1, k);
		for (int i = 0; i < 64; i++)
			e[i] = (struct ev){.fid = 1, .value = 0};
		check_stream(e, 64, k);
		e[30] = (struct ev){.mark = 1};
		e[31] = (struct ev){.mark = 1};
		check_stream(e, 64, k);
	}
}

static void test_merge_threads(void **state)
{
	struct ev a[800], b[500];
	size_t na = stream_loopy(5, a, 800), nb = stream_random(6, b, 500, 2, 3, 1);
	const struct ev *streams[2] = {a, b};
	size_t lens[2] = {na, nb};
	(void)state;

	for (unsigned k = 1; k <= KSLAB_MAX_K; k += 3) {
		struct ngram_ref *ref = ngram_ref_build(streams, lens, 2, k);
		struct kipf *fa = forest_of(a, na, k, 0, NULL), *fb = forest_of(b, nb, k, 0, NULL);
		struct kipf *m = kipf_new(k);
		assert_int_equal(kipf_merge(m, fa), 0);
		assert_int_equal(kipf_merge(m, fb), 0);
		assert_int_equal(kipf_sort(m), 0);
		forest_check(m, ref, 0);
		/* Cutting a deeper forest gives the shallower one (Property 2). */
		if (k > 1) {
			struct kipf *cut = kipf_new(k - 1);
			struct ngram_ref *ref2 = ngram_ref_build(streams, lens, 2, k - 1);
			assert_int_equal(kipf_merge(cut, m), 0);
			assert_int_equal(kipf_sort(cut), 0);
			forest_check(cut, ref2, 0);
			kipf_free(cut);
			ngram_ref_free(ref2);
		}
		kipf_free(m);
		kipf_free(fa);
		kipf_free(fb);
		ngram_ref_free(ref);
	}
}

/* Raw words: the decoder's rules (kslab_words.h) give the same forest as
 * the event list they stand for. */
static void test_raw_word_rules(void **state)
{
	uint64_t mark = WPP_WIDE_ID_MARK;
	const uint64_t words[] = {
	    wpp_make_word(1, 5),
	    0, /* unwritten slot: nothing */
	    wpp_make_ctrl(WPP_CTRL_PAD, 0),
	    wpp_make_ctrl(WPP_CTRL_WIDE_PATH, 2),
	    mark | (UINT64_C(1) << 50),
	    wpp_make_word(1, 5),
	    wpp_make_ctrl(WPP_CTRL_GAP, 0),
	    17, /* mark */
	    wpp_make_word(1, 6),
	    wpp_make_word(WPP_FID_UNREGISTERED, 3), /* mark */
	    wpp_make_word(1, 5),
	    wpp_make_ctrl(WPP_CTRL_WIDE_PATH, 2),
	    77, /* no mark bit: mark */
	    wpp_make_word(3, 1),
	    wpp_make_ctrl(9, 0), /* unknown control: mark */
	    wpp_make_word(1, 5),
	    wpp_make_ctrl(WPP_CTRL_WIDE_PATH, 0),
	    mark | 4, /* fid 0: mark */
	    wpp_make_word(1, 5),
	    wpp_make_word(3, 1),
	    wpp_make_ctrl(WPP_CTRL_WIDE_PATH, 2), /* cut short: mark */
	};
	const struct ev evs[] = {
	    {.fid = 1, .value = 5},
	    {.fid = 2, .value = UINT64_C(1) << 50},
	    {.fid = 1, .value = 5},
	    {.mark = 1},
	    {.fid = 1, .value = 6},
	    {.mark = 1},
	    {.fid = 1, .value = 5},
	    {.mark = 1},
	    {.fid = 3, .value = 1},
	    {.mark = 1},
	    {.fid = 1, .value = 5},
	    {.mark = 1},
	    {.fid = 1, .value = 5},
	    {.fid = 3, .value = 1},
	    {.mark = 1},
	};
	size_t nev = sizeof(evs) / sizeof(evs[0]);
	const struct ev *ep = evs;
	(void)state;

	for (unsigned k = 1; k <= 6; k++) {
		struct kslab *s = kslab_new(k, 0);
		struct kipf *f = kipf_new(k);
		struct ngram_ref *ref = ngram_ref_build(&ep, &nev, 1, k);
		struct kslab_words r;

		kslab_words_init(&r, kslab_flat_sink(s));
		assert_int_equal(kslab_words_feed(&r, words, sizeof(words) / sizeof(words[0]), 0), 0);
		assert_int_equal(kipf_add_kslab(f, s), 0);
		assert_int_equal(kipf_sort(f), 0);
		forest_check(f, ref, 0);
		kipf_free(f);
		kslab_free(s);
		ngram_ref_free(ref);
	}
}

static void test_bad_arguments(void **state)
{
	(void)state;
	assert_null(kslab_new(0, 0));
	assert_null(kslab_new(KSLAB_MAX_K + 1, 0));
	assert_null(kslab_new(4, 10)); /* cap below 8k */
	assert_null(kipf_new(0));
	assert_null(kipf_new(WPP_KIPF_MAX_K + 1));
}

/* Pruning: memory stays under the cap, counts never exceed the truth and
 * are at most lost_items below it, per node and summed per level. */
static void test_pruning_bound(void **state)
{
	static struct ev e[8000];
	static const unsigned ks[] = {2, 3, 8, 17, 32};
	(void)state;

	for (unsigned ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++) {
		unsigned k = ks[ki];
		for (uint64_t seed = 1; seed <= 2; seed++) {
			size_t n = seed == 1 ? stream_loopy(seed + k, e, 8000)
					     : stream_random(seed + k, e, 5000, 3, 4, 1);
			uint64_t cap = 40u * k;
			struct ngram_ref *ref =
			    ngram_ref_build((const struct ev *const[]){e}, &n, 1, k);
			struct kslab_stats st;
			struct kipf *f = forest_of(e, n, k, cap, &st);

			assert_true(st.prunes > 0);
			assert_true(st.peak_nodes <=
				    cap + 2); /* one item adds a top and a bottom node */
			assert_true(st.lost_items > 0);
			assert_int_equal(f->lost_items, st.lost_items);
			forest_check(f, ref, st.lost_items);
			kipf_free(f);

			/* A cap never reached changes nothing: exact. */
			f = forest_of(e, n, k, UINT32_MAX / 2, &st);
			assert_int_equal(st.prunes, 0);
			forest_check(f, ref, 0);
			kipf_free(f);
			ngram_ref_free(ref);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_streams_all_k), cmocka_unit_test(test_loopy_streams_all_k),
	    cmocka_unit_test(test_edge_streams),	 cmocka_unit_test(test_merge_threads),
	    cmocka_unit_test(test_raw_word_rules),	 cmocka_unit_test(test_bad_arguments),
	    cmocka_unit_test(test_pruning_bound),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
