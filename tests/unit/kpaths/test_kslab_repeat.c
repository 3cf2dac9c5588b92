/* SPDX-License-Identifier: MIT */
/*
 * test_kslab_repeat.c — REPEAT control words (trace_abi.h) in the raw-word
 * reader (kslab_words.h) and runs in the k-SF (kslab_item_run) and the
 * activation splitter (kact_item_run):
 *  - random and loop-shaped streams written with REPEAT words (split at
 *    random, several in a row, across call boundaries, mixed with plain
 *    repeated records and every kind of mark) give the k-IPF of the
 *    expanded stream, checked against the brute-force n-gram counter;
 *  - REPEAT with nothing to repeat (stream start, after a gap, a malformed
 *    record, a new signal handler) is a mark and is counted;
 *  - per signal depth: a handler's records do not continue the
 *    interrupted level's run, and the interrupted level's run resumes;
 *  - with pruning, runs give exactly the forest of item-by-item feeding;
 *  - 3 * 2^32 repetitions finish at once with the counts a formula gives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "act_streams.h"
#include "forest_check.h"
#include "analysis/kpaths/kipf.h"
#include "analysis/kpaths/kslab.h"
#include "analysis/kpaths/kslab_act.h"
#include "analysis/kpaths/kslab_words.h"
#include "ngram_ref.h"
#include "streams.h"
#include "wpp/trace_abi.h"

/* Words of a stream, cut into calls; a mark may also be a gap between
 * calls (kslab_words_gap). */
struct wordstream {
	uint64_t *w;
	size_t n, cap;
	size_t *cut; /* call i is words [cut[i-1], cut[i]) */
	int *gap_after; /* a gap between calls follows call i */
	size_t ncuts, cuts_cap;
	uint64_t unattributable; /* REPEAT records with nothing before them */
	uint64_t repeat_words;
};

static void put(struct wordstream *ws, uint64_t w)
{
	if (ws->n == ws->cap) {
		ws->cap = ws->cap ? ws->cap * 2 : 256;
		ws->w = realloc(ws->w, ws->cap * sizeof(*ws->w));
		assert_non_null(ws->w);
	}
	ws->w[ws->n++] = w;
}

static void cut_here(struct wordstream *ws, int gap)
{
	if (ws->ncuts == ws->cuts_cap) {
		ws->cuts_cap = ws->cuts_cap ? ws->cuts_cap * 2 : 64;
		ws->cut = realloc(ws->cut, ws->cuts_cap * sizeof(*ws->cut));
		ws->gap_after = realloc(ws->gap_after, ws->cuts_cap * sizeof(*ws->gap_after));
		assert_non_null(ws->cut);
		assert_non_null(ws->gap_after);
	}
	ws->cut[ws->ncuts] = ws->n;
	ws->gap_after[ws->ncuts++] = gap;
}

static void put_record(struct wordstream *ws, uint32_t fid, uint64_t value)
{
	if (value >= WPP_NARROW_PATH_LIMIT) {
		put(ws, wpp_make_ctrl(WPP_CTRL_WIDE_PATH, fid));
		put(ws, value | WPP_WIDE_ID_MARK);
	} else {
		put(ws, wpp_make_word(fid, value));
	}
}

static void put_repeat(struct wordstream *ws, uint32_t n)
{
	put(ws, wpp_make_ctrl(WPP_CTRL_REPEAT, n));
	ws->repeat_words++;
}

/* A mark written one of the ways the reader must take as a mark, some
 * followed by a REPEAT that has nothing to repeat (also a mark). */
static void put_mark(struct wordstream *ws, uint64_t *rng)
{
	uint32_t orphan = (uint32_t)(test_rand(rng) % 4);

	switch (test_rand(rng) % 5) {
	case 0:
		put(ws, wpp_make_ctrl(WPP_CTRL_GAP, 0));
		put(ws, 7);
		break;
	case 1:
		cut_here(ws, 1);
		break;
	case 2:
		put(ws, wpp_make_ctrl(11, 0)); /* unknown control word */
		break;
	case 3:
		put(ws, wpp_make_ctrl(WPP_CTRL_REPEAT, 0)); /* malformed */
		break;
	default:
		/* A record nobody can attribute, and its repetitions. */
		put(ws, wpp_make_word(WPP_FID_UNREGISTERED, 1));
		if (orphan)
			put_repeat(ws, orphan);
		return;
	}
	if (orphan) {
		put_repeat(ws, orphan);
		ws->unattributable += orphan;
	}
}

/* The stream's runs of one label as a record and REPEAT words (split at
 * random, sometimes with plain records in between), marks as above, and
 * random call boundaries anywhere but inside a two-word record. */
