/* SPDX-License-Identifier: MIT */
/*
 * sequitur_chunked.h — a whole program path grammar builder that keeps up
 * with real path streams: runs first, then content-defined chunks, with
 * SEQUITUR(1) (sequitur.h) only over what is new.
 *
 * SEQUITUR(1) costs 30-100 ns per symbol; a traced program makes
 * 100-300 M path records per second, most of them loop iterations
 * repeating a few paths.  This builder does little per record:
 *
 *   1. Runs.  A maximal run t^n of one terminal becomes one "atom" (t, n)
 *      with O(1) work per record; at export t^n is built from shared
 *      doubling rules t^2, t^4, ... combined by n's binary digits, so a
 *      run of 2^32-1 costs O(log n) and a REPEAT count in a file cannot
 *      make the work larger than the file.
 *   2. Chunks.  The atom stream is cut where a hash of the last few atoms
 *      has its top bits zero (between a minimum and a maximum length):
 *      cuts depend on content only, so a repeated stretch of execution
 *      cuts the same way each time.  Each chunk is looked up in a table
 *      of unique chunks (contents compared); only a new chunk's atoms go
 *      to the level's "body" SEQUITUR(1), each chunk its own segment
 *      (rules are shared between chunks, none spans two).
 *   3. Levels.  The chunk ids, runs of one chunk collapsed into atoms as
 *      in 1, are chunked again the same way (struct seqc_params), and the
 *      last level's go to the top SEQUITUR(1), with a segment per gap.
 *
 * seqc_export merges the levels into one canonical seq_grammar
 * (sequitur_grammar.h; rules numbered as seq_export numbers them) that
 * expands exactly to the terminals appended, a pending run and a partial
 * chunk included.  Deterministic: the grammar is a function of the
 * terminal sequence (and its gaps) only, never of how it was split into
 * calls.  It is not SEQUITUR(1)'s grammar: rules may be used once (a
 * chunk seen once, a run rule), and digrams may repeat across chunks.
 *
 * Errors as in sequitur.h: -1 for a terminal out of range (the builder is
 * unchanged) or after an allocation failure (the builder is then
 * unusable: every later call returns -1).
 */
#ifndef WPP_SEQUITUR_CHUNKED_H
#define WPP_SEQUITUR_CHUNKED_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/grammar/sequitur.h"

/* Chunking at one level: a cut is taken with probability 2^-avg_bits
 * after each atom once a chunk holds min_len atoms, and always at
 * max_len.  Zero fields take that level's defaults. */
struct seqc_level_params {
	uint32_t avg_bits;
	uint32_t min_len;
	uint32_t max_len;
};
/* Levels: level 0 chunks the terminal atoms, level k+1 the atoms of
 * level k's chunk ids (runs of one chunk collapsed), the top SEQUITUR(1)
 * takes the last level's.  nlevels 0: the defaults (one level of ~20-atom
 * chunks), chosen by measurement on real streams (docs/sequitur.md). */
#define SEQC_MAX_LEVELS 4
struct seqc_params {
	uint32_t nlevels;
	struct seqc_level_params level[SEQC_MAX_LEVELS];
};

struct seqc_builder;

struct seqc_level_stats {
	uint64_t atoms;		/* runs (maximal) of this level's input */
	uint64_t chunks;	/* chunks cut */
	uint32_t unique_chunks; /* chunks that went to the body SEQUITUR(1) */
	uint32_t distinct_atoms;
	struct seq_stats body; /* this level's body SEQUITUR(1) */
};
struct seqc_stats {
	uint64_t input_symbols; /* terminals appended */
	uint32_t nlevels;
	struct seqc_level_stats level[SEQC_MAX_LEVELS];
	struct seq_stats top; /* the top SEQUITUR(1) */
	uint64_t bytes;	      /* memory held, builders included */
};

/* params NULL: the defaults. */
struct seqc_builder *seqc_builder_new(const struct seqc_params *params);
void seqc_builder_free(struct seqc_builder *b);

int seqc_append(struct seqc_builder *b, uint32_t terminal);
int seqc_append_many(struct seqc_builder *b, const uint32_t *terminals, size_t n);
/* terminal count times in a row: O(1), the same grammar as count appends. */
int seqc_append_run(struct seqc_builder *b, uint32_t terminal, uint64_t count);
/* End the current segment (lost events follow); a new one begins. */
int seqc_append_gap(struct seqc_builder *b);

void seqc_builder_stats(const struct seqc_builder *b, struct seqc_stats *st);
int seqc_builder_failed(const struct seqc_builder *b);

/* Snapshot (the builder stays usable); flags SEQ_GRAMMAR_CHUNKED.  Not
 * const: it first does the chunk lookups the builder has put off (to let
 * their table slots load), which changes nothing the grammar depends on. */
int seqc_export(struct seqc_builder *b, struct seq_grammar *out);

#endif
