/* SPDX-License-Identifier: MIT */
/* Shared library half of the ASLR symbolization test: an always-inlined
 * function reports a return address that lies inside its inlined code. */
#include <stdio.h>

#include "aslr.h"

__attribute__((noinline)) void aslr_where(const char *obj, const char *inner, int inner_line,
					  const char *outer, int outer_line)
{
	/* return address - 1 is inside the caller's call instruction */
	printf("ADDR %s %p %s %d %s %d\n", obj, (void *)((char *)__builtin_return_address(0) - 1), inner,
	       inner_line, outer, outer_line);
}

static inline __attribute__((always_inline)) int lib_inl(int x, int call_line)
{
	aslr_where("lib", "lib_inl", __LINE__, "lib_fn", call_line);
	return x * 2;
}

int lib_fn(int x)
{
	if (x > 3)
		return lib_inl(x, __LINE__) + 1;
	return x;
}
