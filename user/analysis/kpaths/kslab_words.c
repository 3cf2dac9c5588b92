/* SPDX-License-Identifier: MIT */
/*
 * kslab_words.c — raw trace words -> k-path items and marks (see
 * kslab_words.h).
 */
#include "analysis/kpaths/kslab_words.h"

static void mark(struct kslab_words *r)
{
	r->sink.mark(r->sink.ctx);
}

static int on_records(void *ctx, uint32_t fid, uint64_t value, uint64_t times,
		      uint64_t first_repeat)
{
	struct kslab_words *r = ctx;

	if (first_repeat)
		r->repeats += times;
	if (fid == WPP_FID_UNREGISTERED) {
		/* Whose path this is is unknown: it cannot be part of a k-path. */
		mark(r);
		return 0;
	}
	return r->sink.items(r->sink.ctx, fid, value, times);
}

static void on_gap(void *ctx, uint64_t lost_words)
{
	(void)lost_words;
	mark(ctx);
}

static void on_malformed(void *ctx, const char *why, uint32_t nwords)
{
	(void)why;
	(void)nwords;
	mark(ctx);
}

static void on_unattributable(void *ctx, uint64_t n)
{
	struct kslab_words *r = ctx;

	r->unattributed += n;
	mark(r);
}

void kslab_words_init(struct kslab_words *r, struct kslab_words_sink sink)
{
	*r = (struct kslab_words){.sink = sink};
	wpp_words_init(&r->words, (struct wpp_words_sink){.records = on_records,
							  .gap = on_gap,
							  .malformed = on_malformed,
							  .unattributable = on_unattributable,
							  .ctx = r});
}

int kslab_words_feed(struct kslab_words *r, const uint64_t *w, size_t n, uint32_t depth)
{
	return wpp_words_feed(&r->words, w, n, depth);
}

void kslab_words_gap(struct kslab_words *r)
{
	wpp_words_gap(&r->words, UINT64_MAX); /* count unknown here */
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
