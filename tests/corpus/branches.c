/* SPDX-License-Identifier: MIT */
/* if/else chains, nested loops with break/continue, do-while, and an
 * irreducible loop (a cycle with two entries, built with goto). */
#include <stdio.h>

#include "corpus.h"

static int classify(int x)
{
	if (x < -1000)
		return -2;
	else if (x < 0)
		return -1;
	else if (x == 0)
		return 0;
	else if (x < 10)
		return 1;
	else if (x < 100)
		return 2;
	else if ((x & 1) == 0)
		return 3;
	else
		return 4;
}

__attribute__((noinline)) static uint32_t nested_loops(uint32_t n, uint32_t m)
{
	uint32_t acc = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (i % 7 == 6)
			continue;
		for (uint32_t j = 0; j < m; j++) {
			if ((i * j) % 5 == 4)
				break;
			for (uint32_t k = 0; k <= j; k++) {
				if ((i + j + k) & 1)
					acc += k;
				else
					acc ^= i * 31 + j;
			}
		}
	}
	return acc;
}

/* Two entries into the A <-> B cycle: the loop is irreducible. */
__attribute__((noinline)) static int irreducible(int n, int start)
{
	int a = 0, i = 0;
	if (start & 1)
		goto B;
A:
	a += i * 2 + 1;
	i++;
	if (i >= n)
		goto done;
	if (a % 3 == 0)
		goto A;
B:
	a ^= i * 3;
	i++;
	if (i < n)
		goto A;
done:
	return a;
}

static uint32_t do_while_digits(uint32_t v)
{
	uint32_t digits = 0;
	do {
		digits++;
		v /= 10;
	} while (v);
	return digits;
}

int main(void)
{
	uint32_t st = corpus_seed();
	int hist[7] = {0};
	for (int i = 0; i < 200; i++) {
		int v = (int)(corpus_next(&st) % 4001u) - 2000;
		if (i % 9 == 0)
			v = 0;
		hist[classify(v) + 2]++;
	}
	printf("classify:");
	for (int i = 0; i < 7; i++)
		printf(" %d", hist[i]);
	printf("\n");
	printf("nested_loops: %u\n", nested_loops(12 + (st & 3), 9));
	int irr = 0;
	for (int s = 0; s < 6; s++)
		irr += irreducible(5 + s * 3, s);
	printf("irreducible: %d\n", irr);
	uint32_t dsum = 0;
	for (uint32_t v = 1; v < 100000; v = v * 7 + 3)
		dsum += do_while_digits(v);
	printf("digits: %u\n", dsum);
	return 0;
}
