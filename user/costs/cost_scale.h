/* SPDX-License-Identifier: MIT */
/*
 * cost_scale.h — estimating a multiplexed counter's full count.  When more
 * events are open than the PMU has counters, the kernel rotates them and
 * reports, with each reading, how long the event was enabled and how long
 * it actually ran; the estimate is count * enabled / running.  The
 * collector stores the raw readings (COUNTS chunks); the report scales.
 */
#ifndef WPP_REPORT_COST_SCALE_H
#define WPP_REPORT_COST_SCALE_H

#include <stdint.h>

/* running == 0: nothing was measured, 0.  running >= enabled: count as is.
 * Exact 128-bit arithmetic, rounded down, saturating at UINT64_MAX. */
uint64_t cost_scale(uint64_t count, uint64_t enabled, uint64_t running);

#endif
