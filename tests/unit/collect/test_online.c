/* SPDX-License-Identifier: MIT */
/*
 * test_online.c — the online stream assembler (user/collect/online.c) and
 * the grammar consumer (user/collect/sequitur_online.c) against the
 * offline decoder (user/decode/decoder.c), which is the reference: random
 * threads shaped like the runtime's (dense seqs shared by main and signal
 * batches, nested signal handlers, handlers that fill several buffers,
 * narrow/wide/control/zero words, splice offsets inside wide records,
 * lost batches with and without GAP chunks), delivered in random orders.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "decode/decoder.h"
#include "decode/module_map.h"
#include "collect/online.h"
#include "collect/sequitur_online.h"
#include "wpp/trace_abi.h"
#include "wpp/wet_abi.h"

/* ---- random threads ---- */

struct tbatch {
	struct wpp_chunk_batch h;
	uint64_t *words;
	int dropped;
};

struct tthread {
	struct tbatch b[400];
	size_t nb;
	struct wpp_chunk_gap gaps[64];
	size_t ngaps;
};

static uint32_t rnd(unsigned *s, uint32_t n)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 8) % n;
}

static uint64_t *random_words(unsigned *s, uint32_t n, int weird)
{
	uint64_t *w = calloc(n ? n : 1, 8);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t r = rnd(s, 100);
		if (r < 70 || !weird) {
			w[i] = wpp_make_word(1 + rnd(s, 4), rnd(s, 6));
		} else if (r < 85 && i + 1 < n) {
			uint32_t fid = 1 + rnd(s, 3);
			w[i++] = wpp_make_ctrl(WPP_CTRL_WIDE_PATH, fid);
			w[i] = WPP_WIDE_ID_MARK | ((uint64_t)rnd(s, 3) << 45 | rnd(s, 4));
		} else if (r < 88) {
			w[i] = 0;
		} else if (r < 91) {
			w[i] = wpp_make_ctrl(WPP_CTRL_PAD, 0);
		} else if (r < 93 && i + 1 < n) {
			w[i++] = wpp_make_ctrl(WPP_CTRL_GAP, 0);
			w[i] = rnd(s, 50);
		} else if (r < 95) {
			w[i] = wpp_make_ctrl((enum wpp_ctrl_op)9, 1); /* unknown op */
		} else if (r < 97) {
			w[i] = wpp_make_ctrl(WPP_CTRL_WIDE_PATH, 2); /* maybe cut short */
		} else {
			w[i] = wpp_make_word(WPP_FID_UNREGISTERED, rnd(s, 3));
		}
	}
	return w;
}

static struct tbatch *add_batch(struct tthread *t, uint64_t seq, uint32_t flags, uint64_t pseq,
				uint32_t poff, uint32_t n, unsigned *s, int weird)
{
	struct tbatch *b = &t->b[t->nb++];
	memset(b, 0, sizeof(*b));
	b->h = (struct wpp_chunk_batch){.pid = 7, .tid = 8, .seq = seq, .parent_seq = pseq,
					.parent_off = poff, .flags = flags, .nwords = n};
	b->words = random_words(s, n, weird);
	return b;
}

/* A signal handler at some offset of parent (recursively nested). */
static void add_signal(struct tthread *t, uint64_t *seq, const struct tbatch *parent, unsigned *s,
		       int depth, int weird)
{
	uint64_t pseq = parent->h.seq;
	uint32_t poff = rnd(s, parent->h.nwords + 1);
	uint32_t nbuf = 1 + (rnd(s, 4) == 0);

	for (uint32_t k = 0; k < nbuf && t->nb < 390; k++) {
		struct tbatch *b = add_batch(t, ++*seq, WPP_BATCH_SIGNAL, pseq, poff,
					     1 + rnd(s, 12), s, weird);
		if (depth < 3 && rnd(s, 4) == 0)
			add_signal(t, seq, b, s, depth + 1, weird);
	}
}

