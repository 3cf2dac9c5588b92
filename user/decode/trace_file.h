/* SPDX-License-Identifier: MIT */
/*
 * trace_file.h — a .wpp file loaded into memory: every intact chunk read
 * (wppfile.h reader), every payload validated, records grouped by process
 * image (pid, generation) and by thread.  The words of BATCH chunks are not
 * copied: they stay in the reader's copy of the file.  Those of BATCH_Z
 * chunks, loaded
 *  - by wpp_trace_load(): are decoded at load into buffers the trace owns
 *    (8 bytes a word), and every batch ref's `words` points at them;
 *  - by wpp_trace_load_on_demand(): stay compressed in the reader's copy,
 *    and are decoded when a reader asks (batch_words.h: wpp_batch_words_get
 *    and _put, through a bounded cache of decoded chunks), so memory
 *    follows the file, not the trace's length.  Their refs' `words` are
 *    NULL: for readers that go through the decoder (decoder.h) or
 *    batch_words.h only.
 * Either way loading decodes each BATCH_Z chunk once to check it: a
 * damaged BATCH_Z whose heads are intact (bad checksum, torn tail, or words
 * that do not decode) is a gap of exactly its batches' words (damaged_*),
 * and loading goes on after it.
 *
 * A chunk whose payload is malformed is skipped and counted (one warning per
 * chunk type).  A file that stops early (torn tail, bad checksum) loads what
 * is intact; `stop_reason` says where it stopped.
 */
#ifndef WPP_DECODE_TRACE_FILE_H
#define WPP_DECODE_TRACE_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wpp/wpp_file.h"

struct wpp_batch_ref {
	uint64_t seq;
	uint64_t parent_seq;
	uint32_t parent_off;
	uint32_t flags; /* enum wpp_batch_flags */
	uint64_t time_ns;
	uint32_t nwords;
	/* nwords little-endian words, maybe unaligned; NULL for a batch of a
	 * BATCH_Z chunk loaded on demand, whose words are the chunk's from
	 * word packed_at on (wpp_batch_words_get() reads every kind). */
	const unsigned char *words;
	struct wpp_packed_chunk *packed;
	uint32_t packed_at;
	uint64_t file_offset; /* of the chunk, for messages */
};

/* Word i of a batch whose words are at hand (b->words set: BATCH chunks,
 * the online assembler's copies). */
static inline uint64_t wpp_batch_word(const struct wpp_batch_ref *b, uint32_t i)
{
	uint64_t w;
	memcpy(&w, b->words + (size_t)i * 8, 8);
	return w; /* x86-64 only (see the brief): host order is little-endian */
}

struct wpp_gap_ref {
	uint64_t after_seq;
	uint64_t lost_words;
	uint64_t lost_batches;
};

struct wpp_thread_trace {
	uint32_t pid, generation, tid;
	struct wpp_batch_ref *batches; /* file order */
	size_t nbatches, batches_cap;
	struct wpp_gap_ref *gaps; /* file order */
	size_t ngaps, gaps_cap;
	uint64_t nwords;
	int started, exited; /* THREAD chunks seen */
};

struct wpp_process_rec {
	uint32_t pid, ppid, parent_tid, flags, generation;
	uint64_t time_ns;
	const char *exe;
	/* For a forked image: the parent's generation current when the child
	 * was recorded (the child inherits that image's modules). */
	uint32_t parent_generation;
};

struct wpp_module_rec {
	uint32_t pid, generation, fid_base, nfuncs;
	uint64_t tu_hash;
	uint8_t build_id[20];
	uint32_t build_id_len;
	const char *path;
	uint64_t load_bias; /* the object's load bias in the process (symbolizing addresses) */
	uint64_t meta_addr; /* run-time address of the metadata blob */
};

struct wpp_trace {
	char *path;
	struct wpp_reader *reader;
	struct wpp_process_rec *procs;
	size_t nprocs;
	struct wpp_module_rec *modules;
	size_t nmodules;
	struct wpp_thread_trace *threads; /* sorted by (pid, generation, tid) */
	size_t nthreads;
	char *info; /* INFO chunks concatenated (NUL-terminated), or NULL */
	int has_end;
	struct wpp_chunk_end end;
	uint64_t nchunks;
	uint64_t bad_chunks;	 /* payloads rejected */
	uint64_t unknown_chunks; /* types this reader does not know (skipped) */
	/* BATCH_Z chunks (docs/wpp-file-format.md), and the cache their words
	 * are decoded into on demand (batch_words.h). */
	struct wpp_packed_chunk **packed;
	size_t npacked, packed_cap;
	struct wpp_chunk_cache *cache;
	/* BATCH_Z chunks that were damaged (bad checksum, torn tail, or words
	 * that do not decode) but whose head named the thread and word count:
	 * each is a gap of its nwords in that thread. */
	uint64_t damaged_batches, damaged_words, first_damaged_offset;
	char stop_reason[192]; /* empty if the file ended with END */
	uint64_t stop_offset;  /* bytes of the file that were usable */
};

/* Load; NULL after printing one error line if the file is unusable. */
struct wpp_trace *wpp_trace_load(const char *path);
/* The same, BATCH_Z words decoded on demand (see above). */
struct wpp_trace *wpp_trace_load_on_demand(const char *path);
void wpp_trace_free(struct wpp_trace *t);

/* The PROCESS record of an image, or NULL. */
const struct wpp_process_rec *wpp_trace_process(const struct wpp_trace *t, uint32_t pid,
						uint32_t generation);

#endif
