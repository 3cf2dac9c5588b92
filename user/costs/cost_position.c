/* SPDX-License-Identifier: MIT */
/*
 * cost_position.c — sample positions -> (batch seq, word) or why not
 * (cost_position.h).
 *
 * The thread's batches sorted by seq, each with its signal depth; the same
 * batches again ordered by (depth, seq), so "the first batch of depth d
 * after seq S" is one binary search, and "was any number between S and it
 * lost" is arithmetic: between two present batches k places apart in seq
 * order, (their seq difference - k) numbers are missing.
 */
#include "costs/cost_position.h"

#include <stdlib.h>

#include "decode/stream.h"

struct batch_info {
	uint64_t seq;
	uint64_t parent_seq;
	uint32_t nwords;
	uint32_t depth; /* UINT32_MAX while unknown */
	int signal;
	const struct wpp_batch_ref *ref; /* and its index: which duplicate is kept */
	size_t file_index;
};

struct depth_key {
	uint32_t depth;
	uint32_t index; /* into batches (seq order) */
};

struct cost_batch_index {
	struct batch_info *b; /* by seq */
	struct depth_key *by_depth;
	size_t n;
	int end_lost; /* batches were lost after the last present one */
};

static int by_seq(const void *a, const void *b)
{
	const struct batch_info *x = a, *y = b;
	return wpp_batch_order(x->ref, x->file_index, y->ref, y->file_index);
}

