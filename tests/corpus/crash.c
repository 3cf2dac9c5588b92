/* SPDX-License-Identifier: MIT */
/* Dies of SIGSEGV in the middle of a path, deep in a call chain, with trace
 * words still unpublished in its buffer: the collector must salvage them.
 * stdout is flushed before the fault so output stays comparable. */
#include <stdio.h>

#include "corpus.h"

static volatile int *volatile null_target;
static uint32_t trail = CORPUS_HASH_INIT;

__attribute__((noinline)) static void note(int depth)
{
	trail = corpus_mix(trail, (uint32_t)depth);
	if (depth == 0) {
		printf("crashing: trail=%08x\n", trail);
		fflush(stdout);
	}
}

__attribute__((noinline)) static void crash_here(int depth)
{
	if (depth > 0) {
		note(depth);
		crash_here(depth - 1);
		return;
	}
	note(0);
	/* Still inside the path that began after note(): it never ends. */
	if (trail & 1)
		trail += 3;
	else
		trail ^= 5;
	*null_target = (int)trail;
}

int main(void)
{
	uint32_t st = corpus_seed();
	for (int i = 0; i < 50; i++)
		trail = corpus_mix(trail, corpus_next(&st));
	printf("before: %08x\n", trail);
	fflush(stdout);
	crash_here(6);
	printf("not reached\n");
	return 0;
}
