/* SPDX-License-Identifier: MIT */
/*
 * cost_terms.c — a counter's cost per execution of each terminal (path or
 * block) of one thread's whole-program-path grammar, for analyses that
 * weigh symbols of the grammar (hot subpaths).  The grammar has one symbol
 * per execution but samples land on only some of them, so each terminal
 * gets the mean: the events its samples stand for over its executions.
 */
#include <stdlib.h>

#include "costs/costs.h"

struct term_key {
	int is_block;
	uint32_t fid;
	uint64_t value;
	uint32_t term;
};

static int key_cmp(const struct term_key *a, int is_block, uint32_t fid, uint64_t value)
{
	if (a->is_block != is_block)
		return a->is_block < is_block ? -1 : 1;
	if (a->fid != fid)
		return a->fid < fid ? -1 : 1;
	if (a->value != value)
		return a->value < value ? -1 : 1;
	return 0;
}

static int term_order(const void *x, const void *y)
{
	const struct term_key *b = y;
	return key_cmp(x, b->is_block, b->fid, b->value);
}

int cost_per_terminal(const struct cost_attribution *a, uint32_t pid, uint32_t gen, uint32_t tid,
		      const struct wpp_grammar_terminal *terms, const int *is_block,
		      const uint64_t *freq, uint32_t nterm, uint64_t *cost)
{
	struct term_key *keys = malloc((nterm ? nterm : 1) * sizeof(*keys));
	uint64_t *events = calloc(nterm ? nterm : 1, sizeof(*events));
	if (!keys || !events) {
		free(keys);
		free(events);
		return -1;
	}
	for (uint32_t t = 0; t < nterm; t++)
		keys[t] = (struct term_key){is_block[t] ? 1 : 0, terms[t].fid, terms[t].path_id, t};
	qsort(keys, nterm, sizeof(*keys), term_order);
	for (size_t i = 0; i < a->nhits; i++) {
		const struct cost_hit *h = &a->hits[i];
		if (h->pid != pid || h->gen != gen || h->tid != tid || !h->fn)
			continue;
		size_t lo = 0, hi = nterm;
		int is_b = h->is_block ? 1 : 0;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			int c = key_cmp(&keys[mid], is_b, h->fid, h->value);
			if (c == 0) {
				events[keys[mid].term] += h->weight;
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	for (uint32_t t = 0; t < nterm; t++)
		cost[t] = freq[t] ? (events[t] + freq[t] / 2) / freq[t] : 0; /* rounded mean */
	free(keys);
	free(events);
	return 0;
}
