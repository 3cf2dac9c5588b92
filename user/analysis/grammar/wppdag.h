/* SPDX-License-Identifier: MIT */
/*
 * wppdag.h — questions answered on a grammar's DAG without expanding it.
 *
 *   node frequency      how many times a rule's string occurs in the
 *                       derivation: the number of DAG paths from the
 *                       segment roots to it (Larus §3.3)
 *   q-gram occurrences  every occurrence of every length-q string of the
 *                       expanded stream, reported once per (DAG node,
 *                       boundary, offset) class with the class's weight
 *                       (the node frequency), in O(edges x q) time
 *   sequence frequency  occurrences of a given path sequence
 *   context             what ran k paths before / after a sequence, with
 *                       counts
 *   first / last        where a path first and last ran: "p executes
 *                       before q" (Larus §3.3: some common ancestor's
 *                       in-order walk reaches p before q) exactly when
 *                       p's first occurrence precedes q's last
 *
 * The q-gram enumeration is the engine of all but the first, and of the
 * hot-subpath search (hotsub.h).  An occurrence of a string at least two
 * symbols long is attributed to the lowest DAG node whose expansion holds
 * it, at the body position where it starts; that node's body gives it a
 * window made of the starting child's (q-1)-suffix and the (q-1)-prefix of
 * the rest of the body, so each class is seen exactly once.  Segments never
 * join: an occurrence cannot span two roots.  Optional padding puts
 * WPPDAG_PAD_START before and WPPDAG_PAD_END after every segment so that
 * "the stream ended" is visible in a context.
 */
#ifndef WPP_WPPDAG_H
#define WPP_WPPDAG_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/grammar/sequitur_grammar.h"

#define WPPDAG_PAD_START 0xfffffffeu
#define WPPDAG_PAD_END	 0xffffffffu

struct wppdag {
	const struct seq_grammar *g;
	uint64_t *freq; /* per node: occurrences in the derivation; roots 1 */
};

int wppdag_init(struct wppdag *d, const struct seq_grammar *g);
void wppdag_free(struct wppdag *d);

/* The same enumeration in bulk: window[s .. s+q) for s in [0, nstarts)
 * are occurrence classes of weight `weight` each (consecutive classes
 * share a window, so a consumer can roll a hash along it). */
typedef int (*wppdag_window_fn)(void *ctx, const uint32_t *window, uint32_t nstarts, uint32_t q,
				uint64_t weight);
int wppdag_for_each_window(const struct wppdag *d, uint32_t q, uint32_t pad_start, uint32_t pad_end,
			   wppdag_window_fn fn, void *ctx);

/* Called once per occurrence class: gram[0..q) occurs `weight` times. */
typedef int (*wppdag_gram_fn)(void *ctx, const uint32_t *gram, uint32_t q, uint64_t weight);

/* Enumerate every occurrence of every q-gram (q >= 1) of the padded
 * segments: pad_start copies of WPPDAG_PAD_START before and pad_end copies
 * of WPPDAG_PAD_END after each segment (each at most q - 1).  A non-zero
 * return from fn stops the walk and is returned; -1 also means no memory. */
int wppdag_for_each_qgram(const struct wppdag *d, uint32_t q, uint32_t pad_start, uint32_t pad_end,
			  wppdag_gram_fn fn, void *ctx);

/* freq[t] += occurrences of terminal t in the stream, for t < nterm
 * (terminals >= nterm are skipped).  0, or -1 if out of memory. */
int wppdag_terminal_frequencies(const struct wppdag *d, uint64_t *freq, uint32_t nterm);

/* Number of (possibly overlapping) occurrences of seq[0..m) in the
 * stream; m >= 1.  Returns 0 for m == 0 or on failure (and sets *failed). */
uint64_t wppdag_sequence_frequency(const struct wppdag *d, const uint32_t *seq, uint32_t m,
				   int *failed);

/* Where terminal t first and last occurs: 0-based positions in the
 * thread's whole stream, its segments counted one after the other.
 * 1 (found), 0 (t never occurs: *first and *last untouched), -1 (no
 * memory).  O(grammar symbols). */
int wppdag_first_last(const struct wppdag *d, uint32_t t, uint64_t *first, uint64_t *last);

enum wppdag_side { WPPDAG_BEFORE, WPPDAG_AFTER };

struct wppdag_context {
	uint32_t *syms; /* k symbols; WPPDAG_PAD_* where the segment ended */
	uint64_t count;
};

/* The distinct k-symbol contexts on one side of the occurrences of
 * seq[0..m), most frequent first (ties in symbol order).  *out is a
 * malloc'd array of *n entries; free with wppdag_contexts_free. */
int wppdag_contexts(const struct wppdag *d, const uint32_t *seq, uint32_t m, uint32_t k,
		    enum wppdag_side side, struct wppdag_context **out, size_t *n);
void wppdag_contexts_free(struct wppdag_context *c, size_t n);

#endif
