/* SPDX-License-Identifier: MIT */
/*
 * word_streams.h — streams of trace words that the codec tests share
 * (test_word_codec.c: the token stage; test_word_lz.c: the match stage).
 * Each test passes its own round trip (encode, decode, compare; returns
 * the coded size), so every stage is held to the same inputs: random
 * words, and the extremes of a trace's shape.  Header-only, for tests.
 */
#ifndef WPP_TEST_WORD_STREAMS_H
#define WPP_TEST_WORD_STREAMS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "wpp/trace_abi.h"

/* xorshift64: a test's streams are the same on every run of its seed */
static inline uint64_t ws_next(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

typedef size_t (*ws_round_trip_fn)(const uint64_t *w, uint32_t n);

/* `rounds` streams of 1 to max_n random words. */
static inline void ws_random_streams(ws_round_trip_fn round_trip, uint64_t *rng, uint32_t max_n,
				     int rounds)
{
	uint64_t *w = malloc((size_t)max_n * 8);
	for (int round = 0; round < rounds; round++) {
		uint32_t n = (uint32_t)(ws_next(rng) % max_n) + 1;
		for (uint32_t i = 0; i < n; i++)
			w[i] = ws_next(rng);
		round_trip(w, n);
	}
	free(w);
}

/* n words in w (scratch) of each extreme: every bit set, the largest
 * function-id deltas both ways, all distinct; and a spin loop alternating
 * two paths, which must code to a few bytes whatever the stage. */
static inline void ws_edge_streams(ws_round_trip_fn round_trip, uint64_t *w, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		w[i] = UINT64_MAX; /* fid 0xffffff, payload max */
	round_trip(w, n);
	for (uint32_t i = 0; i < n; i++)
		w[i] = i & 1 ? UINT64_MAX : 0;
	round_trip(w, n);
	for (uint32_t i = 0; i < n; i++)
		w[i] = wpp_make_word((uint32_t)(i * 2654435761u) & 0xffffff, i);
	round_trip(w, n);
	for (uint32_t i = 0; i < n; i++)
		w[i] = wpp_make_word(7, i & 1 ? 3 : 4);
	if (round_trip(w, n) >= 64)
		fail_msg("a spin loop of two paths (%u words) coded to 64 bytes or more", n);
}

#endif
