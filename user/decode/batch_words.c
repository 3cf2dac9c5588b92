/* SPDX-License-Identifier: MIT */
/*
 * batch_words.c — decoded BATCH_Z chunks on demand, in a bounded cache
 * (see batch_words.h).
 */
#include "decode/batch_words.h"

#include <inttypes.h>
#include <stdlib.h>

#include "common/log.h"
#include "common/wppfile_batch.h"

struct wpp_chunk_cache {
	size_t budget;
	struct wc_decoder *dec;
	struct wpp_packed_chunk *newest, *oldest; /* the decoded chunks */
	struct wpp_chunk_cache_stats stats;
};

struct wpp_chunk_cache *wpp_chunk_cache_new(size_t budget)
{
	struct wpp_chunk_cache *c = calloc(1, sizeof(*c));

	if (c)
		c->budget = budget;
	return c;
}

static void unlink_chunk(struct wpp_chunk_cache *c, struct wpp_packed_chunk *ch)
{
	if (ch->newer)
		ch->newer->older = ch->older;
	else
		c->newest = ch->older;
	if (ch->older)
		ch->older->newer = ch->newer;
	else
		c->oldest = ch->newer;
	ch->newer = ch->older = NULL;
}

static void link_newest(struct wpp_chunk_cache *c, struct wpp_packed_chunk *ch)
{
	ch->older = c->newest;
	ch->newer = NULL;
	if (c->newest)
		c->newest->newer = ch;
	else
		c->oldest = ch;
	c->newest = ch;
}

static uint64_t decoded_bytes(const struct wpp_packed_chunk *ch)
{
	return (ch->total_words + 1) * sizeof(uint64_t);
}

static void evict(struct wpp_chunk_cache *c, struct wpp_packed_chunk *ch)
{
	unlink_chunk(c, ch);
	free(ch->words);
	ch->words = NULL;
	c->stats.bytes -= decoded_bytes(ch);
}

void wpp_chunk_cache_free(struct wpp_chunk_cache *c)
{
	if (!c)
		return;
	while (c->oldest)
		evict(c, c->oldest);
	wc_decoder_free(c->dec);
	free(c);
}

const struct wpp_chunk_cache_stats *wpp_chunk_cache_stats(const struct wpp_chunk_cache *c)
{
	return &c->stats;
}

/* Least recently used first, pinned chunks skipped, until the unpinned
 * fit the budget (pinned ones count: they are memory all the same). */
static void shrink(struct wpp_chunk_cache *c)
{
	struct wpp_packed_chunk *ch = c->oldest;

	while (ch && c->stats.bytes > c->budget) {
		struct wpp_packed_chunk *next = ch->newer;
		if (!ch->pins)
			evict(c, ch);
		ch = next;
	}
}

static void decode(struct wpp_packed_chunk *ch)
{
	struct wpp_chunk_cache *c = ch->cache;
	struct wpp_chunk_batch_z z;
	uint64_t total;
	const char *why;

	if (wpp_batch_z_check(ch->payload, ch->length, ch->length, &z, &total, &why) < 0 ||
	    total != ch->total_words)
		wpp_die("BATCH_Z chunk at offset %" PRIu64 " changed since it was loaded",
			ch->file_offset);
	ch->words = malloc(decoded_bytes(ch));
	if (!ch->words || (!c->dec && !(c->dec = wc_decoder_new())))
		wpp_die("out of memory decoding a BATCH_Z chunk");
	if (wpp_batch_z_words(c->dec, &z, ch->payload, total, ch->words, &why) < 0)
		wpp_die("BATCH_Z chunk at offset %" PRIu64 " decoded when loaded, not now: %s",
			ch->file_offset, why);
	c->stats.decodes++;
	c->stats.bytes += decoded_bytes(ch);
	link_newest(c, ch);
	shrink(c);
	if (c->stats.bytes > c->stats.peak_bytes)
		c->stats.peak_bytes = c->stats.bytes;
}

const unsigned char *wpp_batch_words_get(const struct wpp_batch_ref *b)
{
	struct wpp_packed_chunk *ch = b->packed;

	if (b->words || !ch)
		return b->words;
	ch->pins++; /* before decoding: shrink() must not take it */
	if (!ch->words) {
		decode(ch);
	} else {
		ch->cache->stats.hits++;
		unlink_chunk(ch->cache, ch);
		link_newest(ch->cache, ch);
	}
	return (const unsigned char *)(ch->words + b->packed_at);
}

void wpp_batch_words_put(const struct wpp_batch_ref *b)
{
	struct wpp_packed_chunk *ch = b->packed;

	if (b->words || !ch || !ch->pins)
		return;
	/* Unpinned, it counts against the budget from now on. */
	if (!--ch->pins && ch->cache->stats.bytes > ch->cache->budget)
		shrink(ch->cache);
}
