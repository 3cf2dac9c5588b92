/* SPDX-License-Identifier: MIT */
/*
 * wet_gen.h — value streams for the tier-2 tests and benchmark: random,
 * constant, strided, periodic, and two real-looking ones (the addresses of
 * a row-major array walk, the values a small bytecode interpreter
 * computes).  Deterministic for a given seed.
 */
#ifndef WPP_TEST_WET_GEN_H
#define WPP_TEST_WET_GEN_H

#include <stddef.h>
#include <stdint.h>

enum wet_gen_kind {
	GEN_RANDOM,
	GEN_CONSTANT,
	GEN_STRIDED,
	GEN_PERIODIC,
	GEN_ARRAY_WALK,
	GEN_INTERPRETER,
	GEN_SMALL_RANDOM, /* random values below 16: last-n and FCM territory */
	GEN_NKINDS
};

const char *wet_gen_name(enum wet_gen_kind k);
/* Fill v[0..n-1]. */
void wet_gen_fill(enum wet_gen_kind k, uint64_t seed, uint64_t *v, size_t n);
/* The interpreter's values with, for each, the instruction (pc) that
 * produced it: split by pc, they are a WET's per-statement value labels.
 * Same values as wet_gen_fill(GEN_INTERPRETER, seed, ...). */
void wet_gen_interpreter(uint64_t seed, uint64_t *v, uint32_t *pcs, size_t n);
/* A 64-bit xorshift step, for tests' own choices. */
uint64_t wet_gen_rand(uint64_t *state);

#endif