static void encode(const struct ev *e, size_t n, uint64_t seed, struct wordstream *ws)
{
	uint64_t rng = seed;

	memset(ws, 0, sizeof(*ws));
	if (seed % 3 == 0) {
		put_repeat(ws, 5); /* at stream start: nothing to repeat */
		ws->unattributable += 5;
	}
	for (size_t i = 0; i < n;) {
		size_t run = 1;

		if (test_rand(&rng) % 4 == 0)
			cut_here(ws, 0);
		if (e[i].mark) {
			put_mark(ws, &rng);
			i++;
			continue;
		}
		while (i + run < n && !e[i + run].mark && e[i + run].fid == e[i].fid &&
		       e[i + run].value == e[i].value)
			run++;
		put_record(ws, e[i].fid, e[i].value);
		for (size_t left = run - 1; left > 0;) {
			uint64_t r = test_rand(&rng);
			uint32_t take = (uint32_t)(1 + r % left);
			if (r % 7 == 0) {
				put_record(ws, e[i].fid, e[i].value); /* written out again */
				take = 1;
			} else {
				if (r % 3 == 0)
					cut_here(ws, 0); /* REPEAT first in the next call */
				put_repeat(ws, take);
			}
			left -= take;
			if (r % 5 == 0)
				put(ws, r % 2 ? 0 : wpp_make_ctrl(WPP_CTRL_PAD, 0)); /* kept across */
		}
		i += run;
	}
	cut_here(ws, 0);
}

static void wordstream_free(struct wordstream *ws)
{
	free(ws->w);
	free(ws->cut);
	free(ws->gap_after);
}

static void feed_calls(struct kslab_words *r, const struct wordstream *ws)
{
	size_t from = 0;

	for (size_t c = 0; c < ws->ncuts; c++) {
		assert_int_equal(kslab_words_feed(r, ws->w + from, ws->cut[c] - from, 0), 0);
		if (ws->gap_after[c])
			kslab_words_gap(r);
		from = ws->cut[c];
	}
	assert_int_equal(from, ws->n);
}

static struct kipf *forest_of_words(const struct wordstream *ws, unsigned k, uint64_t max_nodes,
				    struct kslab_words *r_out)
{
	struct kslab *s = kslab_new(k, max_nodes);
	struct kipf *f = kipf_new(k);
	struct kslab_words r;

	assert_non_null(s);
	assert_non_null(f);
	kslab_words_init(&r, kslab_flat_sink(s));
	feed_calls(&r, ws);
	assert_int_equal(kipf_add_kslab(f, s), 0);
	assert_int_equal(kipf_sort(f), 0);
	if (r_out)
		*r_out = r;
	kslab_free(s);
	return f;
}

/* The expanded stream fed one item at a time. */
static struct kipf *forest_of_items(const struct ev *e, size_t n, unsigned k, uint64_t max_nodes)
{
	struct kslab *s = kslab_new(k, max_nodes);
	struct kipf *f = kipf_new(k);

	assert_non_null(s);
	assert_non_null(f);
	for (size_t i = 0; i < n; i++) {
		if (e[i].mark)
			kslab_mark(s);
		else
			assert_int_equal(kslab_item(s, e[i].fid, e[i].value), 0);
	}
	assert_int_equal(kipf_add_kslab(f, s), 0);
	assert_int_equal(kipf_sort(f), 0);
	kslab_free(s);
	return f;
}

/* A stream with long runs: a loop-shaped or random stream whose labels are
 * each repeated 1..maxrun times. */
static size_t stream_with_runs(uint64_t seed, struct ev *out, size_t cap, size_t nbase,
			       unsigned maxrun)
{
	static struct ev base[4000];
	size_t nb = seed % 2 ? stream_loopy(seed, base, nbase)
			     : stream_random(seed, base, nbase, 2, 3, 3);
	uint64_t rng = seed * 77 + 1;
	size_t n = 0;

	for (size_t i = 0; i < nb && n < cap; i++) {
		size_t times = base[i].mark ? 1 : 1 + test_rand(&rng) % maxrun;
		for (size_t j = 0; j < times && n < cap; j++)
			out[n++] = base[i];
	}
	return n;
}

