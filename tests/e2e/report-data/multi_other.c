/* SPDX-License-Identifier: MIT */
/* multi_other.c — the binary multi.c execs (tests/e2e/report-multi.sh). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static int steps(int n)
{
	int s = 0;
	while (n != 1) {
		n = n % 2 ? 3 * n + 1 : n / 2;
		s++;
	}
	return s;
}

int main(int argc, char **argv)
{
	printf("other: %d\n", steps(argc > 1 ? atoi(argv[1]) : 27));
	return 0;
}
