/* SPDX-License-Identifier: MIT */
/*
 * rt_process.c — who this process is: pid, parent, start time, executable
 * and argv, read once per process image (and again in a fork child).  Uses
 * only open/read/readlink so it is safe in a fork child and from
 * constructors, before malloc may be trusted.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "runtime/rt_internal.h"

struct rt_process rt_proc;
__thread struct rt_process *rt_proc_override;

uint32_t rt_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

uint64_t rt_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static ssize_t read_file(const char *path, char *buf, size_t cap)
{
	ssize_t n, total = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((size_t)total < cap && (n = read(fd, buf + total, cap - (size_t)total)) > 0)
		total += n;
	close(fd);
	return total;
}

/* Field 22 of /proc/self/stat: exec keeps it, a reused pid does not. */
static uint64_t start_ticks(void)
{
	char buf[1024];
	ssize_t n = read_file("/proc/self/stat", buf, sizeof(buf) - 1);
	uint64_t v = 0;
	char *p;

	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	for (int field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p)
		return 0;
	for (p++; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (uint64_t)(*p - '0');
	return v;
}

void rt_process_identify(struct rt_process *p, uint32_t parent_tid, uint32_t flags)
{
	ssize_t n;

	p->pid = (uint32_t)getpid();
	p->ppid = (uint32_t)getppid();
	p->parent_tid = parent_tid;
	p->flags = flags;
	p->generation = 0;
	p->start_ticks = start_ticks();
	n = readlink("/proc/self/exe", p->exe, sizeof(p->exe) - 1);
	p->exe[n > 0 ? n : 0] = 0;
	n = read_file("/proc/self/cmdline", p->cmdline, sizeof(p->cmdline));
	p->cmdline_len = n > 0 ? (uint32_t)n : 0;
}
