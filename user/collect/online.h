/* SPDX-License-Identifier: MIT */
/*
 * online.h — analyses that run inside the collector while a trace is being
 * recorded (SEQUITUR(1) grammars, k-slab forests, ...), fed each thread's
 * words in execution order as batches arrive, not as a post-pass.
 *
 * Data flow: a transport (shm or BPF) hands every batch/gap/thread event to
 * the record sink, which writes it to the .wpp file and also passes it to
 * wpp_online_*(): an online stream assembler that reorders a thread's batches
 * by seq and splices signal batches at (parent_seq, parent_off) exactly as
 * the offline decoder does (user/decode/stream.c — one splice rule, shared
 * code), then calls every enabled consumer with the thread's words in order.
 * At thread exit (or at the end) each consumer writes its result as chunks.
 *
 * A consumer sees raw trace words (wpp/trace_abi.h): it needs no metadata;
 * a word (or a two-word wide record) names (fid, path id) by itself.  Gaps
 * reach consumers as gap() calls at their exact position, so no consumer
 * joins the two sides of a gap.
 */
#ifndef WPP_COLLECT_ONLINE_H
#define WPP_COLLECT_ONLINE_H

#include <stddef.h>
#include <stdint.h>

#include "wpp/wpp_file.h"

struct wpp_writer;

/* Identifies one thread of one process image. */
struct wpp_thread_key {
	uint32_t pid;
	uint32_t tid;
	uint32_t generation;
};

struct wpp_online_consumer {
	const char *name;
	/* Per-thread state; NULL = this consumer ignores the thread. */
	void *(*thread_open)(void *cfg, const struct wpp_thread_key *key);
	/* Words in execution order (main stream with signal batches spliced in).
	 * A two-word wide record is never split across calls. */
	void (*thread_words)(void *state, const uint64_t *words, size_t nwords);
	/* Words were lost here (count may be unknown: UINT64_MAX). */
	void (*thread_gap)(void *state, uint64_t lost_words);
	/* The thread ended (or the recording did): write results, free state.
	 * Returns 0 or -errno. */
	int (*thread_close)(void *state, struct wpp_writer *w, const struct wpp_thread_key *key);
	void *cfg;
	/* Optional: if set, called instead of thread_words with the words'
	 * signal depth (0 = main stream; each call holds words of one depth),
	 * for consumers that keep state per depth — WPP_CTRL_REPEAT repeats
	 * the previous record of the same depth (wpp/trace_abi.h). */
	void (*thread_words_at)(void *state, const uint64_t *words, size_t nwords, uint32_t depth);
};

struct wpp_online;

/* NULL on allocation failure.  consumers[] must outlive the assembler. */
struct wpp_online *wpp_online_new(const struct wpp_online_consumer *consumers, size_t n);
/* Feed what the transport delivered (any order across threads; a thread's
 * batches in any order).  words are copied if they must be held back. */
void wpp_online_batch(struct wpp_online *o, const struct wpp_chunk_batch *b, const uint64_t *words);
void wpp_online_gap(struct wpp_online *o, const struct wpp_chunk_gap *g);
/* A thread ended: deliver what is held for it, close its consumers. */
int wpp_online_thread_exit(struct wpp_online *o, const struct wpp_thread_key *key,
			   struct wpp_writer *w);
/* End of recording: close every remaining thread, in (pid, tid) order. */
int wpp_online_finish(struct wpp_online *o, struct wpp_writer *w);
void wpp_online_free(struct wpp_online *o);

/* Extensions (additive; see user/collect/online.c for the holding policy). */

/* Words one thread may hold back while waiting for a missing seq before
 * the assembler delivers around the hole (default 4 Mi words). */
void wpp_online_set_hold_limit(struct wpp_online *o, uint64_t words);

struct wpp_online_stats {
	uint64_t batches;		/* batches received */
	uint64_t words_delivered;	/* words handed to consumers */
	uint64_t gaps_delivered;	/* gap() calls per thread (explicit or holes) */
	uint64_t duplicate_batches;	/* a seq seen twice: the first one wins */
	uint64_t late_batches;		/* arrived after their place was delivered */
	uint64_t missing_seqs;		/* holes delivered as gaps of unknown size */
	uint64_t orphan_signal_batches; /* signal batches placed by their own seq */
	uint64_t forced_pieces;		/* deliveries made because of the hold limit */
};
const struct wpp_online_stats *wpp_online_stats(const struct wpp_online *o);

/*
 * Consumers on a worker thread (user/collect/online_worker.h).  The
 * collector thread only copies each event into a FIFO (at most
 * max_queued_bytes of backlog; past that the worker gives up and its
 * consumers' results for threads still open are dropped: readers rebuild
 * them from the batches).  They see exactly the events the assembler's own
 * consumers see, in the same order.  They are closed with w == NULL and
 * pass their chunks to wpp_online_emit(); wpp_online_thread_exit() writes
 * the chunks finished so far, wpp_online_finish() waits for the worker and
 * writes the rest.  One worker per assembler; 0 or -1.
 */
int wpp_online_add_worker(struct wpp_online *o, const struct wpp_online_consumer *consumers,
			  size_t n, uint64_t max_queued_bytes);
/*
 * Feeding the worker what the file holds (issue 23): after
 * wpp_online_set_worker_packed(), wpp_online_batch() feeds only the
 * assembler's own consumers, and the caller hands the worker every batch
 * as it is written — the payload of a BATCH_Z chunk in its two pieces
 * (wpp_online_worker_packed: the fixed part and heads, the compressed
 * words; copied as they are, so
 * the backlog holds compressed words and the worker decodes them) or a
 * raw batch (wpp_online_worker_batch) — in file order, before the gap or
 * thread exit that follows them.
 */
void wpp_online_set_worker_packed(struct wpp_online *o);
void wpp_online_worker_packed(struct wpp_online *o, const void *head, uint32_t head_len,
			      const void *packed, uint32_t packed_len);
void wpp_online_worker_batch(struct wpp_online *o, const struct wpp_chunk_batch *b,
			     const uint64_t *words);
/* While wpp_online_finish() waits for the worker: called every 20 ms with
 * the path words the worker has replayed, the words queued in all, and the
 * seconds waited.  A non-zero return abandons what is left: the worker
 * skips the rest of its backlog and emits nothing more (its status then
 * says it gave up; readers rebuild the grammars from the batches). */
typedef int (*wpp_online_progress_fn)(void *ctx, uint64_t words_done, uint64_t words_queued,
				      double seconds);
void wpp_online_set_progress(struct wpp_online *o, wpp_online_progress_fn fn, void *ctx);
/* From a worker consumer's thread_close: a finished chunk for the file
 * (payload malloc'd; ownership moves). */
void wpp_online_emit(struct wpp_online *o, enum wpp_chunk_type type, void *payload, uint32_t len);
/* After wpp_online_finish: 0 if the worker (if any) delivered every
 * result, 1 if it gave up on its backlog, -1 if it ran out of memory;
 * *peak_bytes = its largest backlog (untouched without a worker). */
int wpp_online_worker_status(const struct wpp_online *o, uint64_t *peak_bytes);
/* After wpp_online_finish: the CPU seconds the worker thread used, or -1
 * without a worker. */
double wpp_online_worker_cpu(const struct wpp_online *o);
/* Any time: how many queued events of dropped threads the worker has
 * skipped, and how many dropped threads it has closed (both 0 without a
 * worker). */
void wpp_online_worker_progress(const struct wpp_online *o, uint64_t *events_skipped,
				uint64_t *drops_replayed);

#endif
