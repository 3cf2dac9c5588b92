/* SPDX-License-Identifier: MIT */
/*
 * corpus.h — helpers shared by the corpus programs.
 *
 * Every corpus program must be deterministic (same stdout and exit status on
 * every run and under every build: plain clang, wppcc paths/blocks mode,
 * -O0/-O2) and must keep its control flow alive at -O2.  Inputs therefore
 * come from a volatile seed the optimizer cannot see through, and the
 * helpers below are static inline so they exercise inlined code paths too.
 */
#ifndef CORPUS_H
#define CORPUS_H

#include <stdint.h>

/* The optimizer cannot constant-fold anything derived from this. */
static volatile uint32_t corpus_seed_cell = 0x2545F491u;

static inline uint32_t corpus_seed(void) { return corpus_seed_cell; }

/* xorshift32: deterministic pseudo-random stream. */
static inline uint32_t corpus_next(uint32_t *state)
{
	uint32_t x = *state;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*state = x;
	return x;
}

/* Order-sensitive checksum step (FNV-1a style over 32-bit values). */
static inline uint32_t corpus_mix(uint32_t h, uint32_t v)
{
	for (int i = 0; i < 4; i++) {
		h ^= (v >> (8 * i)) & 0xffu;
		h *= 16777619u;
	}
	return h;
}

#define CORPUS_HASH_INIT 2166136261u

#endif
