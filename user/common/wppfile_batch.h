/* SPDX-License-Identifier: MIT */
/*
 * wppfile_batch.h — BATCH_Z chunks (wpp/wpp_file.h): the words of a few
 * batches of one thread compressed as one stream by word_codec.h, behind
 * heads that say whose words they are and how many even when the rest of
 * the chunk is damaged.
 *
 * The recorder packs (record_sink: a group of batches the collector wrote
 * at one moment), the readers unpack (user/decode/trace_file.c, `wpptrace
 * info`, the online grammar worker) with one walker (wpp_batch_z_walk,
 * wpp_batch_z_next): every reader goes through here, so they agree on
 * what a valid chunk is and on exactly which words a damaged one lost.
 */
#ifndef WPP_WPPFILE_BATCH_H
#define WPP_WPPFILE_BATCH_H

#include <stdint.h>

#include "common/word_codec.h"
#include "wpp/wpp_file.h"
#include "common/wppfile.h"

/* No BATCH_Z holds more words than a BATCH chunk could, nor more batches
 * than this: a crafted head cannot make a reader allocate more than one
 * chunk's worth. */
#define WPP_BATCH_Z_MAX_WORDS	(WPP_CHUNK_MAX_PAYLOAD / 8)
#define WPP_BATCH_Z_MAX_BATCHES 4096u

struct wpp_batch_group;

/* zstd level as wc_encoder_new takes it; NULL when out of memory. */
struct wpp_batch_group *wpp_batch_group_new(int level);
void wpp_batch_group_free(struct wpp_batch_group *g);
/* May b join the group (same thread image, room for its words)?  An empty
 * group takes any batch small enough for a BATCH_Z. */
int wpp_batch_group_fits(const struct wpp_batch_group *g, const struct wpp_chunk_batch *b);
/* Add a batch that fits: 0, or -1 when out of memory (the group is then
 * unusable until written, which fails). */
int wpp_batch_group_add(struct wpp_batch_group *g, const struct wpp_chunk_batch *b,
			const uint64_t *words);
/* wpp_batch_group_add, adding the batch's path records to *records
 * (wc_add_counted: in the same pass as the coder's copy where there is
 * one); *records unchanged on -1. */
int wpp_batch_group_add_counted(struct wpp_batch_group *g, const struct wpp_chunk_batch *b,
				const uint64_t *words, uint64_t *records);
/* Words in the group (0 also for a group of empty batches). */
uint64_t wpp_batch_group_words(const struct wpp_batch_group *g);
/* From now on a chunk may take up to chunk_bytes (its header and heads
 * included) when a coder cheaper than zstd makes it fit and saves at least
 * min_gain ns of CPU per byte it adds (wc_finish_within,
 * wc_encoder_min_gain); chunk_bytes 0, the default: zstd, the smallest. */
void wpp_batch_group_allow(struct wpp_batch_group *g, int64_t chunk_bytes, double min_gain);
/* Every chunk's first stage is the match stage (wc_encoder_match_stage:
 * codecs 4-6, a version 4 file); call before the first batch is added.
 * 0, or -1 when out of memory. */
int wpp_batch_group_match_stage(struct wpp_batch_group *g);
/* Every chunk's second stage is codec's (wc_encoder_force); call before the
 * first batch is added. */
void wpp_batch_group_force(struct wpp_batch_group *g, uint32_t codec);
/* Write the group as one BATCH_Z chunk (nothing when empty) and empty it;
 * *bytes grows by the chunk's size.  Pipelined, the chunk the coder
 * thread held is written and this group handed to it instead.  0 or
 * -errno. */
int wpp_batch_group_write(struct wpp_batch_group *g, struct wpp_writer *w, uint64_t *bytes);

/* Code on a second thread (on) or not: pipelined, a write hands the group
 * to the coder thread and returns, while the next group's tokens are made
 * here; the chunk is written, in order, by the next write or by
 * wpp_batch_group_sync.  0, or -1 when no thread could be started (the
 * mode is then unchanged).  Any mode at any time; the file is the same
 * sequence of chunks. */
int wpp_batch_group_pipeline(struct wpp_batch_group *g, int on);
int wpp_batch_group_pipelined(const struct wpp_batch_group *g);
/* Write the chunk the coder thread holds, if any (waiting for it): before
 * any other chunk, so that chunks keep their order.  0 or -errno. */
