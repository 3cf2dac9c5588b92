/* SPDX-License-Identifier: MIT */
/*
 * batch_words.h — the words of a loaded trace's batches, on demand.
 *
 * A BATCH chunk's words are read where they lie, in the reader's copy of
 * the file.  A BATCH_Z chunk stays compressed there (a recording of 0.03
 * to 0.4 bytes per record would be 8 bytes per record decoded: a 362 M
 * record run, 2.9 GB) and is decoded when a reader first asks for one of
 * its batches, into a cache of decoded chunks that the trace owns:
 *
 *  - wpp_batch_words_get() pins the batch's chunk (decoding it if it is
 *    not in the cache) and returns its words; wpp_batch_words_put() unpins
 *    it.  A pinned chunk is never evicted, so a reader may hold the words
 *    of every batch it is walking (the decoder holds one at a time).
 *  - Unpinned chunks stay while the decoded words of all cached chunks fit
 *    in WPP_CHUNK_CACHE_BYTES; past that the least recently used go.  So
 *    memory is the file, plus that budget, plus the chunks pinned (one
 *    chunk holds at most WPP_BATCH_Z_MAX_WORDS / 2 words as the recorder
 *    packs them).
 *
 * Readers walk a thread's batches in stream order, and the recorder puts
 * the batches of one thread written at one moment in one chunk, so a walk
 * decodes each chunk once; a signal handler's batches spliced into a
 * parent come back to the parent's chunk while it is still cached.
 *
 * The loader decoded every chunk once to check it (a chunk whose words do
 * not decode is a gap, wppfile_batch.h): a chunk that fails here after
 * passing then is a bug or a machine error, and ends the program.  Not
 * thread-safe: one trace, one thread.
 */
#ifndef WPP_DECODE_BATCH_WORDS_H
#define WPP_DECODE_BATCH_WORDS_H

#include <stddef.h>
#include <stdint.h>

#include "decode/trace_file.h"

#define WPP_CHUNK_CACHE_BYTES (32u << 20)

/* One BATCH_Z chunk of the file, kept compressed (trace_file.c). */
struct wpp_packed_chunk {
	const void *payload; /* in the reader's copy of the file */
	uint32_t length;
	uint64_t total_words;
	uint64_t file_offset;
	struct wpp_chunk_cache *cache;
	/* Decoded at load for good (wpp_trace_load(): the refs' words point
	 * here), or NULL. */
	uint64_t *kept;
	/* Cache state: the decoded words (NULL when not cached), readers
	 * holding them, and the place in the cache's recency list. */
	uint64_t *words;
	uint32_t pins;
	struct wpp_packed_chunk *newer, *older;
};

struct wpp_chunk_cache_stats {
	uint64_t decodes;    /* chunks decoded (again, after an eviction) */
	uint64_t hits;	     /* gets served from the cache */
	uint64_t bytes;	     /* decoded words held now */
	uint64_t peak_bytes; /* most held at once */
};

/* budget: bytes of decoded words to keep unpinned.  NULL when out of
 * memory. */
struct wpp_chunk_cache *wpp_chunk_cache_new(size_t budget);
/* Frees every decoded chunk (none may be pinned). */
void wpp_chunk_cache_free(struct wpp_chunk_cache *c);
const struct wpp_chunk_cache_stats *wpp_chunk_cache_stats(const struct wpp_chunk_cache *c);

/* b's nwords little-endian words (maybe unaligned), valid until the
 * matching wpp_batch_words_put(b).  A batch whose words are at hand
 * (b->words: BATCH chunks, BATCH_Z ones decoded at load) needs no cache. */
const unsigned char *wpp_batch_words_get(const struct wpp_batch_ref *b);
void wpp_batch_words_put(const struct wpp_batch_ref *b);

#endif
