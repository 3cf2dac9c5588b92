/* SPDX-License-Identifier: MIT */
/*
 * sequitur_chunked_export.c — one grammar from the chunked builder's
 * levels (see sequitur_chunked.h).
 *
 * A work grammar is assembled children first: the terminal runs (doubling
 * rules), the body SEQUITUR(1)'s rules with atoms replaced by their
 * symbols, one rule per unique chunk, the chunk runs, the top
 * SEQUITUR(1)'s rules and roots with top atoms replaced; the run and the
 * chunk still in progress are appended to the last root as symbols.  The
 * result is renumbered canonically (seq_grammar_canonical), so it depends
 * on the grammar's shape only.
 */
#include "sequitur_chunked_internal.h"

#include <stdlib.h>
#include <string.h>

#define NOSYM UINT32_MAX

/* The work grammar: rules in creation order (each refers only to earlier
 * ones), then the roots. */
struct work {
	uint32_t *sym, *start;
	uint64_t nsym, sym_cap;
	uint32_t nnodes, start_cap;
	int failed;
};

static int work_reserve(struct work *w, uint64_t more_syms)
{
	if (w->nnodes + 2 > w->start_cap) {
		uint32_t cap = w->start_cap ? 2 * w->start_cap : 256;
		uint32_t *s = realloc(w->start, (size_t)cap * sizeof(*s));
		if (!s)
			return -1;
		w->start = s;
		w->start_cap = cap;
	}
	if (w->nsym + more_syms > w->sym_cap) {
		uint64_t cap = w->sym_cap ? 2 * w->sym_cap : 1024;
		while (cap < w->nsym + more_syms)
			cap *= 2;
		if (cap > UINT32_MAX)
			return -1;
		uint32_t *s = realloc(w->sym, cap * sizeof(*s));
		if (!s)
			return -1;
		w->sym = s;
		w->sym_cap = cap;
	}
	return 0;
}

/* The n symbols written after w->sym[w->nsym] (room reserved) become a
 * new node; its symbol (a rule reference). */
static uint32_t work_commit(struct work *w, uint32_t n)
{
	if (w->nnodes >= SEQ_RULE_BIT - 1) {
		w->failed = 1;
		return NOSYM;
	}
	w->start[w->nnodes] = (uint32_t)w->nsym;
	w->nsym += n;
	w->start[++w->nnodes] = (uint32_t)w->nsym;
	return SEQ_RULE_BIT | (w->nnodes - 1);
}

/* A new node with body[0..n) (not inside w->sym). */
static uint32_t work_node(struct work *w, const uint32_t *body, uint32_t n)
{
	if (w->failed || work_reserve(w, n) < 0) {
		w->failed = 1;
		return NOSYM;
	}
	memcpy(w->sym + w->nsym, body, (size_t)n * sizeof(*body));
	return work_commit(w, n);
}

/* ---- runs: sym^n from doubling rules ---- */

struct run_req {
	uint32_t sym; /* the symbol repeated */
	uint64_t n;   /* >= 2 */
	uint32_t *out;
};

static int cmp_req(const void *a, const void *b)
{
	const struct run_req *x = a, *y = b;
	return (x->sym > y->sym) - (x->sym < y->sym);
}

static int top_bit(uint64_t n)
{
	return 63 - __builtin_clzll(n);
}

/* Resolve every request: the doubling rules D1 = sym sym, Dk = D(k-1)
 * D(k-1) are made once per symbol (up to the largest n asked for), and
 * sym^n is Dk itself when n = 2^k, else a rule of the Dk for n's set
 * bits, highest first (bit 0: sym itself). */
static void resolve_runs(struct work *w, struct run_req *req, size_t n)
{
	uint32_t chain[64], body[64];

	qsort(req, n, sizeof(*req), cmp_req);
	for (size_t i = 0; i < n && !w->failed;) {
		size_t j = i;
		uint64_t most = 0;
		while (j < n && req[j].sym == req[i].sym)
			most |= req[j++].n;
		chain[0] = req[i].sym;
		for (int k = 1; k <= top_bit(most); k++) {
			uint32_t pair[2] = {chain[k - 1], chain[k - 1]};
			chain[k] = work_node(w, pair, 2);
		}
		for (; i < j; i++) {
			uint64_t m = req[i].n;
			uint32_t nb = 0;
			if (!(m & (m - 1))) {
				*req[i].out = chain[top_bit(m)];
				continue;
			}
			for (int k = top_bit(m); k >= 0; k--)
				if (m >> k & 1)
					body[nb++] = chain[k];
			*req[i].out = work_node(w, body, nb);
		}
	}
}

/* The symbols of a run table's entries: table[id] = sym_of(runs[id].sym)
 * repeated n times; plus one extra run (sym, n) (n 0: none) into *extra. */
static uint32_t *run_symbols(struct work *w, const struct seqc_run_table *t, const uint32_t *sym_of,
			     uint32_t extra_sym, uint64_t extra_n, uint32_t *extra)
{
	uint32_t *out = malloc(((size_t)t->nruns + 1) * sizeof(*out));
	struct run_req *req = malloc(((size_t)t->nruns + 1) * sizeof(*req));
	size_t nreq = 0;

	if (!out || !req) {
		free(out);
		free(req);
		w->failed = 1;
		return NULL;
	}
	for (uint32_t id = 0; id < t->nruns; id++) {
		uint32_t s = sym_of ? sym_of[t->runs[id].sym] : t->runs[id].sym;
		if (t->runs[id].n == 1)
			out[id] = s;
		else
			req[nreq++] = (struct run_req){s, t->runs[id].n, &out[id]};
	}
	*extra = NOSYM;
	/* The run in progress may equal a finished one: then its symbol. */
	uint32_t known = extra_n > 1 ? seqc_run_find(t, extra_sym, extra_n) : UINT32_MAX;
	if (extra_n == 1)
		*extra = sym_of ? sym_of[extra_sym] : extra_sym;
	else if (extra_n > 1 && known == UINT32_MAX)
		req[nreq++] =
		    (struct run_req){sym_of ? sym_of[extra_sym] : extra_sym, extra_n, extra};
	resolve_runs(w, req, nreq);
	if (known != UINT32_MAX && !w->failed)
		*extra = out[known];
	free(req);
	return out;
}

