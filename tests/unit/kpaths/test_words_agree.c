/* SPDX-License-Identifier: MIT */
/*
 * test_words_agree.c — the three readers of raw trace words (the decoder,
 * the path grammar consumer, the k-path consumer) agree with an
 * independent expansion on hostile word streams.
 *
 * Each stream is one thread's batches written to a .wpp file: records of
 * registered and unregistered fids, wide records (some naming fid 0, some
 * without their mark bit), REPEAT words (0, after a gap, after a malformed
 * word, at the start of a signal handler), PAD and zero words, GAP markers
 * (some cut short), unknown control words, and signal batches nested up to
 * 22 levels, spliced anywhere (also between the two words of a pair, which
 * cuts it short), and WET value words (wet_abi.h) no record owns, escapes
 * among them: skipped by their shape by every reader, and one CORRUPT
 * event per run of them from the decoder.  The decoder reads the file; the grammar and the k-path
 * reader get the assembled segments the way the online assembler hands
 * them over (a call per run of one signal depth, a gap call per gap); the
 * reference expander below, written from docs/wpp-file-format.md ("Reading
 * raw words") and sharing no code with them, gets the same calls.  Then:
 *   decoder   its event list equals the reference's, event by event;
 *   grammar   each segment expands to the reference's records between
 *             gaps; skipped_words = malformed words + unattributable
 *             instances;
 *   k-paths   the k-IPF equals a brute-force n-gram count over the
 *             reference's items, marks at every gap, malformed word,
 *             unattributable REPEAT and unregistered record.
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

#include "decode/batch_words.h"
#include "decode/decoder.h"
#include "forest_check.h"
#include "analysis/kpaths/kipf.h"
#include "analysis/kpaths/kslab.h"
#include "analysis/kpaths/kslab_words.h"
#include "ngram_ref.h"
#include "analysis/grammar/sequitur_grammar.h"
#include "collect/sequitur_online.h"
#include "decode/stream.h"
#include "symbolizer/symbolizer.h"
#include "tests/unit/decode/testlib.h"
#include "decode/trace_file.h"
#include "wpp/trace_abi.h"

/* ---- the reference: what the documented rules make of the calls ---- */

enum ref_kind { R_REC, R_GAP, R_BAD, R_UNATTR, R_VALUES, R_NKINDS };

struct ref_ev {
	enum ref_kind kind;
	uint32_t fid;
	uint64_t value;	 /* R_REC */
	uint64_t repeat; /* R_REC: 0 as written, k-th repetition otherwise */
	uint64_t n;	 /* R_BAD, R_VALUES: words; R_UNATTR: instances */
};

struct ref {
	struct ref_ev *ev;
	size_t n, cap;
	/* The documented depth limit, restated: 16 tracked depths. */
	int have[16];
	uint32_t fid[16];
	uint64_t value[16], reps[16];
	uint32_t depth;
};

static void put(struct ref *r, struct ref_ev e)
{
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 256;
		r->ev = realloc(r->ev, r->cap * sizeof(*r->ev));
		assert_non_null(r->ev);
	}
	r->ev[r->n++] = e;
}

static void ref_gap(struct ref *r)
{
	memset(r->have, 0, sizeof(r->have));
	put(r, (struct ref_ev){.kind = R_GAP});
}

static void ref_bad(struct ref *r, uint32_t depth, uint64_t nwords)
{
	if (depth < 16)
		r->have[depth] = 0;
	put(r, (struct ref_ev){.kind = R_BAD, .n = nwords});
}

static void ref_rec(struct ref *r, uint32_t depth, uint32_t fid, uint64_t value)
{
	if (depth < 16) {
		r->have[depth] = 1;
		r->fid[depth] = fid;
		r->value[depth] = value;
		r->reps[depth] = 0;
	}
	put(r, (struct ref_ev){.kind = R_REC, .fid = fid, .value = value});
}

