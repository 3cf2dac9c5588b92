/* SPDX-License-Identifier: MIT */
/*
 * ppp_mix.c — preferential path counting in one deterministic program
 * (tests/e2e/ppp-mode.sh).  Its input picks which paths run, so a
 * recording of one input gives an interesting set that another input
 * leaves paths outside of (residual paths):
 *
 *   ./prog train   the inputs the set is recorded from
 *   ./prog field   the same and more: more bits reach many_paths, and
 *                  rare() takes branches train never takes
 *
 * many_paths has 2^31 Ball-Larus paths (the runtime's hash in counting
 * mode; preferential numbering in ppp mode: its interesting paths are
 * few), few_paths and rare a handful (Ball-Larus arrays unless every
 * function is forced to PPP).  Threads (one leaving through pthread_exit)
 * and a signal handler count too (tests/corpus/mix_paths.h, shared with
 * count_mix.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mix_paths.h"

static volatile uint32_t mask = 0x0f0f; /* the bits of x many_paths sees (volatile:
					 * many_paths must not learn which) */

/* 2^31 paths, more than an array range takes (2^29); external: the
 * optimizer may not assume its callers leave high bits of x zero and drop
 * their branches */
__attribute__((noinline)) uint32_t many_paths(uint32_t x);
__attribute__((noinline)) uint32_t many_paths(uint32_t x)
{
	r = 0;
	BRANCH_CHAIN31(r, x)
	return r;
}

__attribute__((noinline)) static uint32_t few_paths(uint32_t x)
{
	if (x % 3) {
		__asm__ volatile(""); /* a branch, not a select */
		return x * 7;
	}
	return x + 1;
}

static int field;

__attribute__((noinline)) static uint32_t rare(uint32_t x)
{
	if (field && x % 97 == 0)
		return x / 3; /* never in training */
	if (x % 5 == 0)
		return x + 2;
	return x;
}

static void work(uint32_t seed, int n)
{
	uint32_t s = seed;
	for (int i = 0; i < n; i++) {
		s = step(s);
		sink += many_paths((s >> 8) & mask) + few_paths(s >> 20) + rare(s >> 12);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "train") && strcmp(argv[1], "field"))) {
		fprintf(stderr, "usage: ppp_mix train|field\n");
		return 2;
	}
	field = !strcmp(argv[1], "field");
	if (field)
		mask = 0x1f3f;
	mix_run();
	work(9, 3000);
	printf("done\n"); /* (sink: threads race on it) */
	return 0;
}