static void gen_thread(struct tthread *t, unsigned seed, int weird, int losses)
{
	unsigned s = seed;
	uint64_t seq = 0;
	uint32_t nmain = 1 + rnd(&s, 25);

	memset(t, 0, sizeof(*t));
	for (uint32_t m = 0; m < nmain && t->nb < 380; m++) {
		struct tbatch *b = add_batch(t, ++seq, 0, 0, 0, rnd(&s, 30), &s, weird);
		size_t idx = (size_t)(b - t->b);
		while (rnd(&s, 3) == 0 && t->nb < 380)
			add_signal(t, &seq, &t->b[idx], &s, 0, weird);
	}
	if (!losses)
		return;
	/* Lose some runs of batches; say so with a GAP chunk, sometimes with
	 * the number of batches (BPF), sometimes without (shm), sometimes not
	 * at all (the hole in the seqs shows). */
	for (size_t i = 0; i < t->nb; i++) {
		if (rnd(&s, 12))
			continue;
		size_t run = 1 + rnd(&s, 3);
		uint64_t first = t->b[i].h.seq;
		for (size_t k = i; k < t->nb && k < i + run; k++)
			t->b[k].dropped = 1;
		uint32_t how = rnd(&s, 3);
		if (how < 2 && t->ngaps < 64)
			t->gaps[t->ngaps++] = (struct wpp_chunk_gap){7, 8, first - 1, 100,
								     how == 0 ? run : 0};
		if (how == 0) {
			/* lost_batches must be exact: clamp to what exists */
			uint64_t last = t->b[i + run - 1 < t->nb ? i + run - 1 : t->nb - 1].h.seq;
			t->gaps[t->ngaps - 1].lost_batches = last - first + 1;
		}
		i += run;
	}
}

static void free_thread(struct tthread *t)
{
	for (size_t i = 0; i < t->nb; i++)
		free(t->b[i].words);
}

/* ---- events: decoder vs online ---- */

enum { EV_SYM, EV_GAP, EV_BAD };
struct ev {
	int kind;
	uint32_t fid;
	uint64_t value;
};
struct evlist {
	struct ev *e;
	size_t n, cap;
};

static void push(struct evlist *l, int kind, uint32_t fid, uint64_t value)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 256;
		l->e = realloc(l->e, l->cap * sizeof(*l->e));
	}
	l->e[l->n++] = (struct ev){kind, fid, value};
}

/* An arrival order: batches shuffled, each GAP chunk before every batch
 * that lies beyond it (as transports do). entries >= nb are gaps. */
static size_t arrival(const struct tthread *t, size_t *order, unsigned *s, int in_order)
{
	size_t n = 0;
	for (size_t i = 0; i < t->nb; i++)
		if (!t->b[i].dropped)
			order[n++] = i;
	if (!in_order)
		for (size_t i = n; i > 1; i--) {
			size_t j = rnd(s, (uint32_t)i), tmp = order[i - 1];
			order[i - 1] = order[j];
			order[j] = tmp;
		}
	for (size_t g = 0; g < t->ngaps; g++) {
		size_t pos = n;
		for (size_t k = 0; k < n; k++)
			if (order[k] < t->nb && t->b[order[k]].h.seq > t->gaps[g].after_seq) {
				pos = k;
				break;
			}
		pos = pos ? rnd(s, (uint32_t)pos + 1) : 0;
		memmove(order + pos + 1, order + pos, (n - pos) * sizeof(*order));
		order[pos] = t->nb + g;
		n++;
	}
	return n;
}

static void decoder_events(const struct tthread *t, const size_t *order, size_t n, struct evlist *out)
{
	struct wpp_thread_trace th = {.pid = 7, .tid = 8};
	struct wpp_trace tr;
	memset(&tr, 0, sizeof(tr));
	th.batches = calloc(t->nb + 1, sizeof(*th.batches));
	th.gaps = calloc(t->ngaps + 1, sizeof(*th.gaps));
	for (size_t k = 0; k < n; k++) {
		if (order[k] >= t->nb) {
			const struct wpp_chunk_gap *g = &t->gaps[order[k] - t->nb];
			th.gaps[th.ngaps++] = (struct wpp_gap_ref){g->after_seq, g->lost_words, g->lost_batches};
			continue;
		}
		const struct tbatch *b = &t->b[order[k]];
		th.batches[th.nbatches++] = (struct wpp_batch_ref){
		    .seq = b->h.seq, .parent_seq = b->h.parent_seq, .parent_off = b->h.parent_off,
		    .flags = b->h.flags, .nwords = b->h.nwords, .words = (const unsigned char *)b->words};
	}
	struct wpp_modules *mods = wpp_modules_new(&tr, NULL);
	struct wpp_decoder *d = wpp_decoder_open(&th, mods, 0);
	struct wpp_event e;
	while (wpp_decoder_next(d, &e)) {
		if (e.kind == WPP_EV_GAP)
			push(out, EV_GAP, 0, 0);
		else if (e.kind == WPP_EV_CORRUPT)
			push(out, EV_BAD, 0, 0);
		else
			push(out, EV_SYM, e.fid, e.value);
	}
	wpp_decoder_close(d);
	wpp_modules_free(mods);
	free(th.batches);
	free(th.gaps);
}

