/* SPDX-License-Identifier: MIT */
/* churn.c — many path records (a loop whose path alternates every
 * iteration, so no run compresses it): a trace of many small batches that
 * a tiny ring drops in part (tests/e2e/counters-classes.sh). */
#include <stdlib.h>

static volatile unsigned long sink;

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000000, x = 1;
	for (unsigned long i = 0; i < n; i++) {
		if (i & 1)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		else
			x ^= x >> 17;
		sink = x;
	}
	return 0;
}
