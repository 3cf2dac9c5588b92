/* SPDX-License-Identifier: MIT */
/* clone_vm: children made with raw clone(), each on a stack of its own,
 * each running instrumented code (child_steps) before it returns:
 *   1. CLONE_VM|CLONE_VFORK: shares the parent's memory, parent suspended
 *      until the child is gone (the vfork case, without vfork);
 *   2. no CLONE_VM: a copy, like fork, but no pthread_atfork handler runs;
 *   3. CLONE_VM alone: shares memory and the calling thread's TLS, and
 *      runs while the parent does (the parent waits for it here, so the
 *      program's output is deterministic).
 * The parent works between the children, so a child that disturbed its
 * trace would show in the parent's own stream. */
#define _GNU_SOURCE /* clone */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corpus.h"

#define CHILD_STACK (256 * 1024)

/* noinline: the child's paths are its own function's, not main's.  Counts
 * the draws that fall in each third of the range, returns a mix of them. */
__attribute__((noinline)) static int child_steps(uint32_t st, int n)
{
	int low = 0, mid = 0;
	while (n-- > 0) {
		uint32_t r = corpus_next(&st) % 3;
		low += r == 0;
		mid += r == 1;
	}
	return (low * 3 + mid) & 0x7f;
}

/* The parent's own work between the children: a checksum whose update
 * depends on the draw's low bits. */
static uint32_t parent_work(uint32_t st, int rounds)
{
	uint32_t h = CORPUS_HASH_INIT;
	do {
		uint32_t r = corpus_next(&st);
		switch (r & 3) {
		case 0:
			h = corpus_mix(h, r);
			break;
		case 1:
			h += r >> 7;
			break;
		default:
			h ^= r;
		}
	} while (--rounds > 0);
	return h;
}

static int child_main(void *arg)
{
	int n = (int)(long)arg;
	return child_steps(corpus_seed() + (uint32_t)n, n);
}

/* clone a child with `flags` running child_steps(n); its exit status. */
static int run_clone(int flags, int n)
{
	char *stack = malloc(CHILD_STACK);
	int status = -1;

	if (!stack)
		return -1;
	fflush(stdout);
	pid_t pid = clone(child_main, stack + CHILD_STACK, flags | SIGCHLD, (void *)(long)n);
	if (pid > 0 && waitpid(pid, &status, 0) == pid)
		status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	free(stack);
	return status;
}

int main(void)
{
	uint32_t st = corpus_seed();

	printf("before: %08x\n", parent_work(st, 40));
	printf("clone vm+vfork: status %d\n", run_clone(CLONE_VM | CLONE_VFORK, 30));
	printf("between: %08x\n", parent_work(st ^ 7, 25));
	printf("clone copy: status %d\n", run_clone(0, 50));
	printf("between: %08x\n", parent_work(st ^ 5, 35));
	printf("clone vm: status %d\n", run_clone(CLONE_VM, 20));
	printf("after: %08x\n", parent_work(st ^ 9, 30));
	return 0;
}
