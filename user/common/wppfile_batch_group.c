/* SPDX-License-Identifier: MIT */
/* wppfile_batch_group.c — writing BATCH_Z chunks (wppfile_batch.h): the
 * recorder's half, apart so that readers do not link the writer. */
#include "common/wppfile_batch.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct wpp_batch_group {
	struct wc_encoder *enc;
	/* struct wpp_chunk_batch_z, then the heads: the chunk's first piece */
	unsigned char *head;
	size_t head_cap;
	uint32_t nbatches;
	uint64_t words;
	int64_t allowance; /* wpp_batch_group_allow */
	int failed;
	/* what the last write wrote (wpp_batch_group_last) */
	const void *last_packed;
	uint32_t last_head_len, last_packed_len;
};

#define HEADS_OFFSET sizeof(struct wpp_chunk_batch_z)

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
	if (!g->nbatches) {
		wc_begin(g->enc);
		g->last_head_len = g->last_packed_len = 0;
	}
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

void wpp_batch_group_allow(struct wpp_batch_group *g, int64_t chunk_bytes, double min_gain)
{
	g->allowance = chunk_bytes;
	wc_encoder_min_gain(g->enc, min_gain);
}

int wpp_batch_group_write(struct wpp_batch_group *g, struct wpp_writer *w, uint64_t *bytes)
{
	struct wpp_chunk_batch_z z;
	const void *packed = NULL;
	size_t len = 0, head_len;
	uint32_t codec = 0;
	int err;

	if (!g->nbatches && !g->failed) {
		g->last_head_len = g->last_packed_len = 0; /* nothing written */
		return 0;
	}
	head_len = HEADS_OFFSET + (size_t)g->nbatches * sizeof(struct wpp_chunk_batch);
	if (!g->failed) {
		int64_t fixed = (int64_t)(sizeof(struct wpp_chunk_header) + head_len);
		int64_t room = g->allowance > fixed ? g->allowance - fixed : 0;
		packed = wc_finish_within(g->enc, room, &len, &codec);
	}
	if (!packed) {
		g->nbatches = 0;
		g->words = 0;
		g->failed = 0;
		return -ENOMEM;
	}
	z = (struct wpp_chunk_batch_z){
	    .nbatches = g->nbatches, .codec = codec, .packed_len = (uint32_t)len};
	memcpy(g->head, &z, sizeof(z));
	z.head_crc32c = wpp_batch_z_heads_crc(g->head, g->nbatches);
	memcpy(g->head, &z, sizeof(z));
	err = wppw_chunk2(w, WPP_CHUNK_BATCH_Z, g->head, (uint32_t)head_len, packed, (uint32_t)len);
	if (!err) {
		*bytes += sizeof(struct wpp_chunk_header) + head_len + len;
		g->last_packed = packed;
		g->last_head_len = (uint32_t)head_len;
		g->last_packed_len = (uint32_t)len;
	}
	g->nbatches = 0;
	g->words = 0;
	return err;
}

void wpp_batch_group_last(const struct wpp_batch_group *g, const void **head, uint32_t *head_len,
			  const void **packed, uint32_t *packed_len)
{
	*head = g->head;
	*head_len = g->last_head_len;
	*packed = g->last_packed;
	*packed_len = g->last_packed_len;
}
