/* SPDX-License-Identifier: MIT */
/*
 * wet_xorder.h — cross-thread memory dependences with a known order
 * (docs/wet.md, "Threads"): which other thread's store, if any, a load of
 * the thread whose WET is being built read, decided only where the
 * recording proves the order.
 *
 * The order the recording gives: every batch a thread publishes carries
 * CLOCK_MONOTONIC read by the runtime at publish (struct
 * wpp_chunk_batch.time_ns), and a thread's main-level words are written
 * after its previous main batch was published and before its own publish.
 * So every access lies in its batch's interval (lo, hi]: lo the previous
 * main batch's publish time (0 for a thread's first batch, a signal
 * handler's batch or a salvaged one), hi its own (the maximum when
 * unknown).  Access X is known to precede access Y when hi(X) + margin <
 * lo(Y); the margin covers a store still draining from its core's store
 * buffer when the clock was read.
 *
 * Contract
 *   - The other threads' stores go in first (wet_xorder_add, any order),
 *     then wet_xorder_seal; the thread being built then reports each batch
 *     it enters (wet_xorder_enter, main batches in publish order, signal
 *     batches whenever they are spliced in), each of its stores
 *     (wet_xorder_own_store), and asks per byte a load reads
 *     (wet_xorder_byte) whose write it saw.
 *   - The answer for a byte is the latest store to it among the thread's
 *     own (program order) and the other threads' (intervals) when that
 *     store is known to follow every other candidate and no other thread's
 *     store to the byte is concurrent with the load (neither before nor
 *     after it); otherwise UNKNOWN.  Never a store that is not provably
 *     the last.  A load in a signal handler's batch, whose interval starts
 *     at 0, is UNKNOWN on any byte another thread ever stores to.
 *   - Memory: one record of 56 bytes per other-thread store (at most
 *     max_stores; wet_xorder_add refuses more, and the caller falls back to
 *     answering unknown) and three shadows (wet_shadow.h) capped at
 *     shadow_bytes each: the other threads' latest known stores, the
 *     counts of concurrent stores per byte, and the batch of the thread's
 *     own last store per byte.  A dropped shadow page answers UNKNOWN.
 */
#ifndef WPP_WET_XORDER_H
#define WPP_WET_XORDER_H

#include <stddef.h>
#include <stdint.h>

/* The clock margin: orders closer than this are unknown. */
#define WET_XORDER_MARGIN_NS UINT64_C(1000)

/* One store of another thread. */
struct wet_xstore {
	uint64_t addr, lo, hi; /* hi: UINT64_MAX when unknown */
	uint64_t ts;	       /* its path execution in its thread (from 1) */
	uint32_t size, tid;
	uint32_t fid, stmt; /* function id, statement index in its TU's table */
	uint32_t amb;	    /* internal: stands for several unordered stores */
};

struct wet_xorder;

/* NULL when out of memory. */
struct wet_xorder *wet_xorder_new(size_t shadow_bytes, size_t max_stores);
void wet_xorder_free(struct wet_xorder *x);

/* One store of another thread.  0, or -1 when out of memory or past
 * max_stores. */
int wet_xorder_add(struct wet_xorder *x, const struct wet_xstore *s);
/* No more stores.  0, or -1 when out of memory. */
int wet_xorder_seal(struct wet_xorder *x);
/* Stores added (after seal, not counting internal records). */
size_t wet_xorder_stores(const struct wet_xorder *x);

/* The thread being built enters a batch with interval (lo, hi]; signal:
 * a signal handler's batch (lo is then 0 and the windows stay).  Main
 * batches come in publish order.  0, or -1 when out of memory. */
int wet_xorder_enter(struct wet_xorder *x, uint64_t lo, uint64_t hi, int signal);
/* The thread being built stored [addr, addr + size).  0, or -1. */
int wet_xorder_own_store(struct wet_xorder *x, uint64_t addr, uint64_t size);

enum wet_xorder_verdict {
	WET_X_OWN,     /* the thread's own last writer stands (or none) */
	WET_X_OTHER,   /* *other: another thread's store */
	WET_X_UNKNOWN, /* not provable */
};
/* What the thread's own shadow says of a byte. */
enum wet_xorder_own {
	WET_XOWN_NONE,	  /* nobody in the thread wrote it (no words lost since) */
	WET_XOWN_KNOWN,	  /* a store of the thread, reported by wet_xorder_own_store */
	WET_XOWN_UNKNOWN, /* lost or dropped */
};
/* Whose write the load of the byte at addr saw. */
enum wet_xorder_verdict wet_xorder_byte(const struct wet_xorder *x, uint64_t addr,
					enum wet_xorder_own own, const struct wet_xstore **other);

/* Bytes held (records and shadows). */
size_t wet_xorder_bytes(const struct wet_xorder *x);

#endif
