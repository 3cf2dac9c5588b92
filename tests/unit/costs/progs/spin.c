/* SPDX-License-Identifier: MIT */
/* spin.c — two loops doing the same work per iteration, one three times
 * as long as the other, called alternately: cpu-clock samples must land on
 * them about 3:1 (tests/e2e/counters-sampling.sh).  Each call lasts several
 * sampling periods, and the length varies from round to round: a fixed
 * round that happened to be a small multiple of the period would put every
 * sample at the same few phases of it (a CI run saw 5:1 that way, with
 * 0.19 ms calls and a 0.5 ms period).  With a second argument
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
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 20;
	for (unsigned long r = 0; r < rounds; r++) {
		/* 16000..23999 iterations (~1.5..2.2 ms for spin_short here):
		 * after the first round, each round 81 iterations shorter than
		 * the one before (7919 = -81 mod 8000), so no two are alike and
		 * the sampling phase drifts across them. */
		unsigned long n = 16000 + (r * 7919) % 8000;
		spin_short(n);
		spin_long(n);
	}
	if (argc > 2) {
		struct timespec t;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
		printf("%llu\n", (unsigned long long)t.tv_sec * 1000000000ull + t.tv_nsec);
	}
	return 0;
}