static void ref_call(struct ref *r, const uint64_t *w, size_t n, uint32_t depth)
{
	for (uint32_t d = r->depth + 1; d <= depth && d < 16; d++)
		r->have[d] = 0;
	r->depth = depth;
	for (size_t i = 0; i < n; i++) {
		uint64_t x = w[i];
		uint32_t op = (uint32_t)(x >> 32) & 0xff, arg = (uint32_t)x;

		if (x == 0)
			continue;
		if ((x >> 62) == 2) {
			/* Value words (top bits 10), a run of them; the escape
			 * (exactly 1 << 63) takes the next word too. */
			uint64_t nw = 0;
			while (i < n && (w[i] >> 62) == 2) {
				size_t take = w[i] == 1ull << 63 && i + 1 < n ? 2 : 1;
				nw += take;
				i += take;
			}
			i--;
			put(r, (struct ref_ev){.kind = R_VALUES, .n = nw});
			continue;
		}
		if (x >> 40) {
			ref_rec(r, depth, (uint32_t)(x >> 40), x & ((1ull << 40) - 1));
			continue;
		}
		if (op == 3) /* PAD */
			continue;
		if (op == 4 && arg) { /* REPEAT n */
			if (depth >= 16 || !r->have[depth]) {
				put(r, (struct ref_ev){.kind = R_UNATTR, .n = arg});
				continue;
			}
			for (uint32_t k = 0; k < arg; k++)
				put(r, (struct ref_ev){.kind = R_REC,
						       .fid = r->fid[depth],
						       .value = r->value[depth],
						       .repeat = ++r->reps[depth]});
			continue;
		}
		if (op == 1) { /* WIDE_PATH */
			if (i + 1 == n)
				ref_bad(r, depth, 1);
			else if (!(w[i + 1] >> 63) || arg == 0)
				ref_bad(r, depth, 2), i++;
			else
				ref_rec(r, depth, arg, w[++i] & ~(1ull << 63));
			continue;
		}
		if (op == 2) { /* GAP */
			memset(r->have, 0, sizeof(r->have));
			if (i + 1 == n)
				ref_bad(r, depth, 1);
			else
				ref_gap(r), i++;
			continue;
		}
		ref_bad(r, depth, 1); /* REPEAT 0, unknown op */
	}
}

/* ---- hostile streams as .wpp batches ---- */

static uint64_t rng;

static uint32_t pick(uint32_t n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(rng >> 33) % n;
}

struct wbuf {
	uint64_t w[256];
	uint32_t n;
};

#define PID 300u

static uint64_t next_seq;

static uint32_t random_fid(void)
{
	uint32_t f = pick(12);
	return f < 10 ? 1 + f % 3 : WPP_FID_UNREGISTERED;
}

static void random_item(struct wbuf *b)
{
	uint32_t c = pick(100);

	if (c < 35) {
		b->w[b->n++] = wpp_make_word(random_fid(), pick(4));
	} else if (c < 60) {
		b->w[b->n++] = wpp_make_ctrl(WPP_CTRL_REPEAT, pick(10) ? 1 + pick(4) : 0);
	} else if (c < 72) {
		uint32_t f = pick(10) ? random_fid() : 0;
		b->w[b->n++] = wpp_make_ctrl(WPP_CTRL_WIDE_PATH, f);
		b->w[b->n++] = (pick(8) ? WPP_WIDE_ID_MARK : 0) | (pick(3) + (1ull << 45));
	} else if (c < 78) {
		b->w[b->n++] = pick(2) ? 0 : wpp_make_ctrl(WPP_CTRL_PAD, 0);
	} else if (c < 83) {
		b->w[b->n++] = wpp_make_ctrl(WPP_CTRL_GAP, 0);
		b->w[b->n++] = pick(50);
	} else if (c < 86) {
		b->w[b->n++] = wpp_make_ctrl((enum wpp_ctrl_op)(9 + pick(3)), pick(5));
	} else if (c < 90) {
		/* A pair head alone: cut short unless a spliced handler or the
		 * batch's end is not what follows. */
		b->w[b->n++] = wpp_make_ctrl(pick(2) ? WPP_CTRL_WIDE_PATH : WPP_CTRL_GAP, 1);
	} else if (c < 95) {
		b->w[b->n++] = wpp_make_word(random_fid(), pick(2));
		b->w[b->n++] = wpp_make_ctrl(WPP_CTRL_REPEAT, 1 + pick(3));
	} else {
		/* Value words: a plain one, or an escape and its raw value
		 * (which a splice may cut off). */
		if (pick(3)) {
			b->w[b->n++] = (1ull << 63) | (1 + pick(1000));
		} else {
			b->w[b->n++] = 1ull << 63;
			b->w[b->n++] = pick(2) ? 1ull << 61 : (3ull << 62) | pick(9);
		}
	}
}

