/* SPDX-License-Identifier: MIT */
/* Shared helpers for the SEQUITUR unit tests: inputs and brute force. */
#ifndef WPP_SEQUITUR_TEST_UTIL_H
#define WPP_SEQUITUR_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/grammar/sequitur.h"

/* A gap in a test input; real terminals are below SEQ_TERMINAL_LIMIT. */
#define TU_GAP 0xffffffffu

uint64_t tu_rand(uint64_t *state);

/* Fill in[0..n) with one of several input shapes chosen by `shape` (see
 * the .c); gaps appear only when with_gaps. */
void tu_random_input(uint64_t *rng, uint32_t *in, size_t n, unsigned shape, int with_gaps);
#define TU_SHAPES 6

/* Case `it` of a property test: consecutive cases alternate the algorithm,
 * then step the input shape, then whether gaps appear (one pass over all
 * (shape, algorithm) pairs in `one_in`), so every shape meets both
 * algorithms, with and without gaps. */
static inline enum seq_algorithm tu_case_algo(unsigned it)
{
	return it & 1 ? SEQ_LOOKAHEAD : SEQ_PLAIN;
}
static inline unsigned tu_case_shape(unsigned it)
{
	return it / 2 % TU_SHAPES;
}
static inline int tu_case_gaps(unsigned it, unsigned one_in)
{
	return it / (2 * TU_SHAPES) % one_in == 0;
}

/* Feed in[] (TU_GAP = gap) to a new builder, finish and export. */
int tu_build(enum seq_algorithm algo, const uint32_t *in, size_t n, struct seq_grammar *g);

/* Expand every segment of g into a malloc'd array with TU_GAP between
 * segments (so it can be compared with the input directly). */
uint32_t *tu_expand_all(const struct seq_grammar *g, size_t *n);

#endif
