/* SPDX-License-Identifier: MIT */
/*
 * sequitur.h — online grammar construction for one thread's path stream.
 *
 * One builder per thread.  The caller feeds terminals one at a time as the
 * stream arrives (seq_append), marks lost events with seq_append_gap (the
 * current segment ends and a new one starts: no rule ever spans a gap),
 * and may export a snapshot at any time (seq_export; the builder stays
 * usable) or at the end.  Terminals are caller-assigned ids below
 * SEQ_TERMINAL_LIMIT, e.g. dense ids for (function id, path id) pairs.
 *
 * Two algorithms:
 *   SEQ_PLAIN      Nevill-Manning & Witten's SEQUITUR: digram uniqueness
 *                  and rule utility restored after every symbol.
 *   SEQ_LOOKAHEAD  Larus' SEQUITUR(1): before making a NEW rule for a
 *                  duplicate digram xy at the end of the current segment,
 *                  look at the next input symbol l; if yl is the whole
 *                  body of an existing rule, wait (the next step applies
 *                  that rule instead).  The builder therefore holds one
 *                  symbol back; seq_finish / seq_append_gap / seq_export
 *                  account for it.
 *
 * Determinism: the grammar is a function of the input sequence only.
 * Nodes live in one array addressed by index, the digram index is keyed on
 * symbol values, and seq_export numbers rules by a depth-first walk from
 * the segment roots, so no address or allocation order leaks out.
 *
 * Errors: seq_append returns -1 for a terminal out of range (the builder is
 * unchanged) or after an allocation failure (the builder is then unusable:
 * every later call returns -1; seq_builder_failed() tells).
 */
#ifndef WPP_SEQUITUR_H
#define WPP_SEQUITUR_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/grammar/sequitur_grammar.h"

/* SEQ_CHUNKED names the chunked builder (sequitur_chunked.h), runs and
 * content-defined chunks around SEQUITUR(1), for the callers that choose
 * between the two (path_grammar_new); seq_builder_new refuses it. */
enum seq_algorithm { SEQ_PLAIN = 0, SEQ_LOOKAHEAD = 1, SEQ_CHUNKED = 2 };

struct seq_builder;

struct seq_stats {
	uint64_t input_symbols;	  /* terminals appended so far */
	uint64_t grammar_symbols; /* symbols on all right-hand sides, roots included */
	uint32_t rules;		  /* ordinary rules (roots not counted) */
	uint32_t segments;	  /* gaps + 1 */
	uint64_t bytes;		  /* memory held by the builder */
};

struct seq_builder *seq_builder_new(enum seq_algorithm algo);
void seq_builder_free(struct seq_builder *b);

int seq_append(struct seq_builder *b, uint32_t terminal);
/* Convenience for a buffer of terminals (stops at the first error). */
int seq_append_many(struct seq_builder *b, const uint32_t *terminals, size_t n);
/* terminal appended count times in a row (a run, e.g. a loop repeating one
 * path): the grammar is exactly the one count seq_append calls give. */
int seq_append_run(struct seq_builder *b, uint32_t terminal, uint64_t count);
/* End the current segment (lost events follow); a new segment begins. */
int seq_append_gap(struct seq_builder *b);
/* Process the held-back look-ahead symbol; call at the end of the stream.
 * Appending after seq_finish is allowed (it just loses one look-ahead). */
int seq_finish(struct seq_builder *b);

void seq_builder_stats(const struct seq_builder *b, struct seq_stats *st);
int seq_builder_failed(const struct seq_builder *b);

/* Snapshot the grammar in canonical DAG form (see sequitur_grammar.h).  A
 * symbol still held back for look-ahead appears as the last terminal of the
 * last segment, so the snapshot always expands to everything appended. */
int seq_export(const struct seq_builder *b, struct seq_grammar *out);

/* Test support: verify every invariant the algorithm promises (links,
 * reference counts, rule utility, digram uniqueness, the digram index
 * agreeing with the grammar).  0, or -1 with a reason in why. */
int seq_builder_check(const struct seq_builder *b, char *why, size_t whylen);

#endif