/* One batch at `depth`, spliced after word `off` of batch `parent` if it is
 * a handler's, with handlers spliced into it (deeper ones with odds
 * deep_pct %), written after them. */
static void random_batch(struct tl_writer *w, uint32_t depth, uint64_t parent, uint32_t off,
			 uint32_t deep_pct, uint32_t maxdepth)
{
	struct wbuf b = {.n = 0};
	uint64_t seq = next_seq++;
	uint32_t items = depth ? 1 + pick(6) : 10 + pick(40);

	/* A handler holds at most one deeper handler: a chain, not a tree. */
	for (uint32_t i = 0, nested = 0; i < items && b.n < 200; i++) {
		random_item(&b);
		if (depth < maxdepth && pick(100) < (depth ? deep_pct : 8) && !(depth && nested++))
			/* A handler spliced here, maybe between a pair's words. */
			random_batch(w, depth + 1, seq, b.n - (b.n > 1 && pick(4) == 0), deep_pct,
				     maxdepth);
	}
	tl_batch(w, PID, 0, PID, seq, depth ? WPP_BATCH_SIGNAL : 0, parent, off, b.w, b.n);
}

/* ---- the calls the online assembler would make ---- */

struct call {
	int gap;
	uint32_t depth;
	uint64_t *w;
	size_t n;
};

struct calls {
	struct call *c;
	size_t n;
};

static void calls_of(const struct wpp_stream *st, struct calls *out)
{
	out->c = calloc(st->nsegs + 1, sizeof(*out->c));
	out->n = 0;
	assert_non_null(out->c);
	for (size_t i = 0; i < st->nsegs; i++) {
		const struct wpp_segment *s = &st->segs[i];
		struct call *c = out->n ? &out->c[out->n - 1] : NULL;

		if (s->kind == WPP_SEG_GAP) {
			out->c[out->n++] = (struct call){.gap = 1};
			continue;
		}
		/* One call per run of one depth: a pair may straddle batches. */
		if (!c || c->gap || c->depth != s->signal_depth) {
			c = &out->c[out->n++];
			*c = (struct call){.depth = s->signal_depth};
		}
		c->w = realloc(c->w, (c->n + s->to - s->from + 1) * sizeof(*c->w));
		assert_non_null(c->w);
		const unsigned char *words = wpp_batch_words_get(s->batch);
		memcpy(c->w + c->n, words + (size_t)s->from * 8, (size_t)(s->to - s->from) * 8);
		c->n += s->to - s->from;
		wpp_batch_words_put(s->batch);
	}
}

static void calls_free(struct calls *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		free(cs->c[i].w);
	free(cs->c);
}

/* ---- the three consumers against the reference ---- */

