/* SPDX-License-Identifier: MIT */
/* rt_count_pages.c — touched pages of counter arrays from a pagemap (see
 * rt_count_pages.h). */
#include "runtime/rt_count_pages.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#define PM_PRESENT (UINT64_C(1) << 63)
#define PM_SWAPPED (UINT64_C(1) << 62)
#define BATCH	   8192u /* entries per read: 64 KiB, mapped (no signal stack holds it) */

static void give_up(struct rt_count_pages *p)
{
	if (p->fd >= 0)
		close(p->fd);
	if (p->e)
		munmap(p->e, BATCH * sizeof(*p->e));
	p->fd = -1;
	p->e = NULL;
	p->lo = p->n = 0;
}

void rt_count_pages_open(struct rt_count_pages *p, const char *pagemap)
{
	int saved_errno = errno;
	long size = sysconf(_SC_PAGESIZE);
	p->page_shift = 12;
	while (size > 0 && (UINT64_C(1) << p->page_shift) < (uint64_t)size)
		p->page_shift++;
	p->lo = p->n = 0;
	p->e = mmap(NULL, BATCH * sizeof(*p->e), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->e == MAP_FAILED) {
		p->e = NULL;
		p->fd = -1;
	} else if ((p->fd = open(pagemap, O_RDONLY | O_CLOEXEC)) < 0) {
		give_up(p);
	}
	errno = saved_errno;
}

uint64_t rt_count_pages_next(struct rt_count_pages *p, uint64_t from, uint64_t end)
{
	if (p->fd < 0 || from >= end)
		return from < end ? from : end;
	uint64_t page = from >> p->page_shift, last = (end - 1) >> p->page_shift;
	while (page <= last) {
		if (page < p->lo || page >= p->lo + p->n) {
			int saved_errno = errno;
			ssize_t got = pread(p->fd, p->e, BATCH * sizeof(*p->e),
					    (off_t)(page * sizeof(*p->e)));
			if (got < (ssize_t)sizeof(*p->e)) {
				/* unreadable (a kernel without pagemap, a
				 * sandbox): every page from here on */
				give_up(p);
				errno = saved_errno;
				return from;
			}
			errno = saved_errno;
			p->lo = page;
			p->n = (uint64_t)got / sizeof(*p->e);
		}
		uint64_t stop = p->lo + p->n - 1 < last ? p->lo + p->n - 1 : last;
		for (; page <= stop; page++)
			if (p->e[page - p->lo] & (PM_PRESENT | PM_SWAPPED)) {
				uint64_t at = page << p->page_shift;
				return at > from ? at : from;
			}
	}
	return end;
}

const void *rt_count_pages_next_here(void *ctx, const void *from, const void *end)
{
	uint64_t f = (uint64_t)(uintptr_t)from, e = (uint64_t)(uintptr_t)end;
	return (const char *)from + (rt_count_pages_next(ctx, f, e) - f);
}

void rt_count_pages_forget(struct rt_count_pages *p)
{
	p->lo = p->n = 0;
}

void rt_count_pages_close(struct rt_count_pages *p)
{
	int saved_errno = errno;
	give_up(p);
	errno = saved_errno;
}
