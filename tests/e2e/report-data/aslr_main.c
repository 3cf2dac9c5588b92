/* SPDX-License-Identifier: MIT */
/* PIE half of the ASLR symbolization test (see aslr_lib.c). */
#include <stdio.h>

#include "aslr.h"

static inline __attribute__((always_inline)) int main_inl(int x, int call_line)
{
	aslr_where("exe", "main_inl", __LINE__, "main", call_line);
	return x + 1;
}

int main(int argc, char **argv)
{
	int v = argc + 4;
	(void)argv;
	v = main_inl(v, __LINE__);
	printf("result %d\n", lib_fn(v));
	return 0;
}
