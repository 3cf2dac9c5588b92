/* SPDX-License-Identifier: MIT */
/*
 * kslab_words.c — raw trace words -> k-path items and marks (see
 * kslab_words.h).
 */
#include "kslab_words.h"

#include "wpp/trace_abi.h"

void kslab_words_init(struct kslab_words *r, struct kslab_words_sink sink)
{
	*r = (struct kslab_words){.sink = sink};
}

static void forget_all(struct kslab_words *r)
{
	for (unsigned d = 0; d < KSLAB_WORDS_DEPTHS; d++)
		r->last[d].valid = 0;
}

void kslab_words_gap(struct kslab_words *r)
{
	forget_all(r);
	r->sink.mark(r->sink.ctx);
}

/* `times` records of (fid, value). */
static int emit(struct kslab_words *r, uint32_t fid, uint64_t value, uint64_t times)
{
	if (fid == 0 || fid == WPP_FID_UNREGISTERED) {
		/* Whose path this is is unknown: it cannot be part of a k-path. */
		r->sink.mark(r->sink.ctx);
		return 0;
	}
	return r->sink.items(r->sink.ctx, fid, value, times);
}

/* A record as written: what a following REPEAT repeats. */
static int record(struct kslab_words *r, struct kslab_words_last *last, uint32_t fid,
		  uint64_t value)
{
	if (last)
		*last = (struct kslab_words_last){.value = value, .fid = fid, .valid = 1};
	return emit(r, fid, value, 1);
}

/* Malformed input: a mark, and nothing before it can be repeated. */
static void corrupt(struct kslab_words *r, struct kslab_words_last *last)
{
	if (last)
		last->valid = 0;
	r->sink.mark(r->sink.ctx);
}

static int repeat(struct kslab_words *r, struct kslab_words_last *last, uint32_t n)
{
	if (n == 0) {
		corrupt(r, last);
		return 0;
	}
	if (!last || !last->valid) {
		/* Whose repetitions these are was lost with what came before. */
		r->unattributed += n;
		r->sink.mark(r->sink.ctx);
		return 0;
	}
	r->repeats += n;
	return emit(r, last->fid, last->value, n);
}

int kslab_words_feed(struct kslab_words *r, const uint64_t *w, size_t n, uint32_t depth)
{
	struct kslab_words_last *last = depth < KSLAB_WORDS_DEPTHS ? &r->last[depth] : NULL;

	/* A handler entered anew has nothing to repeat at its depth or deeper
	 * (the decoder's rule); coming back out keeps the outer level's. */
	for (uint32_t d = r->depth + 1; d <= depth && d < KSLAB_WORDS_DEPTHS; d++)
		r->last[d].valid = 0;
	r->depth = depth;
	for (size_t i = 0; i < n; i++) {
		uint64_t word = w[i];
		int rc = 0;

		if (word == 0)
			continue;
		if (wpp_word_fid(word) != WPP_FID_CONTROL) {
			rc = record(r, last, wpp_word_fid(word), wpp_word_payload(word));
		} else {
			switch (wpp_ctrl_op(word)) {
			case WPP_CTRL_PAD:
				break;
			case WPP_CTRL_WIDE_PATH:
				if (i + 1 == n) {
					corrupt(r, last);
					break;
				}
				i++;
				if (w[i] & WPP_WIDE_ID_MARK)
					rc = record(r, last, wpp_ctrl_operand(word),
						    w[i] & ~WPP_WIDE_ID_MARK);
				else
					corrupt(r, last);
				break;
			case WPP_CTRL_REPEAT:
				rc = repeat(r, last, wpp_ctrl_operand(word));
				break;
			case WPP_CTRL_GAP:
				if (i + 1 < n)
					i++;
				kslab_words_gap(r);
				break;
			default:
				corrupt(r, last);
				break;
			}
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int flat_items(void *ctx, uint32_t fid, uint64_t value, uint64_t times)
{
	/* Most records come one at a time: keep their path short. */
	return times == 1 ? kslab_item(ctx, fid, value) : kslab_item_run(ctx, fid, value, times);
}

static void flat_mark(void *ctx)
{
	kslab_mark(ctx);
}

struct kslab_words_sink kslab_flat_sink(struct kslab *s)
{
	return (struct kslab_words_sink){.items = flat_items, .mark = flat_mark, .ctx = s};
}
