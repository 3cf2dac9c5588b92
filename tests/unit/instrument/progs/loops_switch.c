/* loops, switch with shared targets, recursion, callbacks from libc
 * (qsort), variadic functions, a leading call in the entry block. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int classify(int v)
{
	switch (v % 7) {
	case 0:
	case 3:
		return 10;
	case 1:
		return v * 2;
	case 5:
		if (v > 20)
			return -1;
		/* fall through */
	case 6:
		return v + 1;
	default:
		return 0;
	}
}

int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

int sum(int n, ...)
{
	va_list ap;
	int s = 0;
	va_start(ap, n);
	for (int i = 0; i < n; i++) {
		int v = va_arg(ap, int);
		if (v & 1)
			s += v;
		else
			s -= v / 2;
	}
	va_end(ap);
	return s;
}

int main(int argc, char **argv)
{
	(void)argv;
	int a[12];
	for (int i = 0; i < 12; i++)
		a[i] = (i * 7 + argc) % 13;
	qsort(a, 12, sizeof(int), cmp);
	int t = 0;
	for (int i = 0; i < 12; i++)
		for (int j = 0; j < i; j++)
			if ((a[i] ^ a[j]) & 2)
				t += classify(a[i] + j);
	t += fib(8) + sum(5, 1, 2, 3, 4, 5);
	printf("%d\n", t);
	return 0;
}
