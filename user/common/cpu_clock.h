/* SPDX-License-Identifier: MIT */
/*
 * cpu_clock.h — how much CPU this process has used, for the commands that
 * time their own work (grammar builds, `wpp --from-raw`), and the
 * monotonic clock the collectors and the file writer keep their deadlines
 * by.
 */
#ifndef WPP_CPU_CLOCK_H
#define WPP_CPU_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds (inline: the drains read it per pass and
 * the writer per chunk, and the objects that read it link no clock .o). */
static inline uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* CPU seconds (user + system, all threads) this process has used. */
double process_cpu_seconds(void);

#endif
