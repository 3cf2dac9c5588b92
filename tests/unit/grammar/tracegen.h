/* SPDX-License-Identifier: MIT */
/*
 * tracegen.h — synthetic acyclic-path traces shaped like real ones, for
 * the SEQUITUR benchmark and the large-input tests.
 *
 * A random "program" is drawn from the seed: functions whose bodies are
 * sequences of acyclic path segments, loops (some with a fixed trip count,
 * some data dependent) and calls to later functions (so no recursion).
 * Each segment ends a Ball-Larus path; which of its variants runs follows a
 * Zipf-skewed distribution (one dominant path, rare alternatives).  A
 * driver loop calls entry functions with Zipf-skewed popularity until the
 * requested number of symbols is produced.  Symbols are dense ids assigned
 * in order of first execution, as the collector assigns them to
 * (function, path) pairs.  Same seed and length, same trace.
 */
#ifndef WPP_TRACEGEN_H
#define WPP_TRACEGEN_H

#include <stddef.h>
#include <stdint.h>

/* Fill out[0..n) with a trace; returns the number of distinct symbols, or
 * -1 on allocation failure. */
long tracegen_make(uint64_t seed, uint32_t *out, size_t n);

/* A nearly memoryless trace (loops with random trip counts, random path
 * variants and random extra paths), shaped like tests/e2e/wpp-raw.sh's:
 * the hard case for a grammar against an LZ coder.  Returns an upper bound
 * on the distinct symbols. */
long tracegen_random_loops(uint64_t seed, uint32_t *out, size_t n);

#endif
