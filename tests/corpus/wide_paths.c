/* SPDX-License-Identifier: MIT */
/* Functions with huge Ball-Larus path counts: 45 independent if-diamonds
 * (2^45 paths > 2^40: wide two-word records) and 70 (2^70 paths > 2^64:
 * the DAG must be truncated).  The arms write volatile globals with
 * different instruction sequences so -O2 keeps every branch. */
#include <stdio.h>

#include "corpus.h"

static volatile uint32_t sink_a, sink_b;

#define DIAMOND(bits, i)                           \
	if (((bits) >> ((i) % 64)) & 1)            \
		sink_a = (i);                      \
	else                                       \
		sink_b = sink_b + (i) + 1;

#define D5(b, i) DIAMOND(b, i) DIAMOND(b, i + 1) DIAMOND(b, i + 2) DIAMOND(b, i + 3) DIAMOND(b, i + 4)

__attribute__((noinline)) static void diamonds45(uint64_t bits)
{
	D5(bits, 0) D5(bits, 5) D5(bits, 10) D5(bits, 15) D5(bits, 20)
	D5(bits, 25) D5(bits, 30) D5(bits, 35) D5(bits, 40)
}

__attribute__((noinline)) static void diamonds70(uint64_t lo, uint64_t hi)
{
	D5(lo, 0) D5(lo, 5) D5(lo, 10) D5(lo, 15) D5(lo, 20) D5(lo, 25)
	D5(lo, 30) D5(lo, 35) D5(lo, 40) D5(lo, 45) D5(lo, 50) D5(lo, 55)
	D5(hi, 60) D5(hi, 65)
}

int main(void)
{
	uint32_t st = corpus_seed();
	uint32_t h = CORPUS_HASH_INIT;
	for (int i = 0; i < 20; i++) {
		uint64_t lo = ((uint64_t)corpus_next(&st) << 32) | corpus_next(&st);
		uint64_t hi = ((uint64_t)corpus_next(&st) << 32) | corpus_next(&st);
		if (i == 0)
			lo = 0; /* all-else path: path id 0 */
		if (i == 1)
			lo = hi = ~(uint64_t)0; /* all-then path: the largest ids */
		diamonds45(lo);
		h = corpus_mix(h, sink_a);
		h = corpus_mix(h, sink_b);
		diamonds70(lo, hi);
		h = corpus_mix(h, sink_a);
		h = corpus_mix(h, sink_b);
	}
	printf("wide: a=%u b=%u h=%08x\n", sink_a, sink_b, h);
	return 0;
}
