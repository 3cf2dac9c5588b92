/* SPDX-License-Identifier: MIT */
/*
 * wppfile_batch.h — BATCH_Z chunks (wpp/wpp_file.h): a batch's words
 * compressed by word_codec.h, with a head that says whose words they are
 * and how many even when the rest of the chunk is damaged.
 *
 * The recorder packs (record_sink), the loaders unpack (user/decode/
 * trace_file.c, `wpptrace info`): every reader goes through here, so they
 * agree on what a valid chunk is.
 */
#ifndef WPP_WPPFILE_BATCH_H
#define WPP_WPPFILE_BATCH_H

#include <stdint.h>

#include "word_codec.h"
#include "wpp/wpp_file.h"

/* No BATCH_Z holds more words than a BATCH chunk could: a crafted word
 * count cannot make a reader allocate more than one chunk's worth. */
#define WPP_BATCH_Z_MAX_WORDS (WPP_CHUNK_MAX_PAYLOAD / 8)

/* Code b's words into *head (complete, head CRC set) and *packed (owned by
 * e, valid until its next use).  0; 1 when compressing does not pay (the
 * caller writes a plain BATCH); -1 when out of memory. */
int wpp_batch_z_pack(struct wc_encoder *e, const struct wpp_chunk_batch *b, const uint64_t *words,
		     struct wpp_chunk_batch_z *head, const void **packed);

/* Check a BATCH_Z payload's head (its CRC, word count, packed length
 * against len): 0 with *head filled, or -1 with *why.  Needs only the
 * head's bytes to be intact, so it also names the words a damaged chunk
 * lost. */
int wpp_batch_z_head(const void *payload, uint32_t len, struct wpp_chunk_batch_z *head,
		     const char **why);

/* Decode the words of a payload whose head passed wpp_batch_z_head into
 * out (head->batch.nwords words).  0, or -1 with *why. */
int wpp_batch_z_words(struct wc_decoder *d, const struct wpp_chunk_batch_z *head,
		      const void *payload, uint64_t *out, const char **why);

#endif
