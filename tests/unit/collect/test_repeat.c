/* SPDX-License-Identifier: MIT */
/*
 * test_repeat.c — WPP_CTRL_REPEAT in the online grammar's word reader
 * (user/collect/sequitur_online.c) and through the online assembler.
 *
 * The reference is the expanded stream: every REPEAT n replaced by n copies
 * of the record (narrow word or wide pair) it refers to, by a word-level
 * expander written here.  The grammar built from the words with REPEATs
 * must equal, byte for byte, the grammar built from the expanded words;
 * the instances of unattributable REPEATs (no record before them) must be
 * exactly the difference in skipped_words.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collect/online.h"
#include "collect/sequitur_online.h"
#include "wpp/trace_abi.h"

static uint32_t rnd(unsigned *s, uint32_t n)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 8) % n;
}

/* ---- a word buffer ---- */

struct wbuf {
	uint64_t *w;
	size_t n, cap;
};

static void wput(struct wbuf *b, uint64_t w)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->w = realloc(b->w, b->cap * sizeof(*b->w));
		assert_non_null(b->w);
	}
	b->w[b->n++] = w;
}

/* ---- the reference expander ---- */

/* Per depth: the words of the last record (1 or 2; 0 = none). */
struct expander {
	uint64_t rec[4][2];
	int len[4];
	uint32_t depth; /* of the previous call */
	uint64_t unattributable;
};

static void forget(struct expander *e)
{
	memset(e->len, 0, sizeof(e->len));
}

/* Expand one call's words at one depth into out (same depth). */
static void expand_call(struct expander *e, const uint64_t *w, size_t n, uint32_t depth,
			struct wbuf *out)
{
	for (uint32_t d = e->depth + 1; d <= depth; d++)
		e->len[d] = 0; /* a new handler run */
	e->depth = depth;
	for (size_t i = 0; i < n; i++) {
		uint32_t op = wpp_ctrl_op(w[i]);
		if (w[i] != 0 && wpp_word_fid(w[i]) == WPP_FID_CONTROL && op == WPP_CTRL_REPEAT &&
		    wpp_ctrl_operand(w[i]) != 0) {
			uint32_t k = wpp_ctrl_operand(w[i]);
			if (!e->len[depth]) {
				e->unattributable += k;
				continue;
			}
			for (uint32_t r = 0; r < k; r++)
				for (int j = 0; j < e->len[depth]; j++)
					wput(out, e->rec[depth][j]);
			continue;
		}
		wput(out, w[i]);
		if (w[i] == 0 || (wpp_word_fid(w[i]) == WPP_FID_CONTROL && op == WPP_CTRL_PAD))
			continue; /* carries nothing */
		if (wpp_word_fid(w[i]) != WPP_FID_CONTROL) {
			e->rec[depth][0] = w[i];
			e->len[depth] = 1;
		} else if (op == WPP_CTRL_WIDE_PATH && i + 1 < n &&
			   (w[i + 1] & WPP_WIDE_ID_MARK)) {
			e->rec[depth][0] = w[i];
			e->rec[depth][1] = w[++i];
			wput(out, w[i]);
			e->len[depth] = 2;
		} else if (op == WPP_CTRL_GAP && i + 1 < n) {
			wput(out, w[++i]);
			forget(e);
		} else {
			e->len[depth] = 0;
		}
	}
}

/* ---- random words with runs ---- */

static uint64_t narrow(unsigned *s)
{
	return wpp_make_word(1 + rnd(s, 4), rnd(s, 5));
}

/* n words of execution order, REPEAT-heavy; two-word records are never
 * split (the assembler promises that), a lone WIDE at the end is the
 * "cut short" case. */
