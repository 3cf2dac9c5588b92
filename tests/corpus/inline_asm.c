/* SPDX-License-Identifier: MIT */
/* Inline assembly: plain asm with operands, asm volatile with a memory
 * clobber, and asm goto (a callbr in IR) with and without outputs. x86-64. */
#include <stdio.h>

#include "corpus.h"

__attribute__((noinline)) static unsigned add_rotate(unsigned a, unsigned b)
{
	asm("addl %1, %0\n\troll $3, %0" : "+r"(a) : "r"(b) : "cc");
	return a;
}

static unsigned barrier_count;

__attribute__((noinline)) static void bump_with_barrier(void)
{
	asm volatile("" ::: "memory");
	barrier_count++;
}

/* Returns 1 when a < b (signed), decided by a jump inside the asm. */
__attribute__((noinline)) static int asm_goto_less(int a, int b)
{
	asm goto("cmpl %1, %0\n\tjl %l[less]" : : "r"(a), "r"(b) : "cc" : less);
	return 0;
less:
	return 1;
}

/* asm goto with an output: decrement, jump when the result reaches zero. */
__attribute__((noinline)) static int asm_goto_dec(int v, int *out)
{
	int r = v;
	asm goto("decl %0\n\tjz %l[zero]" : "+r"(r) : : "cc" : zero);
	*out = r;
	return 0;
zero:
	*out = r;
	return 1;
}

int main(void)
{
	uint32_t st = corpus_seed();
	unsigned h = 1;
	int less = 0, zeros = 0, outsum = 0;
	for (int i = 0; i < 64; i++) {
		uint32_t r = corpus_next(&st);
		h = add_rotate(h, r);
		if (r & 4)
			bump_with_barrier();
		less += asm_goto_less((int)(r % 100u), 50);
		int out;
		zeros += asm_goto_dec((int)(r % 3u), &out);
		outsum += out;
	}
	printf("h=%08x barriers=%u less=%d zeros=%d outsum=%d\n", h, barrier_count, less, zeros,
	       outsum);
	return 0;
}
