/* SPDX-License-Identifier: MIT */
/* exit() from deep inside a recursion, through a noreturn helper; an atexit
 * handler (instrumented code run by libc during exit) prints the summary.
 * Exit status is non-zero on purpose. */
#include <stdio.h>
#include <stdlib.h>

#include "corpus.h"

static uint32_t visited;
static uint32_t trail = CORPUS_HASH_INIT;

static void report(void)
{
	if (visited > 10)
		printf("atexit: visited=%u trail=%08x\n", visited, trail);
	else
		printf("atexit: few\n");
	fflush(stdout);
}

__attribute__((noreturn, noinline)) static void bail_out(int depth)
{
	trail = corpus_mix(trail, (uint32_t)depth);
	printf("bail out at depth %d\n", depth);
	exit(3);
}

__attribute__((noinline)) static int descend(int depth, uint32_t st)
{
	visited++;
	trail = corpus_mix(trail, st);
	if (depth == 12 && (st & 1))
		bail_out(depth);
	if (depth > 40)
		bail_out(-depth);
	uint32_t next = corpus_next(&st);
	if (next & 2)
		return descend(depth + 1, next) + 1;
	return descend(depth + 1, next ^ 1) + 2;
}

int main(void)
{
	atexit(report);
	int r = descend(0, corpus_seed());
	printf("not reached %d\n", r);
	return 0;
}
