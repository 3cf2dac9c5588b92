/* SPDX-License-Identifier: MIT */
/* spin.c — two loops doing the same work per iteration, one three times
 * as long as the other, called alternately: cpu-clock samples must land on
 * them about 3:1 (tests/e2e/counters-sampling.sh).  With a second argument
 * it prints its own CPU time in ns at the end: an exact measure taken
 * without perf, for tests/e2e/counters-throttle.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;

/* 64 dependent xorshift-multiplies (not affine, so the compiler cannot
 * fold them into one) without a branch: one path record per 64
 * steps keeps the trace small (a record per step would overrun the rings).
 * The steps are statements, not nested expressions: STEP uses x twice, so
 * nesting it would expand to 2^64 copies and exhaust the compiler. */
#define STEP x = (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ul;
#define STEP8 STEP STEP STEP STEP STEP STEP STEP STEP
#define STEP64 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8 STEP8

__attribute__((noinline)) void spin_short(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++) {
		STEP64
	}
	sink = x;
}

__attribute__((noinline)) void spin_long(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < 3 * n; i++) {
		STEP64
	}
	sink = x;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
	for (unsigned long r = 0; r < rounds; r++) {
		spin_short(2000);
		spin_long(2000);
	}
	if (argc > 2) {
		struct timespec t;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
		printf("%llu\n", (unsigned long long)t.tv_sec * 1000000000ull + t.tv_nsec);
	}
	return 0;
}
