/* SPDX-License-Identifier: MIT */
/*
 * test_kslab_online.c — the online consumer end to end without a collector:
 * raw words fed in random-sized calls (wide records never split, as
 * online.h promises) with gaps, closed into a real .wpp writer, read back
 * through the .wpp reader and the chunk validator; the stored k-IPF equals
 * the brute-force count of the event stream the words stand for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "act_streams.h"
#include "forest_check.h"
#include "analysis/kpaths/kipf.h"
#include "analysis/kpaths/kipf_serial.h"
#include "analysis/kpaths/kslab_act.h"
#include "collect/kslab_online.h"
#include "ngram_ref.h"
#include "streams.h"
#include "wpp/trace_abi.h"
#include "common/wppfile.h"

/* Words for a stream: narrow records, wide ones for big values, REPEAT
 * words for most repetitions of the label before, a GAP control record for
 * some marks; returns the word count.  Marks that go
 * through thread_gap() instead are returned in gap_at (word positions). */
static size_t to_words(const struct ev *e, size_t n, uint64_t *w, size_t *gap_at, size_t *ngaps)
{
	size_t nw = 0;

	*ngaps = 0;
	for (size_t i = 0; i < n; i++) {
		if (e[i].mark) {
			if (i % 2) {
				w[nw++] = wpp_make_ctrl(WPP_CTRL_GAP, 0);
				w[nw++] = 3;
			} else {
				gap_at[(*ngaps)++] = nw;
			}
		} else if (i > 0 && !e[i - 1].mark && e[i - 1].fid == e[i].fid &&
			   e[i - 1].value == e[i].value && i % 4 != 0) {
			/* A repetition: one more in the REPEAT word just written,
			 * or a new one (which may start the next call). */
			if (nw && wpp_word_fid(w[nw - 1]) == WPP_FID_CONTROL &&
			    wpp_ctrl_op(w[nw - 1]) == WPP_CTRL_REPEAT && i % 3)
				w[nw - 1] = wpp_make_ctrl(WPP_CTRL_REPEAT,
							  wpp_ctrl_operand(w[nw - 1]) + 1);
			else
				w[nw++] = wpp_make_ctrl(WPP_CTRL_REPEAT, 1);
		} else if (e[i].value >= WPP_NARROW_PATH_LIMIT) {
			w[nw++] = wpp_make_ctrl(WPP_CTRL_WIDE_PATH, e[i].fid);
			w[nw++] = e[i].value | WPP_WIDE_ID_MARK;
		} else {
			w[nw++] = wpp_make_word(e[i].fid, e[i].value);
		}
	}
	return nw;
}

/* Through the consumer and a real file: w[0..nw) in random-sized calls
 * (never splitting a two-word record), thread_gap() at the word positions
 * gap_at[0..ngaps), closed into a temporary .wpp whose KIPF chunks are read
 * back into st.  Returns the number of chunks. */
static size_t through_file(const struct wpp_online_consumer *c, const struct wpp_thread_key *key,
			   const uint64_t *w, size_t nw, const size_t *gap_at, size_t ngaps,
			   uint64_t seed, struct kipf_store *st)
{
	char path[] = "/tmp/test_kslab_online_XXXXXX";
	int fd = mkstemp(path);
	struct wpp_writer *wr;
	struct wpp_reader *rd;
	struct wpp_chunk ch;
	uint64_t rng = seed;
	size_t pos = 0, g = 0, nchunks = 0;
	char err[160];
	void *state;

	assert_true(fd >= 0);
	close(fd);
	wr = wppw_open(path);
	assert_non_null(wr);
	state = c->thread_open(c->cfg, key);
	assert_non_null(state);
	while (pos < nw || g < ngaps) {
		size_t end = pos + 1 + test_rand(&rng) % 40;
		if (g < ngaps && gap_at[g] <= pos) {
			c->thread_gap(state, 7);
			g++;
			continue;
		}
		if (g < ngaps && end > gap_at[g])
			end = gap_at[g];
		if (end > nw)
			end = nw;
		/* Never split a two-word record. */
		for (size_t i = pos; i < end; i++)
			if (wpp_word_fid(w[i]) == WPP_FID_CONTROL && i + 1 == end && end < nw)
				end++;
		c->thread_words(state, w + pos, end - pos);
		pos = end;
	}
	assert_int_equal(c->thread_close(state, wr, key), 0);
	assert_int_equal(wppw_close(wr, &(struct wpp_chunk_end){0}), 0);

	rd = wppr_open(path);
	assert_non_null(rd);
	while (wppr_next(rd, &ch) == 1) {
		if (ch.type != WPP_CHUNK_KIPF)
			continue;
		nchunks++;
		if (kipf_store_add(st, ch.payload, ch.length, err, sizeof(err)) < 0)
			fail_msg("chunk rejected: %s", err);
	}
	assert_null(wppr_status(rd));
	wppr_close(rd);
	unlink(path);
	return nchunks;
}

