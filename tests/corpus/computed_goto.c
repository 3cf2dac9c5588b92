/* SPDX-License-Identifier: MIT */
/* Computed gotos (goto *labels[i], an indirectbr in IR) as a threaded
 * interpreter, and __builtin_unreachable on impossible switch arms. */
#include <stdio.h>

#include "corpus.h"

enum op { OP_PUSH, OP_ADD, OP_MUL, OP_DUP, OP_DEC, OP_JNZ, OP_SWAP, OP_HALT };

__attribute__((noinline)) static long threaded(const int *code)
{
	static void *const labels[] = {&&push, &&add, &&mul, &&dup, &&dec, &&jnz, &&swap, &&halt};
	long stack[32];
	int sp = 0, pc = 0;
#define NEXT goto *labels[code[pc++]]
	NEXT;
push:
	stack[sp++] = code[pc++];
	NEXT;
add:
	sp--;
	stack[sp - 1] += stack[sp];
	NEXT;
mul:
	sp--;
	stack[sp - 1] *= stack[sp];
	NEXT;
dup:
	stack[sp] = stack[sp - 1];
	sp++;
	NEXT;
dec:
	stack[sp - 1]--;
	NEXT;
jnz:
	sp--;
	if (stack[sp])
		pc = code[pc];
	else
		pc++;
	NEXT;
swap: {
	long t = stack[sp - 1];
	stack[sp - 1] = stack[sp - 2];
	stack[sp - 2] = t;
	NEXT;
}
halt:
#undef NEXT
	return stack[sp - 1];
}

/* The caller guarantees v % 4 != 3; the optimizer may drop that arm. */
__attribute__((noinline)) static int never_three(unsigned v)
{
	switch (v % 4) {
	case 0: return 10;
	case 1: return 20;
	case 2: return 30;
	default: __builtin_unreachable();
	}
}

int main(void)
{
	uint32_t st = corpus_seed();
	/* acc = 1; n = k; do { acc = acc * 2 + 1... } computed as a loop:
	 * stack: [acc n]; loop: swap dup add 1 add swap dec dup jnz loop */
	int n = 5 + (int)(st % 3u);
	const int prog[] = {OP_PUSH, 1, OP_PUSH, n,
			    /* 4: */ OP_SWAP, OP_DUP, OP_ADD, OP_PUSH, 1, OP_ADD, OP_SWAP, OP_DEC,
			    OP_DUP, OP_JNZ, 4, OP_SWAP, OP_PUSH, 3, OP_MUL, OP_HALT};
	long r = threaded(prog);
	int u = 0;
	for (int i = 0; i < 50; i++) {
		uint32_t v = corpus_next(&st);
		if (v % 4 == 3)
			v++;
		u += never_three(v);
	}
	printf("threaded=%ld unreachable_sum=%d\n", r, u);
	return 0;
}
