/* SPDX-License-Identifier: MIT */
/*
 * trace_words.c — raw trace words -> records, repeats, gaps and malformed
 * items (see trace_words.h).
 */
#include "trace_words.h"

void wpp_words_init(struct wpp_words *r, struct wpp_words_sink sink)
{
	*r = (struct wpp_words){.sink = sink};
}

static void forget_all(struct wpp_words *r)
{
	for (unsigned d = 0; d < WPP_WORDS_DEPTHS; d++)
		r->last[d].valid = 0;
}

void wpp_words_gap(struct wpp_words *r, uint64_t lost_words)
{
	forget_all(r);
	r->sink.gap(r->sink.ctx, lost_words);
}

/* A handler entered anew has nothing to repeat at its depth or at those in
 * between; coming back out keeps the outer level's. */
static struct wpp_words_last *enter(struct wpp_words *r, uint32_t depth)
{
	for (uint32_t d = r->depth + 1; d <= depth && d < WPP_WORDS_DEPTHS; d++)
		r->last[d].valid = 0;
	r->depth = depth;
	return depth < WPP_WORDS_DEPTHS ? &r->last[depth] : NULL;
}

static int malformed(struct wpp_words *r, struct wpp_words_last *last, const char *why,
		     uint32_t nwords)
{
	if (last)
		last->valid = 0;
	r->sink.malformed(r->sink.ctx, why, nwords);
	return (int)nwords;
}

static int record(struct wpp_words *r, struct wpp_words_last *last, uint32_t fid, uint64_t value,
		  int nwords)
{
	if (last)
		*last = (struct wpp_words_last){.value = value, .fid = fid, .valid = 1};
	return r->sink.records(r->sink.ctx, fid, value, 1, 0) < 0 ? -1 : nwords;
}

static int repeat(struct wpp_words *r, struct wpp_words_last *last, uint32_t n)
{
	uint64_t first;

	if (n == 0)
		return malformed(r, last, "repeat count of zero", 1);
	if (!last || !last->valid) {
		/* Whose repetitions these are was lost with what came before. */
		r->sink.unattributable(r->sink.ctx, n);
		return 1;
	}
	first = last->repeats + 1;
	last->repeats += n;
	return r->sink.records(r->sink.ctx, last->fid, last->value, n, first) < 0 ? -1 : 1;
}

static int control(struct wpp_words *r, struct wpp_words_last *last, const uint64_t *w, size_t n)
{
	switch (wpp_ctrl_op(w[0])) {
	case WPP_CTRL_PAD:
		return 1;
	case WPP_CTRL_REPEAT:
		return repeat(r, last, wpp_ctrl_operand(w[0]));
	case WPP_CTRL_WIDE_PATH:
		if (n < 2)
			return malformed(r, last, "wide path record cut short", 1);
		if (!(w[1] & WPP_WIDE_ID_MARK))
			return malformed(r, last, "wide path id without its mark bit", 2);
		if (wpp_ctrl_operand(w[0]) == WPP_FID_CONTROL)
			return malformed(r, last, "wide path record naming the control fid", 2);
		return record(r, last, wpp_ctrl_operand(w[0]), w[1] & ~WPP_WIDE_ID_MARK, 2);
	case WPP_CTRL_GAP:
		forget_all(r);
		if (n < 2)
			return malformed(r, last, "gap marker without its count", 1);
		r->sink.gap(r->sink.ctx, w[1]);
		return 2;
	default:
		return malformed(r, last, "unknown control word", 1);
	}
}

int wpp_words_step(struct wpp_words *r, const uint64_t *w, size_t n, uint32_t depth)
{
	struct wpp_words_last *last =
	    depth == r->depth && depth < WPP_WORDS_DEPTHS ? &r->last[depth] : enter(r, depth);

	if (w[0] == 0)
		return 1;
	if (wpp_word_fid(w[0]) != WPP_FID_CONTROL)
		return record(r, last, wpp_word_fid(w[0]), wpp_word_payload(w[0]), 1);
	return control(r, last, w, n);
}

int wpp_words_feed(struct wpp_words *r, const uint64_t *w, size_t n, uint32_t depth)
{
	size_t i = 0;

	while (i < n) {
		int took = wpp_words_step(r, w + i, n - i, depth);
		if (took < 0)
			return -1;
		i += (size_t)took;
	}
	return 0;
}
