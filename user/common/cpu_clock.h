/* SPDX-License-Identifier: MIT */
/*
 * cpu_clock.h — how much CPU this process has used, for the commands that
 * time their own work (grammar builds, `wpp --from-raw`).
 */
#ifndef WPP_CPU_CLOCK_H
#define WPP_CPU_CLOCK_H

/* CPU seconds (user + system, all threads) this process has used. */
double process_cpu_seconds(void);

#endif