static void check_decoder(const struct wpp_trace *t, const struct ref *r)
{
	struct wpp_symbolizer *sym = wpp_sym_new();
	struct wpp_modules *mods = wpp_modules_new(t, sym);
	struct wpp_decoder *d = wpp_decoder_open(&t->threads[0], mods, 0);
	struct wpp_event ev;
	size_t i = 0;

	assert_non_null(d);
	while (wpp_decoder_next(d, &ev) == 1) {
		const struct ref_ev *e;
		assert_true(i < r->n);
		e = &r->ev[i++];
		switch (ev.kind) {
		case WPP_EV_GAP:
			assert_int_equal(e->kind, R_GAP);
			break;
		case WPP_EV_CORRUPT:
			if (e->kind == R_VALUES) {
				assert_non_null(strstr(ev.reason, "value words"));
				assert_int_equal(ev.lost_words, e->n);
				break;
			}
			assert_int_equal(e->kind, R_BAD);
			break;
		default:
			/* No module is registered: every record is unattributed,
			 * but keeps its fid and value. */
			assert_int_equal(ev.kind, WPP_EV_UNATTRIBUTED);
			if (strstr(ev.reason, "repeat count")) {
				assert_int_equal(e->kind, R_UNATTR);
				assert_int_equal(ev.lost_words, e->n);
				break;
			}
			assert_int_equal(e->kind, R_REC);
			assert_int_equal(ev.fid, e->fid);
			assert_int_equal(ev.value, e->value);
			assert_int_equal(ev.repeat, e->repeat);
		}
	}
	assert_int_equal(i, r->n);
	wpp_decoder_close(d);
	wpp_modules_free(mods);
	wpp_sym_free(sym);
}

struct expansion {
	const struct wpp_thread_grammar *tg;
	const struct ref *r;
	size_t at; /* next reference event */
};

/* The next record of the reference in this segment. */
static const struct ref_ev *next_record(struct expansion *x)
{
	while (x->at < x->r->n && x->r->ev[x->at].kind != R_REC) {
		assert_int_not_equal(x->r->ev[x->at].kind, R_GAP);
		x->at++;
	}
	assert_true(x->at < x->r->n);
	return &x->r->ev[x->at++];
}

static int expect_terminals(void *ctx, const uint32_t *syms, size_t n)
{
	struct expansion *x = ctx;

	for (size_t i = 0; i < n; i++) {
		const struct ref_ev *e = next_record(x);
		assert_int_equal(x->tg->terms[syms[i]].fid, e->fid);
		assert_int_equal(x->tg->terms[syms[i]].path_id, e->value);
	}
	return 0;
}

static void check_grammar(const struct calls *cs, const struct ref *r)
{
	struct path_grammar *pg = path_grammar_new(SEQ_LOOKAHEAD);
	struct wpp_thread_key key = {PID, PID, 0};
	struct wpp_thread_grammar tg;
	struct expansion x = {.tg = &tg, .r = r};
	uint64_t skipped = 0;

	assert_non_null(pg);
	for (size_t i = 0; i < cs->n; i++) {
		if (cs->c[i].gap)
			assert_int_equal(path_grammar_gap(pg), 0);
		else
			assert_int_equal(
			    path_grammar_words_at(pg, cs->c[i].w, cs->c[i].n, cs->c[i].depth), 0);
	}
	assert_int_equal(path_grammar_export(pg, &key, &tg), 0);
	for (uint32_t k = 0; k < tg.g.nroots; k++) {
		assert_int_equal(seq_grammar_expand_root(&tg.g, k, expect_terminals, &x), 0);
		/* The segment ends at the next gap. */
		while (x.at < r->n && r->ev[x.at].kind != R_GAP) {
			assert_int_not_equal(r->ev[x.at].kind, R_REC);
			x.at++;
		}
		if (k + 1 < tg.g.nroots) {
			assert_true(x.at < r->n);
			x.at++;
		}
	}
	assert_int_equal(x.at, r->n);
	for (size_t i = 0; i < r->n; i++)
		skipped += r->ev[i].kind == R_BAD || r->ev[i].kind == R_UNATTR ? r->ev[i].n : 0;
	assert_int_equal(tg.hdr.skipped_words, skipped);
	wpp_thread_grammar_free(&tg);
	path_grammar_free(pg);
}

