/* SPDX-License-Identifier: MIT */
/*
 * warm_heap.c — pre-faulted room at the top of the heap (warm_heap.h).
 */
#include "bpfcollect/warm_heap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define HUGE_BYTES (2u << 20)
/* glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit: the dynamic threshold rises
 * no higher, so a larger room would be a mapping of its own. */
#define LIFT_MAX (32u << 20)

int warm_heap_prepare(size_t bytes)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (bytes < 2 * page)
		return -EINVAL;
	if (bytes > LIFT_MAX)
		return -E2BIG;
	/* A mapped chunk of this size, freed, lifts the mmap threshold to it,
	 * so that the request below comes from the heap. */
	void *volatile lift = malloc(bytes); /* volatile: the pair is not elided */
	if (!lift)
		return -ENOMEM;
	free(lift);
	unsigned char *room = malloc(bytes - page);
	if (!room)
		return -ENOMEM;
	uintptr_t lo = ((uintptr_t)room + page - 1) & ~(uintptr_t)(page - 1);
	uintptr_t hi = ((uintptr_t)room + bytes - page) & ~(uintptr_t)(page - 1);
	int err = 0;
	if (hi > lo) {
		/* Huge pages where the range holds aligned ones (THP in
		 * "madvise" mode); the populate works without them too, 4 KB
		 * at a time but in one call, without a fault per page. */
		uintptr_t hlo = (lo + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1);
		uintptr_t hhi = hi & ~(uintptr_t)(HUGE_BYTES - 1);
		if (hhi > hlo)
			(void)madvise((void *)hlo, hhi - hlo, MADV_HUGEPAGE);
		if (madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) != 0)
			err = -errno;
	}
	/* Back to the top of the heap; below the trim threshold (twice the
	 * lifted mmap threshold), so it stays there. */
	free(room);
	return err;
}
