/* SPDX-License-Identifier: MIT */
/* wppfile_batch.c — reading BATCH_Z chunks (wppfile_batch.h). */
#include "common/wppfile_batch.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"

#define HEADS_OFFSET sizeof(struct wpp_chunk_batch_z)

uint32_t wpp_batch_z_heads_crc(const void *payload, uint32_t nbatches)
{
	const unsigned char *p = payload;
	uint32_t crc = wpp_crc32c(0, p, offsetof(struct wpp_chunk_batch_z, head_crc32c));
	return wpp_crc32c(crc, p + HEADS_OFFSET, (size_t)nbatches * sizeof(struct wpp_chunk_batch));
}

int wpp_batch_z_check(const void *payload, uint32_t len, uint64_t avail,
		      struct wpp_chunk_batch_z *z, uint64_t *total_words, const char **why)
{
	const unsigned char *p = payload;
	uint64_t heads_len, words = 0;

	if (avail > len)
		avail = len;
	if (avail < sizeof(*z)) {
		*why = "short payload";
		return -1;
	}
	memcpy(z, p, sizeof(*z));
	if (z->nbatches == 0 || z->nbatches > WPP_BATCH_Z_MAX_BATCHES) {
		*why = "batch count out of range";
		return -1;
	}
	heads_len = (uint64_t)z->nbatches * sizeof(struct wpp_chunk_batch);
	if (HEADS_OFFSET + heads_len > avail) {
		*why = "short payload";
		return -1;
	}
	if (z->head_crc32c != wpp_batch_z_heads_crc(p, z->nbatches)) {
		*why = "bad head checksum";
		return -1;
	}
	if (z->packed_len != len - HEADS_OFFSET - heads_len) {
		*why = "packed length does not match the chunk length";
		return -1;
	}
	for (uint32_t i = 0; i < z->nbatches; i++) {
		struct wpp_chunk_batch b;
		wpp_batch_z_head(payload, i, &b);
		words += b.nwords;
	}
	if (words > WPP_BATCH_Z_MAX_WORDS) {
		*why = "word count out of range";
		return -1;
	}
	*total_words = words;
	return 0;
}

int wpp_batch_z_head_ok(const void *payload, uint32_t len, uint64_t avail)
{
	struct wpp_chunk_batch_z z;
	uint64_t total;
	const char *why;

	return wpp_batch_z_check(payload, len, avail, &z, &total, &why) == 0;
}

void wpp_batch_z_head(const void *payload, uint32_t i, struct wpp_chunk_batch *b)
{
	memcpy(b, (const unsigned char *)payload + HEADS_OFFSET + (size_t)i * sizeof(*b),
	       sizeof(*b));
}

int wpp_batch_z_words(struct wc_decoder *d, const struct wpp_chunk_batch_z *z, const void *payload,
		      uint64_t total_words, uint64_t *out, const char **why)
{
	const unsigned char *p = payload;
	size_t at = HEADS_OFFSET + (size_t)z->nbatches * sizeof(struct wpp_chunk_batch);

	return wc_decode(d, z->codec, p + at, z->packed_len, out, (uint32_t)total_words, why);
}

void wpp_batch_z_walker_fini(struct wpp_batch_z_walker *w)
{
	wc_decoder_free(w->dec);
	free(w->words);
	w->dec = NULL;
	w->words = NULL;
	w->words_cap = 0;
}

/* Every batch of a payload whose heads passed the check, as a loss. */
static void walk_lost(struct wpp_batch_z_walker *w, const void *payload,
		      const struct wpp_chunk_batch_z *z, uint64_t offset)
{
	for (uint32_t i = 0; w->on_lost && i < z->nbatches; i++) {
		struct wpp_chunk_batch b;
		wpp_batch_z_head(payload, i, &b);
		w->on_lost(w->ctx, &b, offset);
	}
}

enum wpp_batch_z_walked wpp_batch_z_walk(struct wpp_batch_z_walker *w, const struct wpp_chunk *c,
					 uint64_t *total_words, const char **why)
{
	struct wpp_chunk_batch_z z;
	uint64_t total, at = 0;

	if (wpp_batch_z_check(c->payload, c->length, c->length, &z, &total, why) < 0)
		return WPP_BATCH_Z_REJECTED;
	if (total_words)
		*total_words = total;
	if (!w->dec && !(w->dec = wc_decoder_new()))
		goto no_memory;
	if (!w->words || total > w->words_cap) { /* (a group of empty batches too) */
		uint64_t *n = realloc(w->words, ((size_t)total + 1) * sizeof(*n));
		if (!n)
			goto no_memory;
		w->words = n;
		w->words_cap = total;
	}
	if (wpp_batch_z_words(w->dec, &z, c->payload, total, w->words, why) < 0) {
		walk_lost(w, c->payload, &z, c->file_offset);
		return WPP_BATCH_Z_LOST;
	}
	for (uint32_t i = 0; i < z.nbatches; i++) {
		struct wpp_chunk_batch b;
		wpp_batch_z_head(c->payload, i, &b);
		w->on_batch(w->ctx, &b, w->words + at, c->file_offset);
		at += b.nwords;
	}
	return WPP_BATCH_Z_DECODED;
no_memory:
	*why = "out of memory";
	return WPP_BATCH_Z_NO_MEMORY;
}

int wpp_batch_z_next(struct wpp_batch_z_walker *w, struct wpp_reader *r, struct wpp_chunk *c)
{
	struct wpp_chunk_batch_z z;

	if (wppr_next(r, c) == 1)
		return 1;
	/* A damaged compressed batch costs its own words only. */
	if (!wppr_next_damaged(r, c, WPP_CHUNK_BATCH_Z, wpp_batch_z_head_ok))
		return 0;
	memcpy(&z, c->payload, sizeof(z));
	walk_lost(w, c->payload, &z, c->file_offset);
	return 2;
}
