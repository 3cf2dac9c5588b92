/* SPDX-License-Identifier: MIT */
/* wppfile_batch.c — reading BATCH_Z chunks (wppfile_batch.h). */
#include "wppfile_batch.h"

#include <stddef.h>
#include <string.h>

#include "crc32c.h"

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
