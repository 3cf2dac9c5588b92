/* SPDX-License-Identifier: MIT */
/* Direct and mutual recursion, tail calls (implicit, and musttail, which
 * leaves no room between the call and the ret), static inline helpers.
 * With an argument N it also prints fib(N) (used by the exec program). */
#include <stdio.h>
#include <stdlib.h>

#include "corpus.h"

static inline int is_small(long v) { return v < 3; }

__attribute__((noinline)) static long fib(int n)
{
	if (is_small(n))
		return n ? 1 : 0;
	return fib(n - 1) + fib(n - 2);
}

static int is_odd(unsigned n);

__attribute__((noinline)) static int is_even(unsigned n)
{
	if (n == 0)
		return 1;
	return is_odd(n - 1);
}

__attribute__((noinline)) static int is_odd(unsigned n)
{
	if (n == 0)
		return 0;
	return is_even(n - 1);
}

static long ackermann(long m, long n)
{
	if (m == 0)
		return n + 1;
	if (n == 0)
		return ackermann(m - 1, 1);
	return ackermann(m - 1, ackermann(m, n - 1));
}

__attribute__((noinline)) static long sum_tail(long n, long acc)
{
	if (n == 0)
		return acc;
	return sum_tail(n - 1, acc + n);
}

__attribute__((noinline)) static long collatz_musttail(long n, long steps)
{
	if (n == 1)
		return steps;
	if (n & 1)
		__attribute__((musttail)) return collatz_musttail(3 * n + 1, steps + 1);
	__attribute__((musttail)) return collatz_musttail(n / 2, steps + 1);
}

int main(int argc, char **argv)
{
	uint32_t st = corpus_seed();
	int base = (int)(st % 3u);
	int evens = 0;
	for (unsigned i = 0; i < 30; i++)
		evens += is_even(i * 7 + (unsigned)base);
	printf("fib=%ld evens=%d ack=%ld tail=%ld collatz=%ld\n", fib(13 + base), evens,
	       ackermann(2, 3 + base), sum_tail(300, base), collatz_musttail(27 + base, 0));
	if (argc > 1) {
		int n = atoi(argv[1]);
		if (n < 0 || n > 30) {
			printf("bad argument\n");
			return 2;
		}
		printf("fib(%d)=%ld\n", n, fib(n));
	}
	return 0;
}
