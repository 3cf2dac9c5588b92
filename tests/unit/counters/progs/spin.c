/* SPDX-License-Identifier: MIT */
/* spin.c — two loops doing the same work per iteration, one three times
 * as long as the other, called alternately: cpu-clock samples must land on
 * them about 3:1 (tests/e2e/counters-sampling.sh). */
#include <stdlib.h>

static volatile unsigned long sink;

__attribute__((noinline)) void spin_short(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

__attribute__((noinline)) void spin_long(unsigned long n)
{
	unsigned long x = sink;
	for (unsigned long i = 0; i < 3 * n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 200;
	for (unsigned long r = 0; r < rounds; r++) {
		spin_short(200000);
		spin_long(200000);
	}
	return 0;
}