int wpp_batch_group_sync(struct wpp_batch_group *g, struct wpp_writer *w, uint64_t *bytes);

/* The heads' CRC (head_crc32c) of a payload with nbatches heads. */
uint32_t wpp_batch_z_heads_crc(const void *payload, uint32_t nbatches);
/* The chunk the last wpp_batch_group_write() or _sync() wrote, in its two pieces (the
 * fixed part and heads, the packed words); valid until the next
 * wpp_batch_group_add().  0 lengths when it wrote nothing (an empty
 * group). */
void wpp_batch_group_last(const struct wpp_batch_group *g, const void **head, uint32_t *head_len,
			  const void **packed, uint32_t *packed_len);
/* Check a BATCH_Z payload's heads (their CRC, counts, lengths against
 * len), of which avail bytes are present (a torn chunk): 0 with *z and
 * *total_words (the heads' words) set, or -1 with *why.  Needs only the
 * heads to be intact, so it also names the words a damaged chunk lost. */
int wpp_batch_z_check(const void *payload, uint32_t len, uint64_t avail,
		      struct wpp_chunk_batch_z *z, uint64_t *total_words, const char **why);
/* wpp_batch_z_check() as wppr_next_damaged() asks it: 1 if the heads of
 * the (maybe damaged) payload are intact. */
int wpp_batch_z_head_ok(const void *payload, uint32_t len, uint64_t avail);
/* Head i (< z->nbatches) of a payload that passed wpp_batch_z_check. */
void wpp_batch_z_head(const void *payload, uint32_t i, struct wpp_chunk_batch *b);
/* Decode the words of a whole, checked payload into out (total_words). */
int wpp_batch_z_words(struct wc_decoder *d, const struct wpp_chunk_batch_z *z, const void *payload,
		      uint64_t total_words, uint64_t *out, const char **why);

/*
 * The walker: a chunk's batches one by one, with their words, or — when
 * the chunk is damaged or its words do not decode but its heads are intact
 * — each batch's head as a loss of exactly its nwords words.
 */
struct wpp_batch_z_walker {
	/* A batch whose words decoded: its head and its b->nwords words
	 * (valid during the call).  chunk_offset: the chunk's, in the file. */
	void (*on_batch)(void *ctx, const struct wpp_chunk_batch *b, const uint64_t *words,
			 uint64_t chunk_offset);
	/* A batch whose words are lost (may be NULL). */
	void (*on_lost)(void *ctx, const struct wpp_chunk_batch *b, uint64_t chunk_offset);
	void *ctx;
	/* The walker's own: the decoder and one chunk's words, made on the
	 * first chunk; wpp_batch_z_walker_fini() frees them. */
	struct wc_decoder *dec;
	uint64_t *words;
	uint64_t words_cap;
};
void wpp_batch_z_walker_fini(struct wpp_batch_z_walker *w);

enum wpp_batch_z_walked {
	WPP_BATCH_Z_DECODED = 0,    /* every batch went to on_batch */
	WPP_BATCH_Z_LOST = 1,	    /* the words did not decode: every batch went to on_lost */
	WPP_BATCH_Z_REJECTED = -1,  /* the heads are not valid (*why): nothing was said */
	WPP_BATCH_Z_NO_MEMORY = -2, /* nothing was said */
};
/* Walk one whole BATCH_Z chunk (c->length bytes present).  *total_words
 * (may be NULL): the heads' words, set unless REJECTED. */
enum wpp_batch_z_walked wpp_batch_z_walk(struct wpp_batch_z_walker *w, const struct wpp_chunk *c,
					 uint64_t *total_words, const char **why);
/* wppr_next(), and where it stops at a damaged BATCH_Z whose heads are
 * intact (wppr_next_damaged), that chunk's losses through on_lost and
 * reading goes on after it.  1: an intact chunk in *c (a BATCH_Z one is
 * the caller's to walk); 2: a damaged BATCH_Z was said (*c has its header
 * fields; only its heads are in the file); 0: the end of what is usable
 * (wppr_status() says why). */
int wpp_batch_z_next(struct wpp_batch_z_walker *w, struct wpp_reader *r, struct wpp_chunk *c);

#endif
