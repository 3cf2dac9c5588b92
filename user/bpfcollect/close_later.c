/* SPDX-License-Identifier: MIT */
/*
 * close_later.c — a closer that outlives the caller (close_later.h).
 */
#include "bpfcollect/close_later.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_FDS	    64
#define STACK_BYTES (64u << 10)

struct closer {
	int fds[MAX_FDS]; /* ascending */
	size_t n;
};

/* Every descriptor in [lo, hi] (hi may be ~0u: all above lo). */
static void close_span(unsigned lo, unsigned hi)
{
	if (lo > hi)
		return;
	if (syscall(SYS_close_range, lo, hi, 0) == 0)
		return;
	/* No close_range (before Linux 5.9; uprobe_multi links need 6.6). */
	for (unsigned fd = lo; fd <= hi && fd < 4096; fd++)
		syscall(SYS_close, fd);
}

/* The closer: system calls only (it shares the caller's memory, thread
 * pointer included, and runs while the caller goes on and exits). */
static int closer_main(void *arg)
{
	const struct closer *cl = arg;
	uint64_t all = ~0ull;
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, sizeof(all));
	unsigned next = 0;
	for (size_t i = 0; i < cl->n; i++) {
		if ((unsigned)cl->fds[i] > next)
			close_span(next, (unsigned)cl->fds[i] - 1);
		next = (unsigned)cl->fds[i] + 1;
	}
	close_span(next, ~0u);
	for (size_t i = 0; i < cl->n; i++)
		syscall(SYS_close, cl->fds[i]);
	return 0;
}

static void close_all(const int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		close(fds[i]);
}

int close_later(const int *fds, size_t n)
{
	if (n == 0)
		return 0;
	if (n > MAX_FDS) {
		close_all(fds, n);
		return -E2BIG;
	}
	/* The closer's stack and arguments; never unmapped (the caller may
	 * exit at once): 64 KB left mapped in a caller that lives on. */
	unsigned char *mem = mmap(NULL, STACK_BYTES, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (mem == MAP_FAILED) {
		int err = -errno;
		close_all(fds, n);
		return err;
	}
	struct closer *cl = (struct closer *)mem;
	cl->n = n;
	memcpy(cl->fds, fds, n * sizeof(*fds));
	for (size_t i = 1; i < n; i++) /* insertion sort: n <= 64 */
		for (size_t j = i; j > 0 && cl->fds[j - 1] > cl->fds[j]; j--) {
			int t = cl->fds[j];
			cl->fds[j] = cl->fds[j - 1];
			cl->fds[j - 1] = t;
		}
	/* No CLONE_FILES: the closer's descriptor table is a copy.  Exit
	 * signal 0: nobody is told when it ends. */
	int pid = clone(closer_main, mem + STACK_BYTES, CLONE_VM, cl);
	if (pid < 0) {
		int err = -errno;
		munmap(mem, STACK_BYTES);
		close_all(fds, n);
		return err;
	}
	/* Ours go now; the closer's copies keep the links until it closes
	 * them. */
	close_all(fds, n);
	return 0;
}