static void check_kpaths(const struct calls *cs, const struct ref *r, unsigned k)
{
	struct ev *items = calloc(r->n + 1, sizeof(*items));
	struct kslab *s = kslab_new(k, 0);
	struct kipf *f = kipf_new(k);
	struct kslab_words *rd = malloc(sizeof(*rd));
	uint64_t unattributed = 0;
	const struct ev *ip = items;
	size_t n;
	struct ngram_ref *ref;

	assert_non_null(items);
	assert_non_null(s);
	assert_non_null(f);
	assert_non_null(rd);
	n = 0;
	for (size_t i = 0; i < r->n; i++) {
		const struct ref_ev *e = &r->ev[i];
		int item = e->kind == R_REC && e->fid != WPP_FID_UNREGISTERED;
		if (e->kind == R_VALUES)
			continue; /* transparent: neither an item nor a mark */
		items[n++] = (struct ev){.mark = !item, .fid = e->fid, .value = e->value};
		unattributed += e->kind == R_UNATTR ? e->n : 0;
	}
	ref = ngram_ref_build(&ip, &n, 1, k);
	kslab_words_init(rd, kslab_flat_sink(s));
	for (size_t i = 0; i < cs->n; i++) {
		if (cs->c[i].gap)
			kslab_words_gap(rd);
		else
			assert_int_equal(
			    kslab_words_feed(rd, cs->c[i].w, cs->c[i].n, cs->c[i].depth), 0);
	}
	assert_int_equal(rd->unattributed, unattributed);
	assert_int_equal(kipf_add_kslab(f, s), 0);
	assert_int_equal(kipf_sort(f), 0);
	forest_check(f, ref, 0);
	ngram_ref_free(ref);
	kipf_free(f);
	kslab_free(s);
	free(rd);
	free(items);
}

/* ---- driver ---- */

/* What the streams exercised, summed over all of them. */
static uint64_t seen[R_NKINDS], deepest;

static void one_stream(uint64_t seed, uint32_t deep_pct, uint32_t maxdepth)
{
	char path[] = "/tmp/wpp-words-agree-XXXXXX";
	int fd = mkstemp(path);
	struct tl_writer w;
	struct wpp_trace *t;
	struct wpp_stream st;
	struct calls cs;
	struct ref r = {0};

	assert_true(fd >= 0);
	close(fd);
	rng = seed;
	next_seq = 1;
	assert_int_equal(tl_wopen(&w, path), 0);
	tl_process(&w, PID, 1, 0, 0);
	for (uint32_t b = 0, nb = 2 + pick(6); b < nb; b++) {
		next_seq += pick(6) == 0; /* a lost batch: a gap */
		random_batch(&w, 0, 0, 0, deep_pct, maxdepth);
	}
	tl_wclose(&w, 1);
	t = wpp_trace_load(path);
	unlink(path);
	assert_non_null(t);
	assert_int_equal(t->nthreads, 1);
	assert_int_equal(wpp_stream_assemble(&t->threads[0], &st), 0);
	calls_of(&st, &cs);
	for (size_t i = 0; i < cs.n; i++) {
		if (cs.c[i].gap)
			ref_gap(&r);
		else
			ref_call(&r, cs.c[i].w, cs.c[i].n, cs.c[i].depth);
		if (!cs.c[i].gap && cs.c[i].depth > deepest)
			deepest = cs.c[i].depth;
	}
	for (size_t i = 0; i < r.n; i++)
		seen[r.ev[i].kind] += r.ev[i].kind == R_REC && r.ev[i].repeat == 0 ? 0 : 1;
	check_decoder(t, &r);
	check_grammar(&cs, &r);
	check_kpaths(&cs, &r, 2);
	check_kpaths(&cs, &r, 5);
	free(r.ev);
	calls_free(&cs);
	wpp_stream_free(&st);
	wpp_trace_free(t);
}

static void test_readers_agree(void **state)
{
	(void)state;
	memset(seen, 0, sizeof(seen));
	deepest = 0;
	for (uint64_t seed = 1; seed <= 150; seed++)
		one_stream(seed, seed % 3 ? 10 : 70, seed % 3 ? 3 : 22);
	/* The streams did reach what they are meant to: repeats expanded,
	 * gaps, malformed words, unattributable REPEATs, depths past the
	 * tracked 16. */
	for (int k = 0; k < R_NKINDS; k++)
		assert_true(seen[k] > 50);
	assert_true(deepest > 16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_readers_agree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
