/* SPDX-License-Identifier: MIT */
/*
 * perf_throttle.h — notice when the kernel throttles a sampling event.
 *
 * The kernel stops an event that overflows more than
 * kernel.perf_event_max_sample_rate / HZ times within one scheduler tick
 * and restarts it at a later tick.  A per-CPU event whose CPU idles with
 * its tick stopped (NO_HZ) sums every interrupt of the idle stretch into
 * one tick, so a short period gets throttled on idle CPUs, and the first
 * milliseconds of whatever runs next there go unsampled.  Missing samples
 * must not be silent: the kernel logs each throttle in the event's own
 * mmap ring (PERF_RECORD_THROTTLE), and with a BPF program attached
 * nothing else is written there, so a one-page ring per event is enough
 * to count them.  Re-setting the period restarts a throttled event at
 * once (the recorder does so right before it lets its program run).
 */
#ifndef WPP_BC_PERF_THROTTLE_H
#define WPP_BC_PERF_THROTTLE_H

#include <stddef.h>
#include <stdint.h>

struct perf_throttle_watch {
	void *ring; /* NULL: could not be mapped (counts stay 0) */
	size_t ring_bytes;
	uint64_t throttled; /* PERF_RECORD_THROTTLE records seen */
	uint64_t lost;	    /* records the ring had no room for (PERF_RECORD_LOST) */
};

/* Map the watch ring of sampling event fd.  0, or -errno (the watch then
 * stays empty and the event works as before). */
int perf_throttle_watch_open(struct perf_throttle_watch *w, int fd);
/* Count the records that arrived since the last call. */
void perf_throttle_watch_read(struct perf_throttle_watch *w);
void perf_throttle_watch_close(struct perf_throttle_watch *w);

/* Restart sampling event fd if throttled (set its period or frequency
 * again).  0 or -errno. */
int perf_throttle_rearm(int fd, uint64_t period_or_freq);

#endif
