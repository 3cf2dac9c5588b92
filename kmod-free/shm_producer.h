/* SPDX-License-Identifier: MIT */
/*
 * shm_producer.h — the producer half of the shared-memory transport, used by
 * libwpprt inside traced processes.
 *
 * Contract:
 *  - wpp_shm_attach() maps the region named by the collector (WPP_SHM).
 *  - wpp_shm_register_process() claims a process entry; when the pid already
 *    has a live entry with the same start time, this is an exec: the new
 *    image gets generation + 1 and the old entry is retired.
 *  - Each thread claims one wpp_shm_thread; each signal-nesting level of the
 *    thread has its own ring, so a handler never touches the ring of the code
 *    it interrupted (no lock, no re-entrancy hazard).
 *  - wpp_shm_ring_begin() returns the slot the level fills next, waiting
 *    (futex) while the ring is full: the transport never drops.  It returns
 *    NULL only when the collector is gone or the ring's tail is one no
 *    collector could have written (the caller then stops using the ring).
 *  - Nothing read from the region is trusted for memory safety: sizes,
 *    offsets and ring geometry are the client's copy (wpp_shm_attach), ring
 *    heads the lane's; every index read from the region is bounded.
 *  - wpp_shm_ring_publish() hands the slot over with a release store.
 * Ring operations make no allocation and only futex/kill syscalls, so they
 * are safe in signal handlers and in a fork child.
 */
#ifndef WPP_SHM_PRODUCER_H
#define WPP_SHM_PRODUCER_H

#include <stddef.h>
#include <stdint.h>

#include "kmod-free/shm_proto.h"

struct wpp_shm_client {
	struct wpp_shm_header *h;
	uint64_t mapped;
	uint32_t proc_index;
	uint32_t generation;
	struct wpp_shm_geometry g; /* our copy, fixed at attach */
	uint32_t collector_pid;	   /* likewise */
};

/* A thread's producer state, kept in the thread's own memory: its entry,
 * and the head of each of its rings, which it alone writes and therefore
 * never reads back from the region. */
struct wpp_shm_lane {
	struct wpp_shm_thread *t;
	uint32_t index; /* of t in the thread table */
	uint32_t reserved;
	uint64_t head[WPP_SHM_LEVELS];
};

struct wpp_shm_proc_info {
	uint32_t pid, ppid, parent_tid, flags;
	uint64_t start_ticks;
	const char *exe;
	const char *cmdline; /* NUL-separated */
	size_t cmdline_len;
};

struct wpp_shm_tu_info {
	uint32_t fid_base, nfuncs;
	uint64_t tu_hash, meta_addr, load_bias;
	const uint8_t *build_id;
	uint32_t build_id_len;
	const char *path;
};

/* 0 or -errno (-EPROTO: not a sealed region of this version). */
int wpp_shm_attach(struct wpp_shm_client *c, const char *path);
/* 0 or -ENOSPC (table full).  Sets c->proc_index and c->generation. */
int wpp_shm_register_process(struct wpp_shm_client *c, const struct wpp_shm_proc_info *p);
int wpp_shm_register_tu(struct wpp_shm_client *c, const struct wpp_shm_tu_info *t);
/* 0 with *lane set up, or -1 if the thread table is full (counted in
 * header->table_full). */
int wpp_shm_thread_open(struct wpp_shm_client *c, struct wpp_shm_lane *lane, uint32_t pid,
			uint32_t tid);
/* The thread is finishing; records after this are salvaged by the collector. */
void wpp_shm_thread_close(struct wpp_shm_lane *lane);
void wpp_shm_thread_lost(struct wpp_shm_lane *lane, uint64_t words);

struct wpp_batch_hdr *wpp_shm_ring_begin(struct wpp_shm_client *c, struct wpp_shm_lane *lane,
					 int level);
void wpp_shm_ring_publish(struct wpp_shm_client *c, struct wpp_shm_lane *lane, int level);

#endif
