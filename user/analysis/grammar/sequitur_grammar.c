/* SPDX-License-Identifier: MIT */
/* Immutable grammar: allocation, validation, expansion.  See the header. */
#include "analysis/grammar/sequitur_grammar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EXPANSION (1ull << 62)

int seq_grammar_alloc(struct seq_grammar *g, uint32_t nrules, uint32_t nroots, uint64_t nsyms)
{
	uint64_t nodes = (uint64_t)nrules + nroots;

	memset(g, 0, sizeof(*g));
	if (nodes >= SEQ_RULE_BIT || nsyms > UINT32_MAX)
		return -1;
	g->nrules = nrules;
	g->nroots = nroots;
	g->start = calloc(nodes + 1, sizeof(*g->start));
	g->sym = malloc((nsyms ? nsyms : 1) * sizeof(*g->sym));
	g->exp_len = calloc(nodes ? nodes : 1, sizeof(*g->exp_len));
	if (!g->start || !g->sym || !g->exp_len) {
		seq_grammar_free(g);
		return -1;
	}
	return 0;
}

void seq_grammar_free(struct seq_grammar *g)
{
	free(g->start);
	free(g->sym);
	free(g->exp_len);
	memset(g, 0, sizeof(*g));
}

#define UNNUMBERED UINT32_MAX
#define ON_STACK   (UINT32_MAX - 1)

struct canon_frame {
	uint32_t node, pos;
};

/* Push node's frame (at its first symbol) onto the walk's growing stack.
 * 0, or -1 when out of memory (the stack is left as it was). */
static int push_frame(struct canon_frame **stack, size_t *cap, size_t *depth, uint32_t node)
{
	if (*depth == *cap) {
		struct canon_frame *bigger = realloc(*stack, 2 * *cap * sizeof(**stack));
		if (!bigger)
			return -1;
		*stack = bigger;
		*cap *= 2;
	}
	(*stack)[(*depth)++] = (struct canon_frame){node, 0};
	return 0;
}

int seq_grammar_canonical(const struct seq_grammar *in, struct seq_grammar *out)
{
	uint32_t nodes = seq_grammar_nodes(in), nrules = 0;
	uint32_t *number = malloc(((size_t)in->nrules + 1) * sizeof(*number));
	uint32_t *order = malloc(((size_t)in->nrules + 1) * sizeof(*order));
	size_t cap = 64, depth;
	struct canon_frame *stack = malloc(cap * sizeof(*stack));
	uint64_t nsyms = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!number || !order || !stack)
		goto done;
	for (uint32_t i = 0; i < in->nrules; i++)
		number[i] = UNNUMBERED;
	for (uint32_t root = in->nrules; root < nodes; root++) {
		depth = 0;
		stack[depth++] = (struct canon_frame){root, 0};
		nsyms += seq_grammar_body_len(in, root);
		while (depth) {
			struct canon_frame *f = &stack[depth - 1];
			if (f->pos == seq_grammar_body_len(in, f->node)) {
				if (f->node != root) {
					number[f->node] = nrules;
					order[nrules++] = f->node;
					nsyms += seq_grammar_body_len(in, f->node);
				}
				depth--;
				continue;
			}
			uint32_t s = seq_grammar_body(in, f->node)[f->pos++];
			if (!seq_is_rule(s))
				continue;
			if ((s & ~SEQ_RULE_BIT) >= in->nrules)
				goto done;
			if (number[s & ~SEQ_RULE_BIT] != UNNUMBERED)
				continue;
			number[s & ~SEQ_RULE_BIT] = ON_STACK;
			if (push_frame(&stack, &cap, &depth, s & ~SEQ_RULE_BIT) < 0)
				goto done;
		}
	}
	if (seq_grammar_alloc(out, nrules, in->nroots, nsyms) < 0)
		goto done;
	out->flags = in->flags;
	uint32_t pos = 0;
	for (uint32_t k = 0; k < nrules + in->nroots; k++) {
		uint32_t src = k < nrules ? order[k] : in->nrules + (k - nrules);
		const uint32_t *body = seq_grammar_body(in, src);
		out->start[k] = pos;
		for (uint32_t j = 0; j < seq_grammar_body_len(in, src); j++)
			out->sym[pos++] = seq_is_rule(body[j])
					      ? SEQ_RULE_BIT | number[body[j] & ~SEQ_RULE_BIT]
					      : body[j];
	}
	out->start[nrules + in->nroots] = pos;
	rc = seq_grammar_finish(out, NULL, 0);
	if (rc < 0)
		seq_grammar_free(out);