static void test_repeat_equals_expanded(void **state)
{
	static struct ev e[40000];
	uint64_t repeat_words = 0, unattributable = 0;
	(void)state;

	for (unsigned k = 1; k <= KSLAB_MAX_K; k++)
		for (uint64_t seed = 1; seed <= 4; seed++) {
			size_t n = seed == 4 ? stream_with_runs(seed * 101 + k, e, 40000, 60, 60)
					     : stream_with_runs(seed * 101 + k, e, 40000, 300, 5);
			const struct ev *ep = e;
			struct ngram_ref *ref = ngram_ref_build(&ep, &n, 1, k);
			struct wordstream ws;
			struct kslab_words r;
			struct kipf *f;
			uint64_t items = 0;

			encode(e, n, seed * 31 + k, &ws);
			f = forest_of_words(&ws, k, 0, &r);
			for (size_t i = 0; i < n; i++)
				items += !e[i].mark;
			assert_int_equal(f->items, items);
			forest_check(f, ref, 0);
			assert_int_equal(r.unattributed, ws.unattributable);
			repeat_words += ws.repeat_words;
			unattributable += ws.unattributable;
			wordstream_free(&ws);
			kipf_free(f);
			ngram_ref_free(ref);
		}
	/* The streams did exercise what they are meant to. */
	assert_true(repeat_words > 5000);
	assert_true(unattributable > 100);
}

/* Pruning sees a run exactly as the items it stands for. */
static void test_repeat_pruned_same_as_items(void **state)
{
	static struct ev e[40000];
	static const unsigned ks[] = {1, 2, 3, 8, 17, 32};
	(void)state;

	for (unsigned ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++)
		for (uint64_t seed = 1; seed <= 3; seed++) {
			unsigned k = ks[ki];
			size_t n = stream_with_runs(seed * 7 + k, e, 40000, 400, 40);
			struct wordstream ws;
			struct kipf *a, *b;

			encode(e, n, seed + k, &ws);
			a = forest_of_words(&ws, k, 16u * k, NULL);
			b = forest_of_items(e, n, k, 16u * k);
			assert_true(b->lost_items > 0);
			forest_same(a, b);
			kipf_free(a);
			kipf_free(b);
			wordstream_free(&ws);
		}
}

/* Per signal depth (the decoder's rule): a handler's records interleave
 * with the interrupted level's run but do not continue it. */
static void test_repeat_signal_depths(void **state)
{
	const uint64_t A = wpp_make_word(1, 4), B = wpp_make_word(2, 9),
		       rep1 = wpp_make_ctrl(WPP_CTRL_REPEAT, 1),
		       rep2 = wpp_make_ctrl(WPP_CTRL_REPEAT, 2),
		       rep3 = wpp_make_ctrl(WPP_CTRL_REPEAT, 3);
	const struct ev a = {.fid = 1, .value = 4}, b = {.fid = 2, .value = 9}, m = {.mark = 1};
	/* A | handler: B x3 | A x3 | new handler: orphan REPEAT | A | handler 2
	 * inside handler 1 ... */
	const struct ev want[] = {a, b, b, b, a, a, a, m, a, a};
	size_t nwant = sizeof(want) / sizeof(want[0]);
	const struct ev *wp = want;
	(void)state;

	for (unsigned k = 1; k <= 5; k++) {
		struct kslab *s = kslab_new(k, 0);
		struct kipf *f = kipf_new(k);
		struct ngram_ref *ref = ngram_ref_build(&wp, &nwant, 1, k);
		struct kslab_words r;

		kslab_words_init(&r, kslab_flat_sink(s));
		assert_int_equal(kslab_words_feed(&r, &A, 1, 0), 0);
		assert_int_equal(kslab_words_feed(&r, (const uint64_t[]){B, rep2}, 2, 1), 0);
		assert_int_equal(kslab_words_feed(&r, &rep3, 1, 0), 0);
		/* A new handler at depth 1 has nothing to repeat. */
		assert_int_equal(kslab_words_feed(&r, &rep1, 1, 1), 0);
		assert_int_equal(r.unattributed, 1);
		/* Back at depth 0 the run of A goes on (after the mark). */
		assert_int_equal(kslab_words_feed(&r, &rep2, 1, 0), 0);
		assert_int_equal(r.repeats, 7);
		assert_int_equal(kipf_add_kslab(f, s), 0);
		assert_int_equal(kipf_sort(f), 0);
		forest_check(f, ref, 0);
		kipf_free(f);
		kslab_free(s);
		ngram_ref_free(ref);
	}
}

/* A run far longer than the machine could step through: x, 3 * (2^32 - 1)
 * repetitions, then y (another path of x's function).  The k-IPF is a chain of x^j (counts N - j + 1)
 * with x^j y (count 1) hanging below each x^j, j < k. */
