/* SPDX-License-Identifier: MIT */
/*
 * test_rng.h — the seeded xorshift64 generator of the instrument unit tests:
 * the same sequence on every run and machine, so a failing random case
 * replays exactly.  A test file defines TEST_RNG_SEED (its own constant, so
 * the files explore different cases) and includes this once.
 */
#ifndef WPP_TEST_RNG_H
#define WPP_TEST_RNG_H

#include <stdint.h>

#ifndef TEST_RNG_SEED
#error "define TEST_RNG_SEED before including test_rng.h"
#endif

static uint64_t rng_state = TEST_RNG_SEED;

static inline uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Uniform enough for tests in [0, n), n > 0. */
static inline uint32_t rnd_below(uint32_t n)
{
	return (uint32_t)(rnd() % n);
}

#endif
