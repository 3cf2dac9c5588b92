/* SPDX-License-Identifier: MIT */
/*
 * online_worker.h — online analyses run on a worker thread of the collector,
 * so that their cost never delays the thread that drains the transport.
 * Internal to user/collect: users reach it through wpp_online_add_worker()
 * and wpp_online_emit() (online.h).
 *
 * The collector thread copies each event (batch, gap, thread exit) into a
 * FIFO and returns; the only thing it ever waits for is the queue's mutex,
 * held for a pointer update.  The worker owns a complete assembler with its
 * own consumers and replays the FIFO through it in arrival order, so its
 * results are exactly those of the same consumers run synchronously.
 *
 * Memory is bounded: events are copied into one ring of max_queued_bytes
 * (mapped lazily, on huge pages, and mapped ahead of the collector by the
 * worker, so that first touches of memory do not land on the collector).
 * When an event does not fit, its thread's results are dropped, and so are
 * those of the open thread that has queued the most (the one the worker is
 * slowest on): nothing more of them is queued, their events still in the
 * FIFO are skipped by the worker, and a marker in the FIFO has the worker
 * close them without emitting.  Every other thread keeps
 * its results while the backlog drains.  Only when memory runs out does
 * the worker "give up" on every open thread (a marker; results emitted
 * after it are dropped).  The trace itself is never affected: every batch
 * is in the file, and readers rebuild a missing grammar from the batches.
 *
 * Consumers on the worker are closed with w == NULL and hand their chunks
 * to online_worker_emit(); the collector thread writes them to the file in
 * online_worker_write() (at thread exits) and online_worker_finish(), which
 * waits for the worker to empty the FIFO — the file is complete before it
 * is closed even if the worker fell behind.
 */
#ifndef WPP_COLLECT_ONLINE_WORKER_H
#define WPP_COLLECT_ONLINE_WORKER_H

#include "collect/online.h"

struct online_worker;

/* Starts the thread; NULL on failure (nothing left running). */
struct online_worker *online_worker_start(const struct wpp_online_consumer *consumers, size_t n,
					  uint64_t max_queued_bytes);
/* Collector side: queue an event (copied), never blocking on the worker. */
void online_worker_batch(struct online_worker *q, const struct wpp_chunk_batch *b,
			 const uint64_t *words);
/* A BATCH_Z payload (its batches, one thread's) in two pieces (the fixed
 * part and heads, the packed words), copied as it is and decoded by the
 * worker. */
void online_worker_packed(struct online_worker *q, const void *head, uint32_t head_len,
			  const void *packed, uint32_t packed_len);
void online_worker_gap(struct online_worker *q, const struct wpp_chunk_gap *g);
/* Progress while online_worker_finish waits (online.h). */
void online_worker_set_progress(struct online_worker *q, wpp_online_progress_fn fn, void *ctx);
void online_worker_thread_exit(struct online_worker *q, const struct wpp_thread_key *key);
/* Collector side: write the chunks emitted so far (w == NULL: keep them
 * for later).  0 or -errno. */
int online_worker_write(struct online_worker *q, struct wpp_writer *w);
/* Collector side: let the worker finish every queued event and close every
 * thread, then write all emitted chunks (w may be NULL: drop them).
 * 0 or -errno.  The thread is gone afterwards. */
int online_worker_finish(struct online_worker *q, struct wpp_writer *w);
/* Stops the thread if still running (results dropped) and frees. */
void online_worker_free(struct online_worker *q);

/* Worker side (from a consumer's thread_close): store a result chunk.
 * Takes ownership of payload (malloc'd). */
void online_worker_emit(struct online_worker *q, enum wpp_chunk_type type, void *payload,
			uint32_t len);

struct online_worker_stats {
	uint64_t queued_bytes_peak; /* largest backlog the collector handed over */
	int gave_up;		    /* some thread's results were dropped */
	uint64_t threads_dropped;   /* threads dropped one by one (backlog full) */
	uint64_t events_skipped;    /* worker: queued events of dropped threads not replayed */
	uint64_t drops_replayed;    /* worker: drop markers handled (threads closed unwanted) */
	int failed;		    /* the worker's assembler ran out of memory */
	uint64_t words_queued;	    /* collector: words of queued batches (packed or not) */
	uint64_t words_replayed;    /* worker: words of those it has replayed or skipped */
	double cpu_seconds;	    /* worker: its thread's CPU time, set as it ends */
};
/* Valid after online_worker_finish. */
const struct online_worker_stats *online_worker_stats(const struct online_worker *q);
/* Any time, from the collector side: the worker's two counters so far. */
void online_worker_progress(const struct online_worker *q, uint64_t *events_skipped,
			    uint64_t *drops_replayed);

#endif