static void test_huge_repeat(void **state)
{
	const uint64_t words[] = {
	    wpp_make_word(3, 8),
	    wpp_make_ctrl(WPP_CTRL_REPEAT, WPP_REPEAT_MAX),
	    wpp_make_ctrl(WPP_CTRL_REPEAT, WPP_REPEAT_MAX),
	    wpp_make_ctrl(WPP_CTRL_REPEAT, WPP_REPEAT_MAX),
	    wpp_make_word(3, 1),
	};
	const uint64_t N = 1 + 3 * (uint64_t)WPP_REPEAT_MAX;
	(void)state;

	for (unsigned k = 1; k <= KSLAB_MAX_K; k++) {
		for (int act = 0; act < 2; act++) {
			struct kslab *s = kslab_new(k, act ? 0 : 1000u * k);
			struct kipf *f = kipf_new(k);
			struct kslab_words r;
			struct kact ka;
			uint32_t x = 0;

			assert_non_null(s);
			if (act) {
				/* The same run through the activation splitter. */
				kact_init(&ka, s);
				assert_int_equal(kact_item(&ka, 3, 8, KACT_UNKNOWN), 0);
				assert_int_equal(kact_item_run(&ka, 3, 8, 0, N - 1), 0);
				assert_int_equal(kact_item(&ka, 3, 1, 0), 0);
				kact_fini(&ka);
			} else {
				kslab_words_init(&r, kslab_flat_sink(s));
				assert_int_equal(kslab_words_feed(&r, words, 5, 0), 0);
				assert_int_equal(r.repeats, N - 1);
			}
			assert_int_equal(kslab_stats(s)->items, N + 1);
			assert_true(kslab_stats(s)->nodes < 8u * k + 8);
			assert_int_equal(kipf_add_kslab(f, s), 0);
			assert_int_equal(f->items, N + 1);
			for (unsigned j = 1; j <= k; j++) {
				x = kipf_find(f, x, 3, 8);
				assert_true(x != 0);
				assert_int_equal(f->nodes[x].count, N - j + 1);
				if (j < k) {
					uint32_t y = kipf_find(f, x, 3, 1);
					assert_true(y != 0);
					assert_int_equal(f->nodes[y].count, 1);
				}
			}
			assert_int_equal(f->nodes[kipf_find(f, 0, 3, 1)].count, 1);
			assert_int_equal(f->nnodes, 2 * k);
			kipf_free(f);
			kslab_free(s);
		}
	}
}

/* Per activation: runs of one record (any kinds) through kact_item_run
 * give the forest of item-by-item feeding and the generator's truth. */
static void test_activation_runs(void **state)
{
	uint64_t runs = 0;
	(void)state;

	for (unsigned k = 1; k <= KSLAB_MAX_K; k += 3)
		for (uint64_t seed = 1; seed <= 3; seed++) {
			struct act_run ar;
			struct kslab *s1 = kslab_new(k, 0), *s2 = kslab_new(k, 0);
			struct kipf *f1 = kipf_new(k), *f2 = kipf_new(k);
			struct kact a1, a2;

			act_run_generate(&ar, seed * 313 + k, 600, 1 + (unsigned)(seed % 3), 2);
			struct ngram_ref *ref = ngram_ref_build((const struct ev *const *)ar.segs,
								ar.seg_len, ar.nsegs, k);
			kact_init(&a1, s1);
			kact_init(&a2, s2);
			for (size_t i = 0; i < ar.n;) {
				const struct act_ev *e = &ar.ev[i];
				size_t run = 1;
				if (e->mark) {
					kact_mark(&a1);
					kact_mark(&a2);
					i++;
					continue;
				}
				while (i + run < ar.n && !ar.ev[i + run].mark &&
				       ar.ev[i + run].fid == e->fid && ar.ev[i + run].value == e->value &&
				       ar.ev[i + run].flags == e->flags)
					run++;
				for (size_t j = 0; j < run; j++)
					assert_int_equal(kact_item(&a1, e->fid, e->value, e->flags), 0);
				assert_int_equal(kact_item_run(&a2, e->fid, e->value, e->flags, run), 0);
				runs += run > 1;
				i += run;
			}
			assert_int_equal(kipf_add_kslab(f1, s1), 0);
			assert_int_equal(kipf_add_kslab(f2, s2), 0);
			assert_int_equal(kipf_sort(f1), 0);
			assert_int_equal(kipf_sort(f2), 0);
			forest_same(f1, f2);
			forest_check(f2, ref, 0);
			kact_fini(&a1);
			kact_fini(&a2);
			kipf_free(f1);
			kipf_free(f2);
			kslab_free(s1);
			kslab_free(s2);
			ngram_ref_free(ref);
			act_run_free(&ar);
		}
	assert_true(runs > 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_repeat_equals_expanded),
	    cmocka_unit_test(test_repeat_pruned_same_as_items),
	    cmocka_unit_test(test_repeat_signal_depths),
	    cmocka_unit_test(test_huge_repeat),
	    cmocka_unit_test(test_activation_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