/* Copy node i of g into w, terminals through term_sym[], rule r as
 * rule_base + r.  Its symbol. */
static uint32_t copy_node(struct work *w, const struct seq_grammar *g, uint32_t i,
			  const uint32_t *term_sym, uint32_t rule_base, const uint32_t *tail,
			  uint32_t ntail)
{
	uint32_t n = seq_grammar_body_len(g, i);
	const uint32_t *body = seq_grammar_body(g, i);

	if (w->failed || work_reserve(w, (uint64_t)n + ntail + 1) < 0) {
		w->failed = 1;
		return NOSYM;
	}
	uint32_t *dst = w->sym + w->nsym;
	for (uint32_t j = 0; j < n; j++)
		dst[j] = seq_is_rule(body[j])
			     ? SEQ_RULE_BIT | (rule_base + (body[j] & ~SEQ_RULE_BIT))
			     : term_sym[body[j]];
	if (ntail)
		memcpy(dst + n, tail, (size_t)ntail * sizeof(*tail));
	return work_commit(w, n + ntail);
}

int seqc_export(const struct seqc_builder *b, struct seq_grammar *out)
{
	struct work w = {0};
	struct seq_grammar body = {0}, top = {0}, assembled = {0};
	uint32_t *atom_sym = NULL, *chunk_sym = NULL, *top_sym = NULL, *tail = NULL;
	uint32_t run_tail, top_tail, ntail = 0, roots_from;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	if (b->failed || seq_export(b->body, &body) < 0 || seq_export(b->top, &top) < 0)
		goto done;

	/* Terminal runs: atom -> symbol (the run in progress too). */
	atom_sym = run_symbols(&w, &b->atoms, NULL, b->run_t, b->run_n, &run_tail);
	/* Body rules, then one node per unique chunk. */
	uint32_t body_base = w.nnodes;
	for (uint32_t r = 0; r < body.nrules && !w.failed; r++)
		copy_node(&w, &body, r, atom_sym, body_base, NULL, 0);
	chunk_sym = malloc(((size_t)b->chunks.nchunks + 1) * sizeof(*chunk_sym));
	if (!chunk_sym || w.failed || (b->chunks.nchunks && body.nroots != b->chunks.nchunks))
		goto done;
	for (uint32_t c = 0; c < b->chunks.nchunks && !w.failed; c++) {
		uint32_t root = body.nrules + c;
		if (seq_grammar_body_len(&body, root) == 1) {
			uint32_t s = seq_grammar_body(&body, root)[0];
			chunk_sym[c] = seq_is_rule(s)
					   ? SEQ_RULE_BIT | (body_base + (s & ~SEQ_RULE_BIT))
					   : atom_sym[s];
		} else {
			chunk_sym[c] = copy_node(&w, &body, root, atom_sym, body_base, NULL, 0);
		}
	}
	/* Chunk runs: top atom -> symbol (the run in progress too). */
	top_sym = run_symbols(&w, &b->top_atoms, chunk_sym, b->top_c, b->top_n, &top_tail);
	if (w.failed)
		goto done;
	/* What the top builder has not seen: the pending top atoms, the chunk
	 * run in progress, the partial chunk, the terminal run in progress. */
	tail = malloc(((size_t)b->ntop_pending + b->cur_len + 2) * sizeof(*tail));
	if (!tail)
		goto done;
	for (uint32_t i = 0; i < b->ntop_pending; i++)
		tail[ntail++] = top_sym[b->top_pending[i]];
	if (top_tail != NOSYM)
		tail[ntail++] = top_tail;
	for (uint32_t i = 0; i < b->cur_len; i++)
		tail[ntail++] = atom_sym[b->cur[i]];
	if (run_tail != NOSYM)
		tail[ntail++] = run_tail;
	/* Top rules and roots. */
	uint32_t top_base = w.nnodes;
	for (uint32_t r = 0; r < top.nrules && !w.failed; r++)
		copy_node(&w, &top, r, top_sym, top_base, NULL, 0);
	roots_from = w.nnodes;
	for (uint32_t k = 0; k < top.nroots && !w.failed; k++)
		copy_node(&w, &top, top.nrules + k, top_sym, top_base, tail,
			  k + 1 == top.nroots ? ntail : 0);
	if (w.failed)
		goto done;

	assembled = (struct seq_grammar){.nrules = roots_from,
					 .nroots = w.nnodes - roots_from,
					 .flags = SEQ_GRAMMAR_CHUNKED,
					 .start = w.start,
					 .sym = w.sym};
	rc = seq_grammar_canonical(&assembled, out);
done:
	seq_grammar_free(&body);
	seq_grammar_free(&top);
	free(atom_sym);
	free(chunk_sym);
	free(top_sym);
	free(tail);
	free(w.sym);
	free(w.start);
	return rc;
}
