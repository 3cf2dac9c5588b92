/* SPDX-License-Identifier: MIT */
/*
 * hotsub.h — minimal hot subpaths of a whole program path.
 *
 * Definitions (over the expanded stream w of every segment; subpaths never
 * span a gap; docs/sequitur.md explains why these and not Larus' greedy
 * ones):
 *   occ(X)    number of positions where the sequence X occurs in w
 *   cost(X)   occ(X) * (cost[x1] + ... + cost[xn]), cost[] per terminal
 *             (static instructions of the path, or 1 to count executions)
 *   X is hot        min_len <= |X| <= max_len and cost(X) >= min_cost
 *   X is minimal    X is hot and no proper prefix of X is hot
 * The result is the set of all minimal hot subpaths: every hot subpath
 * extends exactly one of them, and none of them contains a shorter hot
 * prefix that would make it a mere extension.
 *
 * Algorithm: every max_len-gram of the end-padded stream is enumerated
 * from the DAG with its weight (wppdag_for_each_qgram: O(E x L)); the
 * distinct ones are sorted, and each gram's prefix occurrence counts are
 * read off the longest-common-prefix structure of its sorted neighbours
 * (O(D x L) for D distinct grams).  No expansion of the stream.
 */
#ifndef WPP_HOTSUB_H
#define WPP_HOTSUB_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/grammar/wppdag.h"

struct hotsub_params {
	uint32_t min_len, max_len; /* 1 <= min_len <= max_len */
	uint64_t min_cost;
	const uint64_t *cost; /* indexed by terminal value */
	uint32_t ncost;	      /* terminals >= ncost cost 0 */
};

struct hotsub_path {
	uint32_t *syms;
	uint32_t len;
	uint64_t occurrences;
	uint64_t cost; /* occurrences * sum of path costs, saturated */
};

struct hotsub_result {
	struct hotsub_path *paths; /* in lexicographic order of syms */
	size_t n;
	uint64_t grams_seen;	 /* occurrence classes visited (about E x L) */
	uint64_t distinct_grams; /* D */
};

int hotsub_find(const struct wppdag *d, const struct hotsub_params *p, struct hotsub_result *r);
void hotsub_result_free(struct hotsub_result *r);
/* Reorder r->paths costliest first (ties: shorter first, then by symbols),
 * the order every report lists them in. */
void hotsub_sort_by_cost(struct hotsub_result *r);

#endif
