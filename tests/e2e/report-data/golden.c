/* SPDX-License-Identifier: MIT */
/* Small deterministic program for the report golden tests: an inlined
 * classifier in a loop, a non-inlined helper with a switch, and a branch
 * chosen by argc (the diff test runs it with and without an argument). */
#include <stdio.h>

static int classify(int x)
{
	if (x < 0)
		return -1;
	if (x % 3 == 0)
		return 3;
	return 1;
}

__attribute__((noinline)) static int weigh(int x)
{
	switch (x & 3) {
	case 0:
		return 10;
	case 1:
		return 20;
	default:
		return 30;
	}
}

int main(int argc, char **argv)
{
	int s = 0;
	(void)argv;
	for (int i = -2; i < 10; i++)
		s += classify(i);
	for (int i = 0; i < 8; i++)
		if (argc > 1 || i < 4)
			s += weigh(i);
	printf("%d\n", s);
	return 0;
}
