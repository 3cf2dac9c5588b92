/* SPDX-License-Identifier: MIT */
/*
 * count_mix.c — counting mode's runtime paths in one deterministic program
 * (tests/e2e/count-mode.sh): a function with 2^24 paths (a sparse array
 * range of 128 MiB of which a run touches a few pages: the drain and the
 * live snapshot read only those, rt_count_pages.h), one with 2^31 (more
 * than an array range takes: the runtime's hash) and one with few (a
 * small array range), run by the main thread, by threads that return or
 * leave through pthread_exit from instrumented code, by a signal handler
 * (tests/corpus/mix_paths.h, shared with ppp_mix.c), and by a fork child
 * whose inherited counts must not be counted twice.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mix_paths.h"

__attribute__((noinline)) static uint32_t many_paths(uint32_t x)
{
	r = 0;
	BRANCH_CHAIN24(r, x)
	return r;
}

/* external: the optimizer may not assume its callers leave bits of x zero
 * and drop their branches */
__attribute__((noinline)) uint32_t huge_paths(uint32_t x);
__attribute__((noinline)) uint32_t huge_paths(uint32_t x)
{
	r = 0;
	BRANCH_CHAIN31(r, x)
	return r;
}

/* 8 bits of s, every third branch of many_paths: 256 paths spread over
 * its whole range (few pages touched); huge_paths gets 12 bits. */
static uint32_t spread(uint32_t s)
{
	uint32_t x = 0;
	for (int i = 0; i < 8; i++)
		x |= ((s >> i) & 1u) << (3 * i);
	return x;
}

__attribute__((noinline)) static uint32_t few_paths(uint32_t x)
{
	return x % 3 ? x * 7 : x + 1;
}

static void work(uint32_t seed, int n)
{
	uint32_t s = seed;
	for (int i = 0; i < n; i++) {
		s = step(s);
		sink +=
		    many_paths(spread(s >> 8)) + huge_paths((s >> 20) << 19) + few_paths(s >> 20);
	}
}

int main(void)
{
	mix_run();
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		work(5, 7000); /* on top of the parent's counts, inherited */
		raise(SIGUSR1);
		exit(0);
	}
	int status;
	waitpid(child, &status, 0);
	work(9, 3000);
	printf("done %u\n", (unsigned)(WIFEXITED(status) ? WEXITSTATUS(status) : 99));
	return 0;
}
