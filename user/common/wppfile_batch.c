/* SPDX-License-Identifier: MIT */
/* wppfile_batch.c — see wppfile_batch.h. */
#include "wppfile_batch.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"

struct wpp_batch_group {
	struct wc_encoder *enc;
	/* struct wpp_chunk_batch_z, then the heads: the chunk's first piece */
	unsigned char *head;
	size_t head_cap;
	uint32_t nbatches;
	uint64_t words;
	int failed;
};

#define HEADS_OFFSET sizeof(struct wpp_chunk_batch_z)

static uint32_t heads_crc(const unsigned char *payload, uint32_t nbatches)
{
	uint32_t crc = wpp_crc32c(0, payload, offsetof(struct wpp_chunk_batch_z, head_crc32c));
	return wpp_crc32c(crc, payload + HEADS_OFFSET,
			  (size_t)nbatches * sizeof(struct wpp_chunk_batch));
}

struct wpp_batch_group *wpp_batch_group_new(int level)
{
	struct wpp_batch_group *g = calloc(1, sizeof(*g));

	if (!g || !(g->enc = wc_encoder_new(level))) {
		free(g);
		return NULL;
	}
	return g;
}

void wpp_batch_group_free(struct wpp_batch_group *g)
{
	if (!g)
		return;
	wc_encoder_free(g->enc);
	free(g->head);
	free(g);
}

int wpp_batch_group_fits(const struct wpp_batch_group *g, const struct wpp_chunk_batch *b)
{
	struct wpp_chunk_batch first;

	if (g->words + b->nwords > WPP_BATCH_Z_MAX_WORDS / 2 ||
	    g->nbatches == WPP_BATCH_Z_MAX_BATCHES)
		return 0;
	if (!g->nbatches)
		return 1;
	memcpy(&first, g->head + HEADS_OFFSET, sizeof(first));
	return first.pid == b->pid && first.tid == b->tid && first.generation == b->generation;
}

int wpp_batch_group_add(struct wpp_batch_group *g, const struct wpp_chunk_batch *b,
			const uint64_t *words)
{
	size_t need = HEADS_OFFSET + ((size_t)g->nbatches + 1) * sizeof(*b);

	if (g->failed)
		return -1;
	if (need > g->head_cap) {
		size_t cap = g->head_cap ? g->head_cap * 2 : HEADS_OFFSET + 16 * sizeof(*b);
		while (cap < need)
			cap *= 2;
		unsigned char *n = realloc(g->head, cap);
		if (!n) {
			g->failed = 1;
			return -1;
		}
		g->head = n;
		g->head_cap = cap;
	}
	if (!g->nbatches)
		wc_begin(g->enc);
	if (wc_add(g->enc, words, b->nwords) < 0) {
		g->failed = 1;
		return -1;
	}
	memcpy(g->head + HEADS_OFFSET + (size_t)g->nbatches * sizeof(*b), b, sizeof(*b));
	g->nbatches++;
	g->words += b->nwords;
	return 0;
}

uint64_t wpp_batch_group_words(const struct wpp_batch_group *g)
{
	return g->words;
}

int wpp_batch_group_write(struct wpp_batch_group *g, struct wpp_writer *w, uint64_t *bytes)
{
	struct wpp_chunk_batch_z z;
	const void *packed = NULL;
	size_t len = 0, head_len;
	uint32_t codec = 0;
	int err;

	if (!g->nbatches && !g->failed)
		return 0;
	if (!g->failed)
		packed = wc_finish(g->enc, &len, &codec);
	if (!packed) {
		g->nbatches = 0;
		g->words = 0;
		g->failed = 0;
		return -ENOMEM;
	}
	head_len = HEADS_OFFSET + (size_t)g->nbatches * sizeof(struct wpp_chunk_batch);
	z = (struct wpp_chunk_batch_z){
	    .nbatches = g->nbatches, .codec = codec, .packed_len = (uint32_t)len};
	memcpy(g->head, &z, sizeof(z));
	z.head_crc32c = heads_crc(g->head, g->nbatches);
	memcpy(g->head, &z, sizeof(z));
	err = wppw_chunk2(w, WPP_CHUNK_BATCH_Z, g->head, (uint32_t)head_len, packed, (uint32_t)len);
	if (!err)
		*bytes += sizeof(struct wpp_chunk_header) + head_len + len;
	g->nbatches = 0;
	g->words = 0;
	return err;
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
	if (z->head_crc32c != heads_crc(p, z->nbatches)) {
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