/* A consumer that parses each call on its own, as the contract promises it
 * may (records are never split across calls). */
struct rec {
	struct evlist *out;
	int opened, closed;
};

static void *r_open(void *cfg, const struct wpp_thread_key *key)
{
	struct rec *r = cfg;
	assert_int_equal(key->pid, 7);
	assert_int_equal(key->tid, 8);
	r->opened++;
	return r;
}

static void r_words(void *st, const uint64_t *w, size_t n)
{
	struct rec *r = st;
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		uint32_t fid = wpp_word_fid(w[i]);
		if (w[i] == 0)
			continue;
		if ((w[i] >> 62) == 2) {
			/* A WET value word (wet_abi.h): here only the second
			 * word of a wide pair a splice cut off.  The decoder
			 * makes a run of them one CORRUPT event; an escape
			 * (exactly 1 << 63) takes the next word too, which the
			 * assembler keeps in the same call. */
			for (;;) {
				if (w[i] == WPP_WET_ESCAPE && i + 1 < n)
					i++;
				if (i + 1 < n && (w[i + 1] >> 62) == 2)
					i++;
				else
					break;
			}
			push(r->out, EV_BAD, 0, 0);
			continue;
		}
		if (fid) {
			push(r->out, EV_SYM, fid, wpp_word_payload(w[i]));
			continue;
		}
		switch (wpp_ctrl_op(w[i])) {
		case WPP_CTRL_PAD:
			break;
		case WPP_CTRL_WIDE_PATH:
			if (i + 1 == n) {
				push(r->out, EV_BAD, 0, 0);
				break;
			}
			i++;
			if (w[i] & WPP_WIDE_ID_MARK)
				push(r->out, EV_SYM, wpp_ctrl_operand(w[i - 1]), w[i] & ~WPP_WIDE_ID_MARK);
			else
				push(r->out, EV_BAD, 0, 0);
			break;
		case WPP_CTRL_GAP:
			if (i + 1 == n) {
				push(r->out, EV_BAD, 0, 0);
				break;
			}
			i++;
			push(r->out, EV_GAP, 0, 0);
			break;
		default:
			push(r->out, EV_BAD, 0, 0);
		}
	}
}

static void r_gap(void *st, uint64_t lost)
{
	struct rec *r = st;
	(void)lost;
	push(r->out, EV_GAP, 0, 0);
}

static int r_close(void *st, struct wpp_writer *w, const struct wpp_thread_key *key)
{
	struct rec *r = st;
	(void)w, (void)key;
	r->closed++;
	return 0;
}

struct captured {
	struct wpp_thread_grammar tg;
	int n;
};

static void capture(void *ctx, struct wpp_thread_grammar *tg)
{
	struct captured *c = ctx;
	c->tg = *tg;
	c->n++;
}

struct emit_ctx {
	struct evlist *out;
	const struct wpp_thread_grammar *tg;
};

static int emit_syms(void *ctx, const uint32_t *syms, size_t n)
{
	struct emit_ctx *e = ctx;
	for (size_t i = 0; i < n; i++)
		push(e->out, EV_SYM, e->tg->terms[syms[i]].fid, e->tg->terms[syms[i]].path_id);
	return 0;
}

static void assert_same(const struct evlist *a, const struct evlist *b, const char *what, unsigned seed)
{
	if (a->n != b->n)
		fail_msg("%s: %zu vs %zu events (seed %u)", what, a->n, b->n, seed);
	for (size_t i = 0; i < a->n; i++)
		if (a->e[i].kind != b->e[i].kind || a->e[i].fid != b->e[i].fid ||
		    a->e[i].value != b->e[i].value)
			fail_msg("%s: event %zu differs (seed %u)", what, i, seed);
}

static uint64_t total_forced, total_late, total_orphans;

