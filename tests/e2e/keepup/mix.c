/* SPDX-License-Identifier: MIT */
/*
 * mix [PHASES]: deterministic work of several shapes (a sort through a
 * callback, a data-dependent loop, a table-driven state machine) in
 * phases separated by short sleeps, so that a recording holds many
 * batches of varied words and the collector goes idle between phases
 * (several compressed chunks).  Prints a checksum.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static unsigned rng = 12345;
static unsigned next(void)
{
	rng = rng * 1103515245u + 12345u;
	return rng >> 8;
}

static int cmp(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

static unsigned collatz(unsigned n)
{
	unsigned steps = 0;
	while (n > 1) {
		n = n & 1 ? 3 * n + 1 : n / 2;
		steps++;
	}
	return steps;
}

static unsigned machine(unsigned seed)
{
	unsigned state = 0, acc = 0;
	for (int i = 0; i < 2000; i++) {
		seed = seed * 69069u + 1;
		switch (state) {
		case 0:
			state = seed & 1 ? 1 : 2;
			acc += 1;
			break;
		case 1:
			state = (seed >> 3) % 3;
			acc ^= seed;
			break;
		default:
			state = 0;
			acc += seed >> 7;
			break;
		}
	}
	return acc;
}

int main(int argc, char **argv)
{
	int phases = argc > 1 ? atoi(argv[1]) : 12;
	unsigned sum = 0, a[3000];

	for (int p = 0; p < phases; p++) {
		for (int i = 0; i < 3000; i++)
			a[i] = next() % (1000 + p * 100);
		qsort(a, 3000, sizeof(a[0]), cmp);
		for (int i = 0; i < 3000; i += 3)
			sum += collatz(a[i] + 1);
		for (int i = 0; i < 20; i++)
			sum ^= machine(sum + (unsigned)i);
		usleep(3000);
	}
	printf("%u\n", sum);
	return 0;
}
