/* SPDX-License-Identifier: MIT */
/*
 * hold.c — a thread's delivered batches held back and handed on as one
 * run, so that the sink can store them as one compressed chunk.
 *
 * Why: the rings interleave the threads' batches, so the sink (which codes
 * one thread's consecutive batches as one BATCH_Z stream, as the shm
 * collector hands them) would otherwise write one chunk per batch, and a
 * chunk of a few thousand words codes worse and costs more per word than
 * one of 64 Ki (docs/benchmarks.md, "Compressing batches").
 *
 * What stays as it was: a stream's batches still reach the callback in
 * publish order, and before anything else about that stream (a gap, the
 * stream's end and so its thread's exit): demux.c releases a stream's run
 * before either.  A run is released, then cb.flush says it is complete:
 *   - when the next batch would take it past opt.hold_words (or
 *     HOLD_MAX_BATCHES);
 *   - at once, without a copy, for a batch over half of opt.hold_words
 *     that finds nothing held (no batch as big could join it);
 *   - before a gap of its stream, and when its stream closes (exit, exec,
 *     detach, the end of collection);
 *   - when it has been held HOLD_MAX_NS, or a drain thread found its rings
 *     empty (hold_release_idle), so a quiet thread's words are not
 *     delayed;
 *   - oldest first, when all runs together exceed HOLD_BUDGET_WORDS.
 * Nothing is held when opt.hold_words is 0 (each batch goes on at once).
 * All under c->lock.
 */
#include <stdlib.h>
#include <string.h>

#include "bpfcollect/bc_internal.h"
#include "common/cpu_clock.h"

/* The sink's chunks hold at most 4096 batches (WPP_BATCH_Z_MAX_BATCHES). */
#define HOLD_MAX_BATCHES 4096u
/* A run is handed on after at most this long. */
#define HOLD_MAX_NS (100ull * 1000 * 1000)
/* Words held by all streams together (64 MiB); above it, the oldest runs
 * go, and released runs give their buffers back. */
#define HOLD_BUDGET_WORDS (8ull << 20)

static void hold_unlink(struct bc_collector *c, struct bc_stream *s)
{
	struct bc_hold *h = &s->hold;

	if (h->older)
		h->older->hold.newer = h->newer;
	else
		c->hold_oldest = h->newer;
	if (h->newer)
		h->newer->hold.older = h->older;
	else
		c->hold_newest = h->older;
	h->older = h->newer = NULL;
}

static void hold_give_back(struct bc_collector *c, struct bc_hold *h)
{
	c->hold_cap_words -= h->words_cap;
	free(h->words);
	free(h->heads);
	h->words = NULL;
	h->heads = NULL;
	h->words_cap = h->heads_cap = 0;
}

void hold_release(struct bc_collector *c, struct bc_stream *s)
{
	struct bc_hold *h = &s->hold;
	uint64_t off = 0;

	if (!h->nbatches)
		return;
	hold_unlink(c, s);
	for (uint32_t i = 0; i < h->nbatches; i++) {
		if (c->cb.batch)
			c->cb.batch(c->cb.ctx, &h->heads[i], h->words + off);
		off += h->heads[i].nwords;
	}
	if (c->cb.flush)
		c->cb.flush(c->cb.ctx);
	atomic_fetch_sub(&c->held_words, h->nwords);
	h->nbatches = 0;
	h->nwords = 0;
	/* Many quiet threads must not each keep a run's worth of memory. */
	if (c->hold_cap_words > HOLD_BUDGET_WORDS)
		hold_give_back(c, h);
}

/* Room for one more batch of n words in h; 0 or -1 (out of memory). */
static int hold_reserve(struct bc_collector *c, struct bc_hold *h, uint32_t n)
{
	if (h->nbatches == h->heads_cap) {
		uint32_t cap = h->heads_cap ? h->heads_cap * 2 : 16;
		struct wpp_chunk_batch *heads = realloc(h->heads, cap * sizeof(*heads));
		if (!heads)
			return -1;
		h->heads = heads;
		h->heads_cap = cap;
	}
	if (h->nwords + n > h->words_cap) {
		uint64_t cap = h->words_cap ? h->words_cap : 4096;
		while (cap < h->nwords + n)
			cap *= 2;
		if (cap > c->opt.hold_words)
			cap = c->opt.hold_words;
		uint64_t *words = realloc(h->words, cap * sizeof(*words));
		if (!words)
			return -1;
		c->hold_cap_words += cap - h->words_cap;
		h->words = words;
		h->words_cap = cap;
	}
	return 0;
}

void hold_batch(struct bc_collector *c, struct bc_stream *s, const struct wpp_chunk_batch *b,
		const uint64_t *words)
{
	struct bc_hold *h = &s->hold;

	if (h->nbatches &&
	    (h->nwords + b->nwords > c->opt.hold_words || h->nbatches == HOLD_MAX_BATCHES))
		hold_release(c, s);
	/* On at once, as a run of its own (nothing held before it: released
	 * above, or too small to leave room, in which case it goes first):
	 * a batch too big to hold; one that would start a run no batch of its
	 * size could join (over half a run: `record`'s 64 Ki-word batches
	 * against 64 Ki-word runs), where holding would only copy it, 512 KiB
	 * a batch, and at most a short last or signal batch would have
	 * joined; and one there is no memory to hold. */
	if (b->nwords >= c->opt.hold_words || (!h->nbatches && b->nwords > c->opt.hold_words / 2) ||
	    hold_reserve(c, h, b->nwords) < 0) {
		hold_release(c, s);
		if (c->cb.batch)
			c->cb.batch(c->cb.ctx, b, words);
		if (c->cb.flush)
			c->cb.flush(c->cb.ctx);
		return;
	}
	if (!h->nbatches) {
		h->since_ns = monotonic_ns();
		h->older = c->hold_newest;
		h->newer = NULL;
		if (c->hold_newest)
			c->hold_newest->hold.newer = s;
		else
			c->hold_oldest = s;
		c->hold_newest = s;
	}
	h->heads[h->nbatches++] = *b;
	memcpy(h->words + h->nwords, words, (size_t)b->nwords * sizeof(*words));
	h->nwords += b->nwords;
	atomic_fetch_add(&c->held_words, b->nwords);
	if (h->nwords == c->opt.hold_words)
		hold_release(c, s);
	while (atomic_load(&c->held_words) > HOLD_BUDGET_WORDS && c->hold_oldest)
		hold_release(c, c->hold_oldest);
}

void hold_release_due(struct bc_collector *c, bool all)
{
	uint64_t now = monotonic_ns();

	while (c->hold_oldest && (all || now - c->hold_oldest->hold.since_ns >= HOLD_MAX_NS))
		hold_release(c, c->hold_oldest);
}

void hold_free(struct bc_collector *c, struct bc_stream *s)
{
	if (s->hold.nbatches) {
		/* Only bc_close of a collection never finished comes here with
		 * words held; a finished one released every stream. */
		hold_unlink(c, s);
		atomic_fetch_sub(&c->held_words, s->hold.nwords);
	}
	hold_give_back(c, &s->hold);
}