static int by_depth_then_index(const void *a, const void *b)
{
	const struct depth_key *x = a, *y = b;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Index of the first batch with seq >= seq (n if none). */
static size_t lower_bound_seq(const struct cost_batch_index *ix, uint64_t seq)
{
	size_t lo = 0, hi = ix->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ix->b[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Depth of a batch: 0 for the thread's own code, parent + 1 for a signal
 * batch.  Parents may have larger seqs (numbered on demand), so resolve by
 * walking up; a missing parent or a loop (hostile files only) counts as
 * depth 0 above the chain. */
static void resolve_depth(struct cost_batch_index *ix, struct batch_info *x)
{
	struct batch_info *chain[32], *y = x;
	uint32_t base = 0;
	int k = 0;

	while (k < 32) {
		if (y->depth != UINT32_MAX) {
			base = y->depth + 1;
			break;
		}
		if (!y->signal) {
			y->depth = 0;
			base = 1;
			break;
		}
		chain[k++] = y;
		size_t p = lower_bound_seq(ix, y->parent_seq);
		if (p == ix->n || ix->b[p].seq != y->parent_seq || &ix->b[p] == y) {
			base = 1;
			break;
		}
		y = &ix->b[p];
	}
	if (k == 32)
		base = 1;
	for (int i = k - 1; i >= 0; i--)
		chain[i]->depth = base++;
}

struct cost_batch_index *cost_batch_index_new(const struct wpp_thread_trace *th)
{
	struct cost_batch_index *ix = calloc(1, sizeof(*ix));
	if (!ix)
		return NULL;
	ix->b = malloc((th->nbatches + 1) * sizeof(*ix->b));
	ix->by_depth = malloc((th->nbatches + 1) * sizeof(*ix->by_depth));
	if (!ix->b || !ix->by_depth) {
		cost_batch_index_free(ix);
		return NULL;
	}
	for (size_t i = 0; i < th->nbatches; i++) {
		const struct wpp_batch_ref *r = &th->batches[i];
		ix->b[i] = (struct batch_info){r->seq,
					       r->parent_seq,
					       r->nwords,
					       UINT32_MAX,
					       (r->flags & WPP_BATCH_SIGNAL) != 0,
					       r,
					       i};
	}
	ix->n = th->nbatches;
	qsort(ix->b, ix->n, sizeof(*ix->b), by_seq);
	/* Duplicate numbers (a salvaged copy, hostile files): the stream keeps
	 * the first in wpp_batch_order; so do we. */
	size_t k = 0;
	for (size_t i = 0; i < ix->n; i++)
		if (k == 0 || ix->b[i].seq != ix->b[k - 1].seq)
			ix->b[k++] = ix->b[i];
	ix->n = k;
	for (size_t i = 0; i < ix->n; i++) {
		resolve_depth(ix, &ix->b[i]);
		ix->by_depth[i] = (struct depth_key){ix->b[i].depth, (uint32_t)i};
	}
	qsort(ix->by_depth, ix->n, sizeof(*ix->by_depth), by_depth_then_index);
	/* A GAP chunk at or after the last present batch: the thread's end
	 * was lost, so a position past it may have been in a lost batch. */
	uint64_t last = ix->n ? ix->b[ix->n - 1].seq : 0;
	for (size_t i = 0; i < th->ngaps; i++)
		if (th->gaps[i].after_seq >= last)
			ix->end_lost = 1;
	return ix;
}

void cost_batch_index_free(struct cost_batch_index *ix)
{
	if (!ix)
		return;
	free(ix->b);
	free(ix->by_depth);
	free(ix);
}

/* Numbers missing from the trace strictly between batch positions i < j
 * (n stands for "past the last batch": nothing is known missing there). */
static uint64_t missing_between_index(const struct cost_batch_index *ix, size_t i, size_t j)
{
	return ix->b[j].seq - ix->b[i].seq - 1 - (uint64_t)(j - i - 1);
}

static enum cost_locate_result past_the_end(const struct cost_batch_index *ix)
{
	return ix->end_lost ? COST_IN_LOST : COST_AFTER_END;
}

/* The first batch of depth `depth` numbered after `after`; COST_IN_LOST if
 * a lost number before it could have been that batch. */
static enum cost_locate_result next_at_depth(const struct cost_batch_index *ix, uint64_t after,
					     uint32_t depth, size_t *found)
{
	if (after == UINT64_MAX) /* hostile numbering: nothing can follow */
		return past_the_end(ix);
	size_t first = lower_bound_seq(ix, after + 1);
	size_t lo = 0, hi = ix->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const struct depth_key *k = &ix->by_depth[mid];
		if (k->depth < depth || (k->depth == depth && k->index < first))
			lo = mid + 1;
		else
			hi = mid;
	}
	int have = lo < ix->n && ix->by_depth[lo].depth == depth;
	size_t j = have ? ix->by_depth[lo].index : ix->n;
	/* Numbers after `after` up to batch j (or to the last batch) that the
	 * trace lacks: one of them may have been the batch we look for. */
	uint64_t missing;
	if (first == ix->n)
		missing = 0;
	else {
		uint64_t lacking_before_first = ix->b[first].seq - after - 1;
		size_t upto = have ? j : ix->n - 1;
		missing = lacking_before_first +
			  (upto > first ? missing_between_index(ix, first, upto) : 0);
	}
	if (missing)
		return COST_IN_LOST;
	if (!have)
		return past_the_end(ix);
	*found = j;
	return COST_AT_RECORD;
}

enum cost_locate_result cost_locate(const struct cost_batch_index *ix, const struct wpp_sample *s,
				    uint64_t *seq, uint32_t *word)
{
	uint64_t w = s->word;
	size_t x;
	enum cost_locate_result r;

	if (s->pos == WPP_POS_BUFFER || s->pos == WPP_POS_NUMBERED) {
		x = lower_bound_seq(ix, s->seq);
		if (x == ix->n)
			return past_the_end(ix);
		if (ix->b[x].seq != s->seq)
			return COST_IN_LOST; /* a hole: later batches are present */
	} else if ((r = next_at_depth(ix, s->seq, s->depth, &x)) != COST_AT_RECORD) {
		return r;
	}
	/* Past the batch's end (the flush was about to happen): the record
	 * lands in the next buffer of the same depth. */
	while (w >= ix->b[x].nwords) {
		w -= ix->b[x].nwords;
		if ((r = next_at_depth(ix, ix->b[x].seq, ix->b[x].depth, &x)) != COST_AT_RECORD)
			return r;
	}
	*seq = ix->b[x].seq;
	*word = (uint32_t)w;
	return COST_AT_RECORD;
}
