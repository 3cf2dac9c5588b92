/* SPDX-License-Identifier: MIT */
/*
 * thread_loads.h — the collector side of the online worker: what each open
 * thread has queued, and whether its results are being dropped.
 *
 * A hash table keyed by (pid, tid, generation), so that the per-event
 * lookup costs the same with thousands of open threads as with one (it
 * was a linear scan).  All generations of one (pid, tid) hash alike, so
 * they lie in one probe run: a GAP chunk, which names no generation,
 * finds the newest open one there, as the assembler does (online.c).
 * Open addressing, linear probing, backward-shift deletion; entries are
 * individually allocated, so a pointer to one stays valid until it is
 * removed.  Iteration order is a pure function of the operations applied
 * (no addresses are hashed), so the worker's choices stay reproducible.
 */
#ifndef WPP_COLLECT_THREAD_LOADS_H
#define WPP_COLLECT_THREAD_LOADS_H

#include <stddef.h>
#include <stdint.h>

#include "collect/online.h"

struct worker_instance; /* online_worker.c: what the worker shares about one thread */

struct thread_load {
	struct wpp_thread_key key;
	uint64_t queued_bytes;
	int dropped;
	/* Shared with the worker until an EXIT or DROP item hands it over
	 * (then NULL here). */
	struct worker_instance *inst;
};

struct thread_loads {
	struct thread_load **slots; /* NULL: free */
	size_t mask;		    /* capacity - 1 (a power of two), or 0 before the first add */
	size_t count;
};

/* The entry of key, or NULL. */
struct thread_load *thread_loads_find(const struct thread_loads *tl,
				      const struct wpp_thread_key *key);
/* A new zeroed entry for key (which must be absent), or NULL without
 * memory. */
struct thread_load *thread_loads_add(struct thread_loads *tl, const struct wpp_thread_key *key);
/* The open entry of (pid, tid) with the highest generation, or NULL. */
struct thread_load *thread_loads_newest(const struct thread_loads *tl, uint32_t pid, uint32_t tid);
/* Remove and free t (an entry of tl). */
void thread_loads_remove(struct thread_loads *tl, struct thread_load *t);
/* Visit every entry (fn must not add or remove). */
void thread_loads_each(const struct thread_loads *tl, void (*fn)(struct thread_load *, void *),
		       void *arg);
/* Free every entry and the table. */
void thread_loads_free(struct thread_loads *tl);

#endif