static void run_case(unsigned seed, int weird, int losses, int in_order, uint64_t hold_limit)
{
	struct tthread *t = malloc(sizeof(*t));
	size_t order[500];
	unsigned s = seed * 7919u + 1;
	struct evlist want = {0}, got = {0}, gram = {0}, want_syms = {0};

	gen_thread(t, seed, weird, losses);
	size_t n = arrival(t, order, &s, in_order);
	decoder_events(t, order, n, &want);

	struct rec r = {.out = &got};
	struct captured cap = {0};
	struct wpp_grammar_cfg gcfg = {.algo = SEQ_LOOKAHEAD, .capture = capture, .ctx = &cap};
	struct wpp_online_consumer cons[2] = {
	    {.name = "rec", .thread_open = r_open, .thread_words = r_words, .thread_gap = r_gap,
	     .thread_close = r_close, .cfg = &r},
	    wpp_grammar_consumer(&gcfg)};
	struct wpp_online *o = wpp_online_new(cons, 2);
	assert_non_null(o);
	if (hold_limit)
		wpp_online_set_hold_limit(o, hold_limit);
	for (size_t k = 0; k < n; k++) {
		if (order[k] >= t->nb)
			wpp_online_gap(o, &t->gaps[order[k] - t->nb]);
		else
			wpp_online_batch(o, &t->b[order[k]].h, t->b[order[k]].words);
	}
	assert_int_equal(wpp_online_finish(o, NULL), 0);
	const struct wpp_online_stats *st = wpp_online_stats(o);
	int exact = st->late_batches == 0;
	total_forced += st->forced_pieces;
	total_late += st->late_batches;
	total_orphans += st->orphan_signal_batches;
	if (!hold_limit || in_order)
		assert_int_equal(st->late_batches, 0);
	wpp_online_free(o);
	assert_int_equal(r.opened, n ? 1 : 0);
	assert_int_equal(r.closed, r.opened);
	if (exact)
		assert_same(&want, &got, "online vs decoder", seed);

	/* The grammar expands to the decoder's records, segment per gap. */
	if (n) {
		assert_int_equal(cap.n, 1);
		for (size_t i = 0; i < want.n; i++)
			if (want.e[i].kind != EV_BAD)
				push(&want_syms, want.e[i].kind, want.e[i].fid, want.e[i].value);
		struct emit_ctx ec = {&gram, &cap.tg};
		for (uint32_t k = 0; k < cap.tg.g.nroots; k++) {
			if (k)
				push(&gram, EV_GAP, 0, 0);
			assert_int_equal(seq_grammar_expand_root(&cap.tg.g, k, emit_syms, &ec), 0);
		}
		if (exact)
			assert_same(&want_syms, &gram, "grammar vs decoder", seed);
		/* And the chunk round trip keeps it. */
		uint8_t *buf;
		size_t len;
		struct wpp_thread_grammar back;
		char why[160];
		assert_int_equal(wpp_grammar_chunk_encode(&cap.tg, &buf, &len), 0);
		if (wpp_grammar_chunk_decode(buf, len, &back, why, sizeof(why)) < 0)
			fail_msg("decode: %s", why);
		assert_int_equal(back.hdr.nsymbols, cap.tg.hdr.nsymbols);
		assert_int_equal(back.g.start[seq_grammar_nodes(&back.g)],
				 cap.tg.g.start[seq_grammar_nodes(&cap.tg.g)]);
		wpp_thread_grammar_free(&back);
		/* Corrupt copies are rejected or at least parse safely. */
		for (size_t i = 0; i + 1 < len; i += 1 + len / 40) {
			buf[i] ^= 0x10;
			if (wpp_grammar_chunk_decode(buf, len, &back, why, sizeof(why)) == 0)
				wpp_thread_grammar_free(&back);
			buf[i] ^= 0x10;
		}
		free(buf);
		wpp_thread_grammar_free(&cap.tg);
	}
	free(want.e);
	free(got.e);
	free(gram.e);
	free(want_syms.e);
	free_thread(t);
	free(t);
}

static void test_plain_in_order(void **state)
{
	(void)state;
	for (unsigned seed = 1; seed <= 150; seed++)
		run_case(seed, 0, 0, 1, 0);
}

static void test_random_orders(void **state)
{
	(void)state;
	for (unsigned seed = 1; seed <= 400; seed++)
		run_case(seed, seed % 2, 0, 0, 0);
}

static void test_losses_and_gaps(void **state)
{
	(void)state;
	for (unsigned seed = 1; seed <= 400; seed++)
		run_case(seed, 1, 1, seed % 3 == 0, 0);
	assert_true(total_orphans > 0); /* lost parents were exercised */
}

/* A small hold limit forces delivery around holes; in seq order nothing
 * arrives late, so the result must still be the decoder's. */
