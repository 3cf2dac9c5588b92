/* SPDX-License-Identifier: MIT */
/* loops.c — for tests/e2e/dual-tests.sh: loops the plain copy of a dual
 * build must test the flag in (they may run for ever, or call) and loops
 * it need not (they end by themselves, calling nothing); each function's
 * name says which. */
#include <stdio.h>
#include <stdlib.h>

volatile int stop;

/* Ends by itself: a counted loop (scalar evolution bounds its trip). */
__attribute__((noinline)) void ends_counted(int *a, int n)
{
	for (int i = 0; i < n; i++)
		a[i] = a[i] * 3 + 1;
}

/* Ends by itself: a search whose trip nothing bounds, but whose
 * condition is not a constant (C11 6.8.5p6: mustprogress). */
__attribute__((noinline)) int ends_search(const int *a, int x)
{
	int i = 0;
	while (a[i] != x)
		i++;
	return i;
}

/* Tested: reads a volatile, may spin until a signal handler stops it. */
__attribute__((noinline)) long tested_volatile(void)
{
	long n = 0;
	while (!stop)
		n++;
	return n;
}

/* Tested: a constant condition, no bound on the trip. */
__attribute__((noinline)) unsigned tested_forever(unsigned x)
{
	for (;;) {
		x = x * 2654435761u + 1;
		if ((x >> 20) == 1234)
			return x;
	}
}

/* Tested: calls. */
__attribute__((noinline)) void tested_calls(const int *a, int n)
{
	for (int i = 0; i < n; i++)
		if (a[i] < 0)
			printf("%d\n", a[i]);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;
	int *a = calloc((size_t)n + 1, sizeof(*a));
	if (!a)
		return 1;
	ends_counted(a, n);
	a[n] = 7;
	stop = 1;
	tested_calls(a, n);
	printf("%d %ld %u\n", ends_search(a, 7), tested_volatile(), tested_forever(5));
	free(a);
	return 0;
}
