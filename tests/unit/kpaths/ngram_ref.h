/* SPDX-License-Identifier: MIT */
/*
 * ngram_ref.h — the brute-force reference: count every n-gram (n <= k) of a
 * label stream that contains no mark, by listing every window and sorting.
 * Deliberately shares no code or idea with the k-slab forest.
 */
#ifndef WPP_TEST_KSLAB_NGRAM_REF_H
#define WPP_TEST_KSLAB_NGRAM_REF_H

#include <stddef.h>
#include <stdint.h>

#include "streams.h"

struct ngram_ref;

/* Streams are concatenated with a mark between them (threads of a process). */
struct ngram_ref *ngram_ref_build(const struct ev *const *streams, const size_t *lens,
				  size_t nstreams, unsigned k);
/* Occurrences of labels (fids[i], values[i]), i < n. */
uint64_t ngram_ref_count(const struct ngram_ref *r, const uint32_t *fids, const uint64_t *values,
			 unsigned n);
/* Number of distinct n-grams (all n <= k). */
size_t ngram_ref_distinct(const struct ngram_ref *r);
/* Visit every distinct n-gram: labels of length n and its count. */
void ngram_ref_each(const struct ngram_ref *r,
		    void (*fn)(void *ctx, const struct ev *gram, unsigned n, uint64_t count),
		    void *ctx);
void ngram_ref_free(struct ngram_ref *r);

#endif