static size_t random_call(unsigned *s, uint64_t *w, size_t n)
{
	size_t i = 0;
	while (i < n) {
		uint32_t r = rnd(s, 100);
		if (r < 40) {
			w[i++] = narrow(s);
		} else if (r < 70) {
			uint32_t k = rnd(s, 10) == 0 ? 1 + rnd(s, 3000) : 1 + rnd(s, 4);
			w[i++] = wpp_make_ctrl(WPP_CTRL_REPEAT, k);
		} else if (r < 80 && i + 1 < n) {
			w[i++] = wpp_make_ctrl(WPP_CTRL_WIDE_PATH, 1 + rnd(s, 3));
			w[i++] = WPP_WIDE_ID_MARK | ((uint64_t)rnd(s, 2) << 45 | rnd(s, 3));
		} else if (r < 83 && i + 1 < n) {
			w[i++] = wpp_make_ctrl(WPP_CTRL_WIDE_PATH, 2);
			w[i++] = 5; /* no mark bit: malformed pair */
		} else if (r < 86 && i + 1 < n) {
			w[i++] = wpp_make_ctrl(WPP_CTRL_GAP, 0);
			w[i++] = rnd(s, 9);
		} else if (r < 89) {
			w[i++] = wpp_make_ctrl(WPP_CTRL_PAD, 0);
		} else if (r < 91) {
			w[i++] = 0;
		} else if (r < 93) {
			w[i++] = wpp_make_ctrl(WPP_CTRL_REPEAT, 0); /* malformed */
		} else if (r < 95) {
			w[i++] = wpp_make_ctrl((enum wpp_ctrl_op)9, 3); /* unknown op */
		} else if (r < 97 && i + 1 == n) {
			w[i++] = wpp_make_ctrl(WPP_CTRL_WIDE_PATH, 2); /* cut short */
		} else {
			w[i++] = wpp_make_word(WPP_FID_UNREGISTERED, rnd(s, 2));
		}
	}
	return i;
}

/* ---- comparing grammars ---- */

/* The two grammars encode to the same chunk bytes. */
static void assert_same_chunk(const struct wpp_thread_grammar *a, const struct wpp_thread_grammar *b)
{
	uint8_t *ba, *bb;
	size_t la, lb;

	assert_int_equal(wpp_grammar_chunk_encode(a, &ba, &la), 0);
	assert_int_equal(wpp_grammar_chunk_encode(b, &bb, &lb), 0);
	assert_int_equal(la, lb);
	assert_memory_equal(ba, bb, la);
	free(ba);
	free(bb);
}

/* Same grammar, terminals and counts; skipped differs by extra_skipped. */
static void assert_same_grammar(struct path_grammar *with, struct path_grammar *expanded,
				uint64_t extra_skipped)
{
	struct wpp_thread_key key = {1, 2, 0};
	struct wpp_thread_grammar a, b;

	assert_int_equal(path_grammar_export(with, &key, &a), 0);
	assert_int_equal(path_grammar_export(expanded, &key, &b), 0);
	assert_int_equal(a.hdr.skipped_words, b.hdr.skipped_words + extra_skipped);
	assert_int_equal(a.hdr.nsymbols, b.hdr.nsymbols);
	a.hdr.skipped_words = b.hdr.skipped_words; /* the rest must be equal */
	assert_same_chunk(&a, &b);
	wpp_thread_grammar_free(&a);
	wpp_thread_grammar_free(&b);
}

/* ---- tests ---- */

static void run_random(unsigned seed, enum seq_algorithm algo)
{
	unsigned s = seed;
	struct path_grammar *with = path_grammar_new(algo), *exp = path_grammar_new(algo);
	struct expander e;
	uint64_t w[64];
	uint32_t ncalls = 1 + rnd(&s, 40);

	memset(&e, 0, sizeof(e));
	assert_non_null(with);
	assert_non_null(exp);
	for (uint32_t c = 0; c < ncalls; c++) {
		struct wbuf out = {0};
		uint32_t depth = rnd(&s, 3) ? 0 : 1 + rnd(&s, 2);
		size_t n = random_call(&s, w, 1 + rnd(&s, 20));

		if (rnd(&s, 15) == 0) { /* an assembler gap between calls */
			assert_int_equal(path_grammar_gap(with), 0);
			assert_int_equal(path_grammar_gap(exp), 0);
			forget(&e);
		}
		expand_call(&e, w, n, depth, &out);
		path_grammar_words_at(with, w, n, depth);
		if (out.n)
			path_grammar_words_at(exp, out.w, out.n, depth);
		free(out.w);
	}
	assert_same_grammar(with, exp, e.unattributable);
	path_grammar_free(with);
	path_grammar_free(exp);
}

