/* SPDX-License-Identifier: MIT */
/*
 * path_records.h — how many path records a batch's words hold, the figure
 * bytes per record divide by (record's summary, the coder's bytes budget,
 * scripts/bench-drivers/bench_codec.c): one place, so that they agree.
 */
#ifndef WPP_PATH_RECORDS_H
#define WPP_PATH_RECORDS_H

#include <stdint.h>

/* Path records in words[0..n), a REPEAT counting the executions it adds:
 * every word that is not a control word is one record (a wide pair's
 * second word is its record; WET value words are none).  A figure for the
 * user, not a decoder: malformed words count as whatever they look like. */
uint64_t wpp_count_path_records(const uint64_t *words, uint32_t n);
/* Copy words[0..n) to dst (not overlapping) and count them as
 * wpp_count_path_records: one pass where a copy and a count were two (the
 * collector's match stage keeps a copy of each chunk's words). */
uint64_t wpp_copy_path_records(uint64_t *restrict dst, const uint64_t *restrict words, uint32_t n);

#endif
