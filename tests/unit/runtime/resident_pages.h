/* SPDX-License-Identifier: MIT */
/*
 * resident_pages.h — how many pages of [p, p + bytes) are mapped, by
 * mincore: what the sparse counter arrays' tests (test_count_table,
 * test_count_snapshot) use to show that a drain or a snapshot read only
 * the pages a run wrote (rt_count_pages.h).  Include after cmocka.h.
 */
#ifndef WPP_TESTS_RESIDENT_PAGES_H
#define WPP_TESTS_RESIDENT_PAGES_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static uint64_t resident_pages(void *p, uint64_t bytes)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t npages = (bytes + page - 1) / page, n = 0;
	unsigned char *vec = malloc(npages);
	assert_non_null(vec);
	assert_int_equal(mincore(p, bytes, vec), 0);
	for (uint64_t i = 0; i < npages; i++)
		n += vec[i] & 1;
	free(vec);
	return n;
}

#endif
