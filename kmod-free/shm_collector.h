/* SPDX-License-Identifier: MIT */
/*
 * shm_collector.h — the collector half of the shared-memory transport: it
 * creates the region, drains every ring, notices processes and threads that
 * are gone, salvages what they left in their slots, and recycles table
 * entries.  What to do with the data is the caller's (struct wpp_shm_sink).
 *
 * Order guarantees given to the sink, per pass:
 *   a process is reported before any module, thread or batch of it;
 *   a module is reported before any batch published after its registration;
 *   a thread's START before its batches, its EXIT after its last batch;
 *   batches of one ring in publish order (seq ascending for level 0).
 * Not thread-safe: one drain loop owns a collector.
 *
 * The region is hostile ground (any traced process can write all of it):
 * the sink is only ever given the collector's own validated copies of
 * processes, modules and batch headers, and word pointers within the
 * batch's slot; a producer that breaks the protocol is cut off, counted
 * (totals.misbehaved) and queued for the caller to report
 * (wpp_shm_collector_cutoff), and the rest of the recording is unaffected.
 */
#ifndef WPP_SHM_COLLECTOR_H
#define WPP_SHM_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "kmod-free/shm_layout.h"
#include "kmod-free/shm_proto.h"

struct wpp_shm_sink {
	void *ctx;
	/* Return 0, or -errno to stop draining (e.g. the output disk is full). */
	int (*process)(void *ctx, const struct wpp_shm_proc *p);
	int (*module)(void *ctx, const struct wpp_shm_proc *p, const struct wpp_shm_tu *t);
	int (*thread)(void *ctx, const struct wpp_shm_proc *p, uint32_t tid, int event,
		      uint64_t time_ns);
	int (*batch)(void *ctx, const struct wpp_shm_proc *p, uint32_t tid,
		     const struct wpp_batch_hdr *hdr, const uint64_t *words, uint32_t nwords);
	int (*gap)(void *ctx, const struct wpp_shm_proc *p, uint32_t tid, uint64_t after_seq,
		   uint64_t lost_words);
	/* Optional (NULL: not told): an image is done, after its last batch
	 * and thread exit — replaced by an exec'd one (execed 1), or gone
	 * (0: how it ended is not the collector's to know). */
	void (*process_end)(void *ctx, const struct wpp_shm_proc *p, int execed);
};

struct wpp_shm_collector;

/* NULL with errno set on failure. */
struct wpp_shm_collector *wpp_shm_collector_create(const struct wpp_shm_options *o);
/* The value for the WPP_SHM environment variable of traced programs. */
const char *wpp_shm_collector_env(const struct wpp_shm_collector *c);
struct wpp_shm_header *wpp_shm_collector_header(struct wpp_shm_collector *c);

/* One pass: announce, drain, reap dead.  Returns batches consumed, or the
 * sink's negative error. */
long wpp_shm_collector_drain(struct wpp_shm_collector *c, const struct wpp_shm_sink *s);
/* Process images registered and not yet fully finished. */
unsigned wpp_shm_collector_live(const struct wpp_shm_collector *c);
/* Sleep until a producer rings the doorbell or timeout_ms passes (at once
 * if a ring holds an unconsumed slot).  Producers ring only when a ring is
 * half full or a batch is partial/final, so timeout_ms is the longest a
 * quiet thread's batch waits.  0 if the wait timed out, 1 otherwise. */
int wpp_shm_collector_wait(struct wpp_shm_collector *c, long timeout_ms);
/* End a wait now, or make the next one return at once if it already read
 * the doorbell: for news from outside the rings (a child exited); the
 * next pass also asks every process whether it is gone (without a nudge
 * it asks every 10 ms).  Async-signal-safe (atomic stores and a
 * FUTEX_WAKE; errno may change). */
void wpp_shm_collector_nudge(struct wpp_shm_collector *c);
/* Treat every remaining producer as dead: drain, salvage, report exits. */
long wpp_shm_collector_finish(struct wpp_shm_collector *c, const struct wpp_shm_sink *s);
/* Totals so far. */
struct wpp_shm_totals {
	uint64_t batches, words, salvaged_batches, lost_words, table_full;
	/* Producers cut off for breaking the protocol (shm_collector.c). */
	uint64_t misbehaved;
	/* The producers' own counts from the header (shm_proto.h): doorbells
	 * rung, waits for ring space and the waits that timed out, and waits
	 * for the collector to free a table entry. */
	uint64_t doorbell_wakes, space_waits, space_wait_timeouts, entry_waits;
};
/* The next producer cut off since the last call: 1 with its pid and a
 * short reason (a static string), or 0 when there is none to report. */
int wpp_shm_collector_cutoff(struct wpp_shm_collector *c, uint32_t *pid, const char **why);
void wpp_shm_collector_totals(const struct wpp_shm_collector *c, struct wpp_shm_totals *t);
void wpp_shm_collector_destroy(struct wpp_shm_collector *c);

#endif