static void test_hold_limit(void **state)
{
	(void)state;
	for (unsigned seed = 1; seed <= 300; seed++)
		run_case(seed, 1, 1, 1, 1 + seed % 40);
	assert_true(total_forced > 100); /* the bound really was exercised */
	/* Random order with a tiny limit: late batches are dropped (counted);
	 * everything must stay memory-safe and consistent. */
	for (unsigned seed = 1; seed <= 300; seed++)
		run_case(seed, 1, 1, 0, 1 + seed % 40);
	assert_true(total_late > 0);
}

/* An assembler whose one consumer records into ev (r and c must live as
 * long as it). */
static struct wpp_online *rec_online(struct rec *r, struct evlist *ev,
				     struct wpp_online_consumer *c)
{
	*r = (struct rec){.out = ev};
	*c = (struct wpp_online_consumer){.name = "rec",
					  .thread_open = r_open,
					  .thread_words = r_words,
					  .thread_gap = r_gap,
					  .thread_close = r_close,
					  .cfg = r};
	return wpp_online_new(c, 1);
}

/* Several threads interleaved; each closes on its own exit. */
static void test_threads_and_exit(void **state)
{
	(void)state;
	struct rec r;
	struct evlist ev = {0};
	struct wpp_online_consumer c;
	struct wpp_online *o = rec_online(&r, &ev, &c);
	uint64_t w[3] = {wpp_make_word(1, 1), wpp_make_word(1, 2), wpp_make_word(2, 3)};
	struct wpp_chunk_batch b = {.pid = 7, .tid = 8, .seq = 2, .nwords = 3};
	wpp_online_batch(o, &b, w); /* seq 1 missing: held */
	assert_int_equal(ev.n, 0);
	b.seq = 1;
	b.nwords = 1;
	wpp_online_batch(o, &b, w);
	assert_int_equal(ev.n, 1); /* seq 1 complete once seq 2 (main) is known */
	b.seq = 1;
	wpp_online_batch(o, &b, w); /* duplicate, late */
	assert_int_equal(wpp_online_thread_exit(o, &(struct wpp_thread_key){7, 8, 0}, NULL), 0);
	assert_int_equal(ev.n, 4);
	assert_int_equal(r.closed, 1);
	assert_int_equal(wpp_online_thread_exit(o, &(struct wpp_thread_key){7, 9, 0}, NULL), 0);
	assert_int_equal(wpp_online_stats(o)->late_batches, 1);
	wpp_online_free(o);
	free(ev.e);
}

/* A salvaged copy (WPP_BATCH_SALVAGED) of a batch: replaced by the
 * published batch if that comes while the copy is held, dropped if it comes
 * after the batch was delivered; neither counts as duplicate or late. */
static void test_salvaged_copy(void **state)
{
	(void)state;
	struct rec r;
	struct evlist ev = {0};
	struct wpp_online_consumer c;
	struct wpp_online *o = rec_online(&r, &ev, &c);
	uint64_t w[4] = {wpp_make_word(1, 1), wpp_make_word(1, 2), wpp_make_word(2, 3),
			 wpp_make_word(3, 4)};
	struct wpp_chunk_batch b = {.pid = 7, .tid = 8, .seq = 1, .nwords = 2,
				    .flags = WPP_BATCH_SALVAGED};
	wpp_online_batch(o, &b, w); /* held: no main batch after it yet */
	b.nwords = 4;
	b.flags = 0;
	wpp_online_batch(o, &b, w); /* the published one replaces it */
	b.seq = 2;
	b.nwords = 1;
	wpp_online_batch(o, &b, w);
	b.seq = 1;
	b.nwords = 2;
	b.flags = WPP_BATCH_SALVAGED;
	wpp_online_batch(o, &b, w); /* after delivery: dropped */
	assert_int_equal(wpp_online_thread_exit(o, &(struct wpp_thread_key){7, 8, 0}, NULL), 0);
	assert_int_equal(ev.n, 5); /* seq 1's four words, seq 2's one */
	assert_int_equal(ev.e[3].fid, 3);
	assert_int_equal(wpp_online_stats(o)->late_batches, 0);
	assert_int_equal(wpp_online_stats(o)->duplicate_batches, 0);
	wpp_online_free(o);
	free(ev.e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plain_in_order),  cmocka_unit_test(test_random_orders),
	    cmocka_unit_test(test_losses_and_gaps), cmocka_unit_test(test_hold_limit),
	    cmocka_unit_test(test_threads_and_exit), cmocka_unit_test(test_salvaged_copy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