static void run(unsigned k, uint64_t max_nodes, uint64_t seed)
{
	static struct ev e[5000];
	static uint64_t w[10000];
	size_t gap_at[5000], ngaps, n = stream_loopy(seed, e, 5000),
				    nw = to_words(e, n, w, gap_at, &ngaps);
	struct kslab_online_cfg cfg = {.k = k, .max_nodes = max_nodes, .max_payload = 1u << 14};
	struct wpp_online_consumer c = kslab_online_consumer(&cfg);
	struct wpp_thread_key key = {.pid = 42, .tid = 43, .generation = 1};
	struct kipf_store st = {0};
	struct kipf_stored *t;
	const struct ev *ep = e;
	struct ngram_ref *ref;
	size_t nchunks, repeats = 0;

	for (size_t i = 0; i < nw; i++)
		repeats += wpp_word_fid(w[i]) == WPP_FID_CONTROL &&
			   wpp_ctrl_op(w[i]) == WPP_CTRL_REPEAT;
	assert_true(repeats > 20); /* the runs are exercised */
	nchunks = through_file(&c, &key, w, nw, gap_at, ngaps, seed, &st);
	t = kipf_store_find(&st, 42, 1, 43);
	assert_non_null(t);
	assert_true(t->complete);
	assert_true(nchunks > 1 || k < 3);

	ref = ngram_ref_build(&ep, &n, 1, k);
	if (max_nodes == 0) {
		/* Every reference n-gram with its count, and nothing else. */
		size_t nodes = 0;
		for (uint32_t i = 1; i <= t->ipf->nnodes; i++) {
			uint32_t fids[WPP_KIPF_MAX_K], idx = i;
			uint64_t values[WPP_KIPF_MAX_K];
			unsigned d = kipf_depth(t->ipf, i) + 1;
			for (unsigned j = d; j-- > 0; idx = t->ipf->nodes[idx].parent) {
				fids[j] = t->ipf->nodes[idx].fid;
				values[j] = t->ipf->nodes[idx].value;
			}
			assert_int_equal(t->ipf->nodes[i].count,
					 ngram_ref_count(ref, fids, values, d));
			nodes++;
		}
		assert_int_equal(nodes, ngram_ref_distinct(ref));
		assert_int_equal(t->ipf->lost_items, 0);
	} else {
		assert_true(t->pruned);
		assert_true(t->ipf->lost_items > 0);
	}
	ngram_ref_free(ref);
	kipf_store_free(&st);
}

static void test_online_exact(void **state)
{
	(void)state;
	for (unsigned k = 1; k <= KSLAB_MAX_K; k += 4)
		run(k, 0, 100 + k);
	run(KSLAB_MAX_K, 0, 7);
}

static void test_online_pruned(void **state)
{
	(void)state;
	run(8, 300, 5);
}

/* The per-activation view online: a kinds source gives each record's
 * start/end kinds (here packed into the test's path ids: id = 4 v + flags),
 * and the stored forest must equal the activation splitter's forest of the
 * same records (test_kslab_act.c checks that one against the generator's
 * truth), with the chunk flag saying which view it is. */
static int packed_kinds(void *ctx, const struct wpp_thread_key *key, uint32_t fid, uint64_t id)
{
	(void)ctx;
	(void)key;
	(void)fid;
	return (int)(id & 3);
}

static void test_online_activation(void **state)
{
	static uint64_t w[20000];
	const struct kslab_kinds_source src = {.kinds = packed_kinds};
	(void)state;

	for (unsigned k = 1; k <= KSLAB_MAX_K; k += 5) {
		struct act_run ar;
		struct kslab_online_cfg cfg = {.k = k, .max_payload = 1u << 14, .kinds = &src};
		struct wpp_online_consumer c = kslab_online_consumer(&cfg);
		struct wpp_thread_key key = {.pid = 7, .tid = 8, .generation = 0};
		struct kslab *s = kslab_new(k, 0);
		struct kipf *want = kipf_new(k);
		struct kact a;
		struct kipf_store st = {0};
		struct kipf_stored *t;
		size_t nw = 0, repeats = 0;

		act_run_generate(&ar, 500 + k, 1500, 3, 2);
		kact_init(&a, s);
		for (size_t i = 0; i < ar.n; i++) {
			const struct act_ev *e = &ar.ev[i];
			uint64_t id = e->value * 4 + e->flags;
			if (e->mark) {
				kact_mark(&a);
				w[nw++] = wpp_make_ctrl(WPP_CTRL_GAP, 0);
				w[nw++] = 1;
				continue;
			}
			assert_int_equal(kact_item(&a, e->fid, id, e->flags), 0);
			if (nw && w[nw - 1] == wpp_make_word(e->fid, id) && i % 3) {
				w[nw++] = wpp_make_ctrl(WPP_CTRL_REPEAT, 1);
				repeats++;
			} else if (nw && wpp_ctrl_op(w[nw - 1]) == WPP_CTRL_REPEAT &&
				   wpp_word_fid(w[nw - 1]) == WPP_FID_CONTROL && i > 0 &&
				   !ar.ev[i - 1].mark && ar.ev[i - 1].fid == e->fid &&
				   ar.ev[i - 1].value * 4 + ar.ev[i - 1].flags == id) {
				w[nw - 1] = wpp_make_ctrl(WPP_CTRL_REPEAT, wpp_ctrl_operand(w[nw - 1]) + 1);
			} else {
				w[nw++] = wpp_make_word(e->fid, id);
			}
			assert_true(nw + 2 < sizeof(w) / sizeof(w[0]));
		}
		assert_true(repeats > 10);
		assert_int_equal(kipf_add_kslab(want, s), 0);
		assert_int_equal(kipf_sort(want), 0);

		through_file(&c, &key, w, nw, NULL, 0, k, &st);
		t = kipf_store_find(&st, 7, 0, 8);
		assert_non_null(t);
		assert_true(t->complete);
		assert_true(t->ipf->activation);
		forest_same(t->ipf, want);

		kipf_store_free(&st);
		kact_fini(&a);
		kslab_free(s);
		kipf_free(want);
		act_run_free(&ar);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_online_exact),
	    cmocka_unit_test(test_online_pruned),
	    cmocka_unit_test(test_online_activation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
