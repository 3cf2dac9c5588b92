/* SPDX-License-Identifier: MIT */
/* Shared helpers for the SEQUITUR unit tests: inputs and brute force. */
#ifndef WPP_SEQUITUR_TEST_UTIL_H
#define WPP_SEQUITUR_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "sequitur.h"

/* A gap in a test input; real terminals are below SEQ_TERMINAL_LIMIT. */
#define TU_GAP 0xffffffffu

uint64_t tu_rand(uint64_t *state);

/* Fill in[0..n) with one of several input shapes chosen by `shape` (see
 * the .c); gaps appear only when with_gaps. */
void tu_random_input(uint64_t *rng, uint32_t *in, size_t n, unsigned shape, int with_gaps);
#define TU_SHAPES 6

/* Feed in[] (TU_GAP = gap) to a new builder, finish and export. */
int tu_build(enum seq_algorithm algo, const uint32_t *in, size_t n, struct seq_grammar *g);

/* Expand every segment of g into a malloc'd array with TU_GAP between
 * segments (so it can be compared with the input directly). */
uint32_t *tu_expand_all(const struct seq_grammar *g, size_t *n);

#endif
