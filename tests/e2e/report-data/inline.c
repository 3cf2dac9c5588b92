/* SPDX-License-Identifier: MIT */
/* report-inline.sh: header code inlined (and nested inlining), same-file
 * inlining, and a function whose name is too long for the table column. */
#include <stdio.h>
#include <stdlib.h>

#include "inline_util.h"

static inline __attribute__((always_inline)) int twice(int x)
{
	return x + x; /* LINE_TWICE */
}

__attribute__((noinline)) static int a_function_with_a_rather_long_name_ending_in_tail(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += twice(scale(i)); /* LINE_CALLS */
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;
	printf("%d\n", a_function_with_a_rather_long_name_ending_in_tail(n));
	return 0;
}
