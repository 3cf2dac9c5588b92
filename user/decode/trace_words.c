/* SPDX-License-Identifier: MIT */
/*
 * trace_words.c — raw trace words -> records, repeats, gaps and malformed
 * items (see trace_words.h).
 */
#include "decode/trace_words.h"

#include <string.h>

void wpp_words_init(struct wpp_words *r, struct wpp_words_sink sink)
{
	*r = (struct wpp_words){.sink = sink};
}

void wpp_words_lost(struct wpp_words *r)
{
	for (unsigned d = 0; d < WPP_WORDS_DEPTHS; d++)
		r->last[d].valid = 0;
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

static int malformed(struct wpp_words_last *last, struct wpp_word_item *it, const char *why,
		     uint32_t nwords)
{
	if (last)
		last->valid = 0;
	*it = (struct wpp_word_item){.kind = WPP_WORD_MALFORMED, .why = why, .nwords = nwords};
	return (int)nwords;
}

static int record(struct wpp_words_last *last, struct wpp_word_item *it, uint32_t fid,
		  uint64_t value, int nwords)
{
	if (last)
		wpp_words_remember(last, fid, value);
	*it = (struct wpp_word_item){
	    .kind = WPP_WORD_RECORDS, .fid = fid, .value = value, .times = 1};
	return nwords;
}

static int repeat(struct wpp_words_last *last, struct wpp_word_item *it, uint32_t n)
{
	if (n == 0)
		return malformed(last, it, "repeat count of zero", 1);
	if (!last || !last->valid) {
		/* Whose repetitions these are was lost with what came before. */
		*it = (struct wpp_word_item){.kind = WPP_WORD_UNATTRIBUTABLE, .times = n};
		return 1;
	}
	*it = (struct wpp_word_item){.kind = WPP_WORD_RECORDS,
				     .fid = last->fid,
				     .value = last->value,
				     .times = n,
				     .first_repeat = last->repeats + 1};
	last->repeats += n;
	return 1;
}

int wpp_words_read_slow(struct wpp_words *r, const uint64_t *w, size_t n, uint32_t depth,
			struct wpp_word_item *it)
{
	struct wpp_words_last *last =
	    depth == r->depth && depth < WPP_WORDS_DEPTHS ? &r->last[depth] : enter(r, depth);

	if (wpp_wet_is_value_word(w[0])) {
		uint32_t nwords = w[0] == WPP_WET_ESCAPE && n >= 2 ? 2 : 1;
		*it = (struct wpp_word_item){.kind = WPP_WORD_VALUE, .nwords = nwords};
		return (int)nwords;
	}
	if (wpp_word_fid(w[0]) != WPP_FID_CONTROL)
		return record(last, it, wpp_word_fid(w[0]), wpp_word_payload(w[0]), 1);
	if (w[0] == 0) {
		*it = (struct wpp_word_item){.kind = WPP_WORD_NOTHING};
		return 1;
	}
	switch (wpp_ctrl_op(w[0])) {
	case WPP_CTRL_PAD:
		*it = (struct wpp_word_item){.kind = WPP_WORD_NOTHING};
		return 1;
	case WPP_CTRL_REPEAT:
		return repeat(last, it, wpp_ctrl_operand(w[0]));
	case WPP_CTRL_WIDE_PATH:
		if (n < 2)
			return malformed(last, it, "wide path record cut short", 1);
		if (!(w[1] & WPP_WIDE_ID_MARK))
			return malformed(last, it, "wide path id without its mark bit", 2);
		if (wpp_ctrl_operand(w[0]) == WPP_FID_CONTROL)
			return malformed(last, it, "wide path record naming the control fid", 2);
		return record(last, it, wpp_ctrl_operand(w[0]), w[1] & ~WPP_WIDE_ID_MARK, 2);
	case WPP_CTRL_GAP:
		wpp_words_lost(r);
		if (n < 2)
			return malformed(last, it, "gap marker without its count", 1);
		*it = (struct wpp_word_item){.kind = WPP_WORD_GAP, .times = w[1]};
		return 2;
	default:
		return malformed(last, it, "unknown control word", 1);
	}
}

void wpp_words_gap(struct wpp_words *r, uint64_t lost_words)
{
	wpp_words_lost(r);
	r->sink.gap(r->sink.ctx, lost_words);
}

int wpp_words_feed_one(struct wpp_words *r, const uint64_t *w, size_t n, uint32_t depth)
{
	const struct wpp_words_sink *k = &r->sink;
	struct wpp_word_item it;
	int taken = wpp_words_read(r, w, n, depth, &it);

	switch (it.kind) {
	case WPP_WORD_NOTHING:
	case WPP_WORD_VALUE:
		break;
	case WPP_WORD_RECORDS:
		if (k->records(k->ctx, it.fid, it.value, it.times, it.first_repeat) < 0)
			return -1;
		break;
	case WPP_WORD_GAP:
		k->gap(k->ctx, it.times);
		break;
	case WPP_WORD_MALFORMED:
		k->malformed(k->ctx, it.why, it.nwords);
		break;
	case WPP_WORD_UNATTRIBUTABLE:
		k->unattributable(k->ctx, it.times);
		break;
	}
	return taken;
}

int wpp_words_feed(struct wpp_words *r, const uint64_t *w, size_t n, uint32_t depth)
{
	for (size_t i = 0; i < n;) {
		int taken = wpp_words_feed_one(r, w + i, n - i, depth);
		if (taken < 0)
			return -1;
		i += (size_t)taken;
	}
	return 0;
}

static void count_item(const struct wpp_word_item *it, struct wpp_word_counts *c)
{
	switch (it->kind) {
	case WPP_WORD_RECORDS:
		if (it->first_repeat) {
			c->repeats++;
			c->repetitions += it->times;
		} else {
			c->records++;
		}
		break;
	case WPP_WORD_UNATTRIBUTABLE:
		c->repeats++;
		c->repetitions += it->times;
		break;
	case WPP_WORD_MALFORMED:
		c->malformed++;
		break;
	case WPP_WORD_NOTHING:
	case WPP_WORD_GAP:
		c->control++;
		break;
	case WPP_WORD_VALUE:
		c->values++;
		break;
	}
}

void wpp_words_count(const unsigned char *p, uint64_t nwords, struct wpp_word_counts *c)
{
	enum { WINDOW = 1024 };
	uint64_t buf[WINDOW];
	struct wpp_words r;
	struct wpp_word_item it;

	wpp_words_init(&r, (struct wpp_words_sink){0});
	/* Words are copied a window at a time (the payload may be unaligned);
	 * a pair opened on a window's last word is read with the next window,
	 * so only the stream's own end cuts a pair short. */
	for (uint64_t i = 0; i < nwords;) {
		size_t n = nwords - i < WINDOW ? (size_t)(nwords - i) : WINDOW, j = 0;
		memcpy(buf, p + i * 8, n * 8);
		while (j < n) {
			if (j == n - 1 && i + n < nwords && wpp_word_opens_pair(buf[j]))
				break;
			j += (size_t)wpp_words_read(&r, buf + j, n - j, 0, &it);
			count_item(&it, c);
		}
		i += j;
	}
}
