/* SPDX-License-Identifier: MIT */
/* setjmp/longjmp: across several frames, out of a recursion, repeatedly, and
 * with nested jump buffers (an inner handler that rethrows outward). */
#include <setjmp.h>
#include <stdio.h>

#include "corpus.h"

static jmp_buf outer_env;
static jmp_buf inner_env;
static uint32_t trail = CORPUS_HASH_INIT;

__attribute__((noinline)) static void thrower(int depth, int limit, jmp_buf env)
{
	trail = corpus_mix(trail, (uint32_t)depth);
	if (depth == limit)
		longjmp(env, limit); /* limit may be 0: setjmp then returns 1 */
	if (depth & 1)
		thrower(depth + 1, limit, env);
	else
		thrower(depth + 1, limit, env);
	trail = corpus_mix(trail, 0xdead); /* never runs */
}

__attribute__((noinline)) static int middle(int limit)
{
	volatile int tries = 0;
	int v = setjmp(inner_env);
	tries++;
	if (v == 0) {
		thrower(0, limit, inner_env);
		return -1;
	}
	trail = corpus_mix(trail, (uint32_t)v + 1000u);
	if (v > 3 && (v & 1))
		longjmp(outer_env, v * 10); /* rethrow outward, skipping this frame */
	return v + tries;
}

int main(void)
{
	uint32_t st = corpus_seed();
	int total = 0;
	for (int round = 0; round < 8; round++) {
		int limit = (int)((corpus_next(&st) >> 4) % 7u);
		int v = setjmp(outer_env);
		if (v == 0) {
			total += middle(limit);
		} else {
			total += v;
			trail = corpus_mix(trail, (uint32_t)v);
		}
	}
	/* A direct longjmp from a deep recursion into main. */
	int v = setjmp(outer_env);
	if (v == 0)
		thrower(0, 9, outer_env);
	printf("longjmp: total=%d last=%d trail=%08x\n", total, v, trail);
	return 0;
}
