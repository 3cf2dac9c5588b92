/* SPDX-License-Identifier: MIT */
/* wppfile_batch.c — see wppfile_batch.h. */
#include "wppfile_batch.h"

#include <stddef.h>
#include <string.h>

#include "crc32c.h"

static uint32_t head_crc(const struct wpp_chunk_batch_z *h)
{
	return wpp_crc32c(0, h, offsetof(struct wpp_chunk_batch_z, head_crc32c));
}

int wpp_batch_z_pack(struct wc_encoder *e, const struct wpp_chunk_batch *b, const uint64_t *words,
		     struct wpp_chunk_batch_z *head, const void **packed)
{
	size_t len;
	uint32_t codec;

	if (b->nwords > WPP_BATCH_Z_MAX_WORDS)
		return 1;
	*packed = wc_encode(e, words, b->nwords, &len, &codec);
	if (!*packed)
		return -1;
	/* Random words can code bigger than they are: keep them plain. */
	if (len + sizeof(*head) >= (size_t)b->nwords * 8 + sizeof(*b))
		return 1;
	memset(head, 0, sizeof(*head));
	head->batch = *b;
	head->codec = codec;
	head->packed_len = (uint32_t)len;
	head->head_crc32c = head_crc(head);
	return 0;
}

int wpp_batch_z_head(const void *payload, uint32_t len, struct wpp_chunk_batch_z *head,
		     const char **why)
{
	if (len < sizeof(*head)) {
		*why = "short payload";
		return -1;
	}
	memcpy(head, payload, sizeof(*head));
	if (head->head_crc32c != head_crc(head)) {
		*why = "bad head checksum";
		return -1;
	}
	if (head->batch.nwords > WPP_BATCH_Z_MAX_WORDS) {
		*why = "word count out of range";
		return -1;
	}
	if (head->packed_len != len - sizeof(*head)) {
		*why = "packed length does not match the chunk length";
		return -1;
	}
	return 0;
}

int wpp_batch_z_words(struct wc_decoder *d, const struct wpp_chunk_batch_z *head,
		      const void *payload, uint64_t *out, const char **why)
{
	return wc_decode(d, head->codec, (const unsigned char *)payload + sizeof(*head),
			 head->packed_len, out, head->batch.nwords, why);
}