done:
	free(number);
	free(order);
	free(stack);
	return rc;
}

int seq_grammar_inline_once(const struct seq_grammar *in, struct seq_grammar *out)
{
	uint32_t nodes = seq_grammar_nodes(in), total = in->start[nodes];
	uint32_t *refs = calloc((size_t)in->nrules + 1, sizeof(*refs));
	size_t cap = 64, depth;
	struct canon_frame *stack = malloc(cap * sizeof(*stack));
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (!refs || !stack)
		goto done;
	for (uint32_t i = 0; i < nodes; i++) {
		const uint32_t *body = seq_grammar_body(in, i);
		for (uint32_t j = 0; j < seq_grammar_body_len(in, i); j++) {
			uint32_t r = body[j] & ~SEQ_RULE_BIT;
			if (!seq_is_rule(body[j]))
				continue;
			/* Children first: the walk below relies on it. */
			if (r >= in->nrules || (i < in->nrules && r >= i))
				goto done;
			refs[r] += refs[r] < 2;
		}
	}
	/* Every symbol lands in at most one body: a rule used once moves
	 * into its user and is left empty (no root reaches it any more). */
	if (seq_grammar_alloc(out, in->nrules, in->nroots, total) < 0)
		goto done;
	out->flags = in->flags;
	uint32_t pos = 0;
	for (uint32_t i = 0; i < nodes; i++) {
		out->start[i] = pos;
		if (i < in->nrules && refs[i] == 1)
			continue;
		depth = 0;
		stack[depth++] = (struct canon_frame){i, 0};
		while (depth) {
			struct canon_frame *f = &stack[depth - 1];
			if (f->pos == seq_grammar_body_len(in, f->node)) {
				depth--;
				continue;
			}
			uint32_t sym = seq_grammar_body(in, f->node)[f->pos++];
			if (!seq_is_rule(sym) || refs[sym & ~SEQ_RULE_BIT] != 1) {
				out->sym[pos++] = sym;
				continue;
			}
			if (push_frame(&stack, &cap, &depth, sym & ~SEQ_RULE_BIT) < 0) {
				seq_grammar_free(out);
				goto done;
			}
		}
	}
	out->start[nodes] = pos;
	rc = 0;
done:
	free(refs);
	free(stack);
	return rc;
}

static int fail(char *why, size_t whylen, const char *msg, uint32_t node)
{
	if (why && whylen)
		snprintf(why, whylen, "%s (node %u)", msg, node);
	return -1;
}

int seq_grammar_finish(struct seq_grammar *g, char *why, size_t whylen)
{
	uint32_t nodes = seq_grammar_nodes(g);

	if (g->start[0] != 0)
		return fail(why, whylen, "body offsets do not start at 0", 0);
	for (uint32_t i = 0; i < nodes; i++) {
		if (g->start[i + 1] < g->start[i])
			return fail(why, whylen, "body offsets go backwards", i);
		uint32_t n = seq_grammar_body_len(g, i);
		const uint32_t *body = seq_grammar_body(g, i);
		uint64_t len = 0;

		if (i < g->nrules && n == 0)
			return fail(why, whylen, "empty rule", i);
		for (uint32_t j = 0; j < n; j++) {
			uint32_t s = body[j];
			uint64_t add = 1;

			if (seq_is_rule(s)) {
				uint32_t r = s & ~SEQ_RULE_BIT;
				/* Only lower-numbered rules: no cycles, and
				 * exp_len[r] is already known. */
				if (r >= g->nrules || (i < g->nrules && r >= i))
					return fail(why, whylen, "reference to a later rule", i);
				add = g->exp_len[r];
			} else if (s >= SEQ_TERMINAL_LIMIT) {
				return fail(why, whylen, "terminal out of range", i);
			}
			len += add;
			if (len >= MAX_EXPANSION)
				return fail(why, whylen, "expansion too long", i);
		}
		g->exp_len[i] = len;
	}
	return 0;
}

