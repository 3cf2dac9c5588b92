/* SPDX-License-Identifier: MIT */
/*
 * count_mix.c — counting mode's runtime paths in one deterministic program
 * (tests/e2e/count-mode.sh): a function with 16384 paths (counted through
 * the runtime's hash) and one with few (an array range), run by the main
 * thread, by threads that return or leave through pthread_exit from
 * instrumented code, by a signal handler (tests/corpus/mix_paths.h, shared
 * with ppp_mix.c), and by a fork child whose inherited counts must not be
 * counted twice.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define MIX_BRANCHES 14 /* 16384 paths */
#include "mix_paths.h"

__attribute__((noinline)) static uint32_t few_paths(uint32_t x)
{
	return x % 3 ? x * 7 : x + 1;
}

static void work(uint32_t seed, int n)
{
	uint32_t s = seed;
	for (int i = 0; i < n; i++) {
		s = step(s);
		sink += many_paths(s >> 8) + few_paths(s >> 20);
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
