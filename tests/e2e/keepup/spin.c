/* SPDX-License-Identifier: MIT */
/*
 * spin SECONDS [MIN_ITERATIONS]: an idle loop that alternates two paths for
 * SECONDS, as a server's I/O thread polling for work does (issue 23: such a
 * thread wrote one word per iteration, gigabytes a second), and at least
 * MIN_ITERATIONS times: a check that needs a long trace gets one however
 * little CPU a loaded machine gives the loop.  Prints the iterations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned sink;

__attribute__((noinline)) static void poll_even(unsigned i)
{
	sink += i;
}

__attribute__((noinline)) static void poll_odd(unsigned i)
{
	sink ^= i;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 1.0);
	unsigned long long iters = 0, min_iters = argc > 2 ? strtoull(argv[2], NULL, 10) : 0;

	while (now() < end || iters < min_iters) {
		for (unsigned i = 0; i < 4096; i++) {
			if (i & 1)
				poll_odd(i);
			else
				poll_even(i);
		}
		iters += 4096;
	}
	printf("%llu iterations\n", iters);
	return 0;
}