uint64_t seq_grammar_total_len(const struct seq_grammar *g)
{
	uint64_t total = 0;

	for (uint32_t k = 0; k < g->nroots; k++)
		total += g->exp_len[g->nrules + k];
	return total;
}

/* An explicit stack of (node, next body position): grammars can be deep
 * (a long run of one symbol nests log n rules, adversarial ones more), so
 * no recursion. */
struct frame {
	uint32_t node, pos;
};

#define EMIT_CHUNK 4096

static int expand(const struct seq_grammar *g, uint32_t top, seq_emit_fn emit, void *ctx)
{
	size_t cap = 64, depth = 0;
	struct frame *stack = malloc(cap * sizeof(*stack));
	uint32_t buf[EMIT_CHUNK];
	size_t nbuf = 0;
	int rc = 0;

	if (!stack)
		return -1;
	stack[depth++] = (struct frame){top, 0};
	while (depth) {
		struct frame *f = &stack[depth - 1];
		if (f->pos == seq_grammar_body_len(g, f->node)) {
			depth--;
			continue;
		}
		uint32_t s = seq_grammar_body(g, f->node)[f->pos++];
		if (!seq_is_rule(s)) {
			buf[nbuf++] = s;
			if (nbuf == EMIT_CHUNK) {
				rc = emit(ctx, buf, nbuf);
				nbuf = 0;
				if (rc)
					goto out;
			}
			continue;
		}
		if (depth == cap) {
			struct frame *bigger = realloc(stack, 2 * cap * sizeof(*stack));
			if (!bigger) {
				rc = -1;
				goto out;
			}
			stack = bigger;
			cap *= 2;
		}
		stack[depth++] = (struct frame){s & ~SEQ_RULE_BIT, 0};
	}
	if (nbuf)
		rc = emit(ctx, buf, nbuf);
out:
	free(stack);
	return rc;
}

int seq_grammar_expand_root(const struct seq_grammar *g, uint32_t k, seq_emit_fn emit, void *ctx)
{
	if (k >= g->nroots)
		return -1;
	return expand(g, g->nrules + k, emit, ctx);
}

static int copy_out(void *ctx, const uint32_t *syms, size_t n)
{
	uint32_t **out = ctx;

	memcpy(*out, syms, n * sizeof(*syms));
	*out += n;
	return 0;
}

int seq_grammar_expand_node(const struct seq_grammar *g, uint32_t node, uint32_t *out)
{
	if (node >= seq_grammar_nodes(g))
		return -1;
	return expand(g, node, copy_out, &out);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

int seq_grammar_terminals(const struct seq_grammar *g, uint32_t **vals, uint32_t *n)
{
	uint32_t total = g->start[seq_grammar_nodes(g)], k = 0, u = 0;
	uint32_t *v = malloc((total ? total : 1) * sizeof(*v));

	if (!v)
		return -1;
	for (uint32_t j = 0; j < total; j++)
		if (!seq_is_rule(g->sym[j]))
			v[k++] = g->sym[j];
	qsort(v, k, sizeof(*v), cmp_u32);
	for (uint32_t j = 0; j < k; j++)
		if (u == 0 || v[j] != v[u - 1])
			v[u++] = v[j];
	*vals = v;
	*n = u;
	return 0;
}

uint32_t seq_grammar_terminal_rank(const uint32_t *vals, uint32_t n, uint32_t t)
{
	const uint32_t *hit = bsearch(&t, vals, n, sizeof(*vals), cmp_u32);
	return hit ? (uint32_t)(hit - vals) : n;
}
