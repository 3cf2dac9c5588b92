/* SPDX-License-Identifier: MIT */
/*
 * rt_count_pages.h — which pages of a thread's counter array were ever
 * written, so a drain reads only those (trace_abi.h, "Counting mode"); the
 * collector's live snapshots (user/bpfcollect/count_snapshot.c) link it
 * too and ask the same of another process's arrays.
 *
 * A function may own up to WPP_COUNT_ARRAY_MAX_PATHS counters (4 GiB of
 * address space) of which a run touches a few pages.  Reading an untouched
 * page would cost a fault and a page-table entry per 4 KiB and take
 * seconds over such a range, so the drain asks the kernel instead:
 * /proc/PID/pagemap says per page whether it is present or swapped out —
 * either way it was touched (a page never touched is neither; a page
 * handed back with MADV_DONTNEED reads zeros and is neither again).
 * mincore() is not used: it reports a swapped-out page as absent, and its
 * counts would be lost.  Entries are read 8192 at a time (32 MiB of
 * address space per read) and scanned in a tight loop, so skipping a 4 GiB
 * range costs 128 reads.
 *
 * Async-signal-safe (open, mmap, pread, close), errno left as it was.
 * Without a readable pagemap every page counts as touched: slower, never
 * wrong.
 */
#ifndef WPP_RT_COUNT_PAGES_H
#define WPP_RT_COUNT_PAGES_H

#include <stdint.h>

#include "runtime/rt_internal.h"

/* Arrays smaller than this are read whole: a pagemap lookup costs more. */
#define RT_COUNT_PAGES_MIN_BYTES (UINT64_C(1) << 20)

struct rt_count_pages {
	int fd;		     /* the pagemap, or -1: every page touched */
	uint64_t page_shift; /* log2 of the page size */
	uint64_t lo, n;	     /* pages [lo, lo + n) are in e */
	uint64_t *e;	     /* their pagemap entries (mapped, RT_COUNT_PAGES_BATCH) */
};

/* pagemap: "/proc/self/pagemap", or another process's. */
void rt_count_pages_open(struct rt_count_pages *p, const char *pagemap) RT_HIDDEN;
/* The lowest address in [from, end) whose page (of the pagemap's process)
 * was ever written — from itself when its own page was — or end. */
uint64_t rt_count_pages_next(struct rt_count_pages *p, uint64_t from, uint64_t end) RT_HIDDEN;
/* The same as an rt_count_touched_fn (rt_count_table.h), ctx being the
 * struct rt_count_pages of /proc/self/pagemap. */
const void *rt_count_pages_next_here(void *ctx, const void *from, const void *end) RT_HIDDEN;
/* Forget the entries read (pages written since are seen). */
void rt_count_pages_forget(struct rt_count_pages *p) RT_HIDDEN;
void rt_count_pages_close(struct rt_count_pages *p) RT_HIDDEN;

#endif
