/* SPDX-License-Identifier: MIT */
/* 17 independent branches: 2^17 paths through one function; main drives
 * 100000 distinct ones, for the HTML responsiveness test. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static unsigned pick(unsigned v)
{
	unsigned s = 0;
#define BIT(k) if (v & (1u << k)) s += k * 3 + 1; else s ^= k;
	BIT(0) BIT(1) BIT(2) BIT(3) BIT(4) BIT(5) BIT(6) BIT(7) BIT(8)
	BIT(9) BIT(10) BIT(11) BIT(12) BIT(13) BIT(14) BIT(15) BIT(16)
	return s;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 100000, s = 0;
	for (unsigned v = 0; v < n; v++)
		s += pick(v);
	printf("%u\n", s);
	return 0;
}