static void test_random_streams(void **state)
{
	(void)state;
	static const enum seq_algorithm algo[3] = {SEQ_PLAIN, SEQ_LOOKAHEAD, SEQ_CHUNKED};
	for (unsigned seed = 1; seed <= 500; seed++)
		run_random(seed, algo[seed % 3]);
}

/* Calls of (depth, words); compares with the expected expanded calls. */
struct call {
	uint32_t depth;
	size_t n;
	uint64_t w[8];
};

static void check_calls(const struct call *with, size_t nw, const struct call *exp, size_t ne,
			uint64_t unattributable)
{
	struct path_grammar *a = path_grammar_new(SEQ_LOOKAHEAD), *b = path_grammar_new(SEQ_LOOKAHEAD);

	for (size_t i = 0; i < nw; i++)
		if (with[i].n)
			path_grammar_words_at(a, with[i].w, with[i].n, with[i].depth);
		else
			path_grammar_gap(a);
	for (size_t i = 0; i < ne; i++)
		if (exp[i].n)
			path_grammar_words_at(b, exp[i].w, exp[i].n, exp[i].depth);
		else
			path_grammar_gap(b);
	assert_same_grammar(a, b, unattributable);
	path_grammar_free(a);
	path_grammar_free(b);
}

#define A wpp_make_word(1, 1)
#define B wpp_make_word(2, 7)
#define C wpp_make_word(3, 0)
#define WIDE wpp_make_ctrl(WPP_CTRL_WIDE_PATH, 4)
#define WIDE_ID (WPP_WIDE_ID_MARK | 12345)
#define REP(k) wpp_make_ctrl(WPP_CTRL_REPEAT, k)
#define PAD wpp_make_ctrl(WPP_CTRL_PAD, 0)

static void test_cases(void **state)
{
	(void)state;
	/* Runs add up; the record may end the previous call. */
	struct call w1[] = {{0, 2, {B, A}}, {0, 3, {REP(2), REP(3), B}}};
	struct call e1[] = {{0, 8, {B, A, A, A, A, A, A, B}}};
	check_calls(w1, 2, e1, 1, 0);
	/* A wide pair at the end of one call, repeated in the next. */
	struct call w2[] = {{0, 3, {A, WIDE, WIDE_ID}}, {0, 2, {REP(2), A}}};
	struct call e2[] = {{0, 8, {A, WIDE, WIDE_ID, WIDE, WIDE_ID, WIDE, WIDE_ID, A}}};
	check_calls(w2, 2, e2, 1, 0);
	/* Stream start, after a gap (either kind), after an unknown control
	 * word: unattributable.  PAD and zero words are transparent. */
	struct call w3[] = {{0, 2, {REP(4), A}},
			    {0, 0, {0}},
			    {0, 3, {REP(5), B, REP(1)}},
			    {0, 4, {wpp_make_ctrl(WPP_CTRL_GAP, 0), 3, REP(6), C}},
			    {0, 4, {PAD, 0, REP(2), A}},
			    {0, 3, {wpp_make_ctrl((enum wpp_ctrl_op)9, 0), REP(7), A}}};
	struct call e3[] = {{0, 1, {A}},
			    {0, 0, {0}},
			    {0, 2, {B, B}},
			    {0, 3, {wpp_make_ctrl(WPP_CTRL_GAP, 0), 3, C}},
			    {0, 5, {PAD, 0, C, C, A}},
			    {0, 2, {wpp_make_ctrl((enum wpp_ctrl_op)9, 0), A}}};
	check_calls(w3, 6, e3, 6, 4 + 5 + 6 + 7);
	/* A signal handler's records in between do not change what the main
	 * stream's REPEAT refers to, and vice versa. */
	struct call w4[] = {{0, 1, {A}}, {1, 2, {B, C}}, {2, 1, {B}}, {1, 1, {REP(1)}},
			    {0, 1, {REP(2)}}, {1, 1, {REP(3)}}};
	struct call e4[] = {{0, 1, {A}}, {1, 2, {B, C}}, {2, 1, {B}}, {1, 1, {C}},
			    {0, 2, {A, A}}, {1, 0, {0}}};
	/* The last call enters depth 1 anew (a new handler run): its REPEAT
	 * has no record; back from depth 2, depth 1 kept its C.  (A call
	 * with no words is a gap in check_calls, so the last expected call
	 * is left out.) */
	check_calls(w4, 6, e4, 5, 3);
	/* A long run and a run that follows an unregistered-module record. */
	struct call w5[] = {{0, 4, {A, REP(50000), wpp_make_word(WPP_FID_UNREGISTERED, 3), REP(2)}}};
	struct path_grammar *pg = path_grammar_new(SEQ_LOOKAHEAD);
	struct path_grammar *ref = path_grammar_new(SEQ_LOOKAHEAD);
	path_grammar_words(pg, w5[0].w, w5[0].n);
	for (int i = 0; i < 50001; i++)
		path_grammar_words(ref, &w5[0].w[0], 1);
	for (int i = 0; i < 3; i++)
		path_grammar_words(ref, &w5[0].w[2], 1);
	assert_same_grammar(pg, ref, 0);
	path_grammar_free(pg);
	path_grammar_free(ref);
}

