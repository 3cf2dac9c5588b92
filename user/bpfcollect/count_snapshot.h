/* SPDX-License-Identifier: MIT */
/*
 * count_snapshot.h — a running process's path counters (counting mode,
 * -fwpp-mode=count), read through /proc/PID/mem without stopping it.
 *
 * Why this way (docs/design.md, "Live counts are read from the process's
 * memory"): the counters live in the process's private memory, and the
 * registry (wpp_registry.h, version 2) already leads a collector there;
 * reading it works the same for the shm and the BPF transport, needs no
 * BPF program and no cooperation from the process, and an aligned 8-byte
 * counter is read whole on x86-64.  What it sees is what the threads hold
 * now: the counts not yet drained into a trace stream (a thread's counts
 * leave memory when it exits).  Successive snapshots give deltas.
 *
 * The memory is hostile input: every count and size is bounded, a block
 * list that does not end or a descriptor that does not check out is
 * -EPROTO, never a crash or an endless loop.
 */
#ifndef WPP_BC_COUNT_SNAPSHOT_H
#define WPP_BC_COUNT_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct count_sample {
	uint32_t fid;
	uint64_t id; /* Ball-Larus path id */
	uint64_t count;
	uint32_t tid; /* count_snapshot_read_threads: the thread's; else 0 */
};

struct count_snapshot {
	struct count_sample *s; /* sorted by (fid, id), one per path, summed over threads */
	size_t n, cap;
	uint32_t threads;     /* live counting threads read */
	uint32_t hashes_busy; /* threads whose hash was being changed (not read) */
	/* threads that drained (or were draining) while their block was read:
	 * what was read of them may also be, or partly be, in a trace stream */
	uint32_t threads_draining;
	uint32_t tid_now; /* private: the block being read */
};

/* Read process pid's counters, given the registry's `counts` address
 * (registry_read's info.counts).  0, or -errno: -ENOENT (counts == 0: no
 * counting runtime), -ESRCH (gone), -EACCES/-EPERM, -EPROTO (memory that
 * does not describe counters), -ENOMEM. */
int count_snapshot_read(pid_t pid, uint64_t counts, struct count_snapshot *out);
/* The same, per thread: sorted by (tid, fid, id), one sample per path of
 * each thread (tid as the runtime published it in the block; 0 from a
 * runtime that does not). */
int count_snapshot_read_threads(pid_t pid, uint64_t counts, struct count_snapshot *out);
void count_snapshot_free(struct count_snapshot *s);

/* after - before, path by path (a counter drained in between counts from
 * zero: its delta is its new value); paths whose delta is 0 are left out. */
int count_snapshot_delta(const struct count_snapshot *before, const struct count_snapshot *after,
			 struct count_snapshot *delta);

#endif
