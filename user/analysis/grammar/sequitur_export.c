/* SPDX-License-Identifier: MIT */
/*
 * sequitur_export.c — snapshot a builder as a canonical seq_grammar.
 *
 * Rules are numbered in the order a depth-first walk from the segment
 * roots (in segment order, bodies left to right) finishes them, so the
 * numbering depends only on the grammar's shape, never on node indices,
 * and every rule refers only to lower-numbered ones.
 */
#include "analysis/grammar/sequitur_internal.h"

#include <stdlib.h>
#include <string.h>

#define UNNUMBERED UINT32_MAX

struct walk {
	uint32_t guard, pos; /* pos: node to look at next in the body */
};

/* Number the rules reachable from root; order[] receives guards. */
static int number_rules(const struct seq_builder *b, uint32_t root, uint32_t *number,
			uint32_t *order, uint32_t *nrules, struct walk **stack, size_t *cap)
{
	size_t depth = 0;

	(*stack)[depth++] = (struct walk){root, b->n[root].next};
	while (depth) {
		struct walk *w = &(*stack)[depth - 1];
		if (w->pos == w->guard) {
			if (w->guard != root) {
				number[w->guard] = *nrules;
				order[(*nrules)++] = w->guard;
			}
			depth--;
			continue;
		}
		uint32_t s = b->n[w->pos].sym;
		w->pos = b->n[w->pos].next;
		if (!(s & SEQ_RULE_BIT))
			continue;
		uint32_t g = s & ~SEQ_RULE_BIT;
		if (number[g] != UNNUMBERED)
			continue;
		number[g] = UNNUMBERED - 1; /* on the stack */
		if (depth == *cap) {
			struct walk *bigger = realloc(*stack, 2 * *cap * sizeof(**stack));
			if (!bigger)
				return -1;
			*stack = bigger;
			*cap *= 2;
		}
		(*stack)[depth++] = (struct walk){g, b->n[g].next};
	}
	return 0;
}

static uint32_t copy_body(const struct seq_builder *b, uint32_t guard, const uint32_t *number,
			  uint32_t *out)
{
	uint32_t k = 0;

	for (uint32_t i = b->n[guard].next; i != guard; i = b->n[i].next) {
		uint32_t s = b->n[i].sym;
		out[k++] = (s & SEQ_RULE_BIT) ? SEQ_RULE_BIT | number[s & ~SEQ_RULE_BIT] : s;
	}
	return k;
}

int seq_export(const struct seq_builder *b, struct seq_grammar *out)
{
	uint32_t *number = NULL, *order = NULL, nrules = 0;
	size_t cap = 64;
	struct walk *stack = malloc(cap * sizeof(*stack));
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (b->failed || !stack)
		goto done;
	number = malloc((size_t)b->used * sizeof(*number));
	order = malloc((size_t)b->used * sizeof(*order));
	if (!number || !order)
		goto done;
	for (uint32_t i = 0; i < b->used; i++)
		number[i] = UNNUMBERED;
	for (uint32_t k = 0; k < b->nroots; k++)
		if (number_rules(b, b->roots[k], number, order, &nrules, &stack, &cap) < 0)
			goto done;

	uint64_t nsyms = b->body_symbols + (b->have_pending ? 1 : 0);
	if (seq_grammar_alloc(out, nrules, b->nroots, nsyms) < 0)
		goto done;
	out->flags = b->algo == SEQ_LOOKAHEAD ? SEQ_GRAMMAR_LOOKAHEAD : 0;
	uint32_t pos = 0;
	for (uint32_t r = 0; r < nrules; r++) {
		out->start[r] = pos;
		pos += copy_body(b, order[r], number, out->sym + pos);
	}
	for (uint32_t k = 0; k < b->nroots; k++) {
		out->start[nrules + k] = pos;
		pos += copy_body(b, b->roots[k], number, out->sym + pos);
	}
	if (b->have_pending)
		out->sym[pos++] = b->pending;
	out->start[nrules + b->nroots] = pos;
	rc = seq_grammar_finish(out, NULL, 0);
	if (rc < 0)
		seq_grammar_free(out);
done:
	free(number);
	free(order);
	free(stack);
	return rc;
}
