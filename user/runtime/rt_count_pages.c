/* SPDX-License-Identifier: MIT */
/* rt_count_pages.c — touched pages of counter arrays from
 * /proc/self/pagemap (see rt_count_pages.h). */
#include "runtime/rt_count_pages.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#define PM_PRESENT (UINT64_C(1) << 63)
#define PM_SWAPPED (UINT64_C(1) << 62)

void rt_count_pages_open(struct rt_count_pages *p, const char *pagemap)
{
	int saved_errno = errno;
	long size = sysconf(_SC_PAGESIZE);
	p->page_shift = 12;
	while (size > 0 && (UINT64_C(1) << p->page_shift) < (uint64_t)size)
		p->page_shift++;
	p->lo = p->n = 0;
	p->fd = open(pagemap, O_RDONLY | O_CLOEXEC);
	errno = saved_errno;
}

int rt_count_pages_touched_at(struct rt_count_pages *p, uint64_t addr)
{
	uint64_t page = addr >> p->page_shift;

	if (p->fd < 0)
		return 1;
	if (page < p->lo || page >= p->lo + p->n) {
		int saved_errno = errno;
		ssize_t got = pread(p->fd, p->e, sizeof(p->e), (off_t)(page * sizeof(p->e[0])));
		errno = saved_errno;
		if (got < (ssize_t)sizeof(p->e[0])) {
			/* unreadable (a kernel without pagemap, a sandbox): read
			 * every page from here on */
			close(p->fd);
			p->fd = -1;
			errno = saved_errno;
			return 1;
		}
		p->lo = page;
		p->n = (uint64_t)got / sizeof(p->e[0]);
	}
	return (p->e[page - p->lo] & (PM_PRESENT | PM_SWAPPED)) != 0;
}

int rt_count_pages_touched(void *ctx, const void *addr)
{
	return rt_count_pages_touched_at(ctx, (uint64_t)(uintptr_t)addr);
}

void rt_count_pages_close(struct rt_count_pages *p)
{
	int saved_errno = errno;
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
	errno = saved_errno;
}