/* ---- through the online assembler: signal depth reaches the consumer ---- */

static void capture(void *ctx, struct wpp_thread_grammar *tg)
{
	*(struct wpp_thread_grammar *)ctx = *tg;
}

static void test_assembler_depths(void **state)
{
	(void)state;
	/* Main batch 1: A REPEAT(3) B with a handler [C] spliced after A (the
	 * run was being counted when the signal came); main batch 3 is
	 * REPEAT(2) with a handler [C] spliced before it.  Each REPEAT refers
	 * to the main stream's record (A, then B at the end of batch 1), not
	 * to the handler's C: expected A C A A A B C B B. */
	uint64_t m1[] = {A, REP(3), B}, s2[] = {C}, s4[] = {C}, m3[] = {REP(2)};
	struct wpp_chunk_batch h1 = {.pid = 7, .tid = 8, .seq = 1, .nwords = 3};
	struct wpp_chunk_batch h2 = {.pid = 7, .tid = 8, .seq = 2, .parent_seq = 1, .parent_off = 1,
				     .flags = WPP_BATCH_SIGNAL, .nwords = 1};
	struct wpp_chunk_batch h3 = {.pid = 7, .tid = 8, .seq = 3, .nwords = 1};
	struct wpp_chunk_batch h4 = {.pid = 7, .tid = 8, .seq = 4, .parent_seq = 3, .parent_off = 0,
				     .flags = WPP_BATCH_SIGNAL, .nwords = 1};
	struct wpp_thread_grammar got, want;
	struct wpp_grammar_cfg cfg = {.algo = SEQ_LOOKAHEAD, .capture = capture, .ctx = &got};
	struct wpp_online_consumer cons = wpp_grammar_consumer(&cfg);
	struct wpp_online *o = wpp_online_new(&cons, 1);
	struct wpp_thread_key key = {7, 8, 0};

	memset(&got, 0, sizeof(got));
	wpp_online_batch(o, &h1, m1);
	wpp_online_batch(o, &h2, s2);
	wpp_online_batch(o, &h4, s4);
	wpp_online_batch(o, &h3, m3);
	assert_int_equal(wpp_online_thread_exit(o, &key, NULL), 0);
	wpp_online_free(o);

	uint64_t expanded[] = {A, C, A, A, A, B, C, B, B};
	struct path_grammar *pg = path_grammar_new(SEQ_LOOKAHEAD);
	path_grammar_words(pg, expanded, 9);
	assert_int_equal(path_grammar_export(pg, &key, &want), 0);
	path_grammar_free(pg);
	assert_int_equal(got.hdr.nsymbols, 9);
	assert_int_equal(got.hdr.skipped_words, 0);
	assert_same_chunk(&got, &want);
	wpp_thread_grammar_free(&got);
	wpp_thread_grammar_free(&want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_streams),
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_assembler_depths),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
