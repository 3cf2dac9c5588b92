/* SPDX-License-Identifier: MIT */
/* Switches: dense (jump table), sparse (compare tree), several cases to one
 * target, fallthrough, default, and a switch inside a loop. */
#include <stdio.h>

#include "corpus.h"

__attribute__((noinline)) static int dense(unsigned v)
{
	switch (v & 15) {
	case 0: return 11;
	case 1: return 23;
	case 2: return 5;
	case 3: return 77;
	case 4: return 13;
	case 5: return 8;
	case 6: return 91;
	case 7: return 2;
	case 8: return 40;
	case 9: return 17;
	case 10: return 66;
	case 11: return 3;
	case 12: return 29;
	case 13: return 54;
	case 14: return 1;
	default: return 99;
	}
}

__attribute__((noinline)) static int sparse(int v)
{
	switch (v) {
	case -5: return 1;
	case 1: return 2;
	case 100: return 3;
	case 1000: return 4;
	case 77777: return 5;
	case 1 << 20: return 6;
	default: return 0;
	}
}

/* Several cases share a target; one case falls through into the next. */
__attribute__((noinline)) static int shared_targets(unsigned c, int acc)
{
	switch (c % 12) {
	case 0:
	case 3:
	case 6:
	case 9:
		acc += 3;
		break;
	case 1:
	case 5:
		acc *= 2;
		/* fall through */
	case 7:
		acc -= 1;
		break;
	case 10:
		acc ^= 0x55;
		break;
	default:
		acc += 100;
		break;
	}
	return acc;
}

int main(void)
{
	uint32_t st = corpus_seed();
	int d = 0, s = 0, acc = 0;
	static const int sparse_inputs[] = {-5, 1, 100, 1000, 77777, 1 << 20, 2, 99, -1};
	for (int i = 0; i < 150; i++) {
		uint32_t r = corpus_next(&st);
		d += dense(r);
		s += sparse(sparse_inputs[r % 9]);
		acc = shared_targets(r >> 3, acc);
	}
	printf("dense=%d sparse=%d shared=%d\n", d, s, acc);
	return 0;
}
