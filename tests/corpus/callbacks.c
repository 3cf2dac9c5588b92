/* SPDX-License-Identifier: MIT */
/* Function pointers: libc calling back into instrumented code (qsort,
 * bsearch), a dispatch table, and a callback through our own iterator. */
#include <stdio.h>
#include <stdlib.h>

#include "corpus.h"

static unsigned compares;

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	compares++;
	if (x < y)
		return -1;
	if (x > y)
		return 1;
	return 0;
}

static int cmp_desc_parity(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	compares++;
	if ((x & 1) != (y & 1))
		return (x & 1) ? -1 : 1;
	return (y > x) - (y < x);
}

static int op_add(int a, int b) { return a + b; }
static int op_sub(int a, int b) { return a - b; }
static int op_xor(int a, int b) { return a ^ b; }
static int op_max(int a, int b) { return a > b ? a : b; }

typedef int (*binop)(int, int);

__attribute__((noinline)) static int fold(const int *v, int n, binop f, int init)
{
	for (int i = 0; i < n; i++)
		init = f(init, v[i]);
	return init;
}

__attribute__((noinline)) static void for_each(int *v, int n, void (*cb)(int *, void *), void *ctx)
{
	for (int i = 0; i < n; i++)
		cb(&v[i], ctx);
}

static void count_big(int *v, void *ctx)
{
	if (*v > 500)
		++*(int *)ctx;
	else
		*v += 1;
}

int main(void)
{
	uint32_t st = corpus_seed();
	enum { N = 97 };
	int v[N];
	for (int i = 0; i < N; i++)
		v[i] = (int)(corpus_next(&st) % 1000u);
	qsort(v, N, sizeof v[0], cmp_int);
	int found = 0;
	for (int key = 0; key < 1000; key += 37)
		if (bsearch(&key, v, N, sizeof v[0], cmp_int))
			found++;
	static const binop table[] = {op_add, op_sub, op_xor, op_max};
	int folds[4];
	for (int i = 0; i < 4; i++)
		folds[i] = fold(v, N, table[(i + (int)(st & 3)) % 4], i);
	int big = 0;
	for_each(v, N, count_big, &big);
	qsort(v, N, sizeof v[0], cmp_desc_parity);
	/* compares depends on libc's sort algorithm: print it only as a
	 * plausibility check, not the exact count. */
	printf("found=%d folds=%d,%d,%d,%d big=%d first=%d last=%d compares>0=%d\n", found,
	       folds[0], folds[1], folds[2], folds[3], big, v[0], v[N - 1], compares > 0);
	return 0;
}
