/* SPDX-License-Identifier: MIT */
/*
 * sequitur_chunked_export.c — one grammar from the chunked builder's
 * levels (see sequitur_chunked.h).
 *
 * A work grammar is assembled children first, level by level: the runs
 * (doubling rules), the body SEQUITUR(1)'s rules with atoms replaced by
 * their symbols, one rule per unique chunk; then the top's runs of the
 * last level's chunks and the top SEQUITUR(1)'s rules and roots with its
 * atoms replaced; the runs and chunks still in progress are appended to
 * the last root as symbols.  The
 * result is renumbered canonically (seq_grammar_canonical), so it depends
 * on the grammar's shape only.
 */
#include "analysis/grammar/sequitur_chunked_internal.h"

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

/* Level k's grammar into w: its atoms' symbols (units through unit_sym,
 * NULL at level 0 where units are terminals), its run in progress as
 * *run_tail, the body's rules and a symbol per unique chunk (*chunk_sym,
 * the next level's unit symbols).  The atom symbols are returned. */
static uint32_t *export_level(struct work *w, const struct seqc_level *l, const uint32_t *unit_sym,
			      uint32_t *run_tail, uint32_t **chunk_sym)
{
	struct seq_grammar body = {0};
	uint32_t *atom_sym = run_symbols(w, &l->atoms, unit_sym, l->run_sym, l->run_n, run_tail);
	uint32_t base = w->nnodes;

	*chunk_sym = malloc(((size_t)l->chunks.nchunks + 1) * sizeof(**chunk_sym));
	if (!atom_sym || !*chunk_sym || seq_export(l->body, &body) < 0 ||
	    (l->chunks.nchunks && body.nroots != l->chunks.nchunks)) {
		w->failed = 1;
		seq_grammar_free(&body);
		return atom_sym;
	}
	for (uint32_t r = 0; r < body.nrules && !w->failed; r++)
		copy_node(w, &body, r, atom_sym, base, NULL, 0);
	for (uint32_t c = 0; c < l->chunks.nchunks && !w->failed; c++) {
		uint32_t root = body.nrules + c;
		if (seq_grammar_body_len(&body, root) == 1) {
			uint32_t s = seq_grammar_body(&body, root)[0];
			(*chunk_sym)[c] = seq_is_rule(s)
					      ? SEQ_RULE_BIT | (base + (s & ~SEQ_RULE_BIT))
					      : atom_sym[s];
		} else {
			(*chunk_sym)[c] = copy_node(w, &body, root, atom_sym, base, NULL, 0);
		}
	}
	seq_grammar_free(&body);
	return atom_sym;
}

int seqc_export(struct seqc_builder *b, struct seq_grammar *out)
{
	struct work w = {0};
	struct seq_grammar top = {0}, assembled = {0}, flat = {0};
	uint32_t *atom_sym[SEQC_MAX_LEVELS + 1] = {0}, *chunk_sym[SEQC_MAX_LEVELS] = {0};
	uint32_t run_tail[SEQC_MAX_LEVELS + 1], *tail = NULL, ntail = 0, roots_from;
	uint64_t tail_cap;
	const struct seqc_level *lt = &b->lv[b->nlevels];
	int rc = -1;

	memset(out, 0, sizeof(*out));
	seqc_settle(b); /* before anything is read */
	tail_cap = b->ntop_pending + 1;
	if (b->failed || seq_export(b->top, &top) < 0)
		goto done;
	/* Children first: each level's runs, body rules and chunks, then
	 * the top's runs. */
	for (uint32_t k = 0; k < b->nlevels && !w.failed; k++) {
		atom_sym[k] = export_level(&w, &b->lv[k], k ? chunk_sym[k - 1] : NULL, &run_tail[k],
					   &chunk_sym[k]);
		tail_cap += b->lv[k].cur_len + 1;
	}
	if (w.failed)
		goto done;
	atom_sym[b->nlevels] =
	    run_symbols(&w, &lt->atoms, b->nlevels ? chunk_sym[b->nlevels - 1] : NULL, lt->run_sym,
			lt->run_n, &run_tail[b->nlevels]);
	if (w.failed || !atom_sym[b->nlevels])
		goto done;
	/* What the top builder has not seen, in stream order: the pending
	 * top atoms, the top's run in progress, then from the highest level
	 * down each level's partial chunk and run in progress. */
	tail = malloc(tail_cap * sizeof(*tail));
	if (!tail)
		goto done;
	for (uint32_t i = 0; i < b->ntop_pending; i++)
		tail[ntail++] = atom_sym[b->nlevels][b->top_pending[i]];
	if (run_tail[b->nlevels] != NOSYM)
		tail[ntail++] = run_tail[b->nlevels];
	for (uint32_t k = b->nlevels; k-- > 0;) {
		for (uint32_t i = 0; i < b->lv[k].cur_len; i++)
			tail[ntail++] = atom_sym[k][b->lv[k].cur[i]];
		if (run_tail[k] != NOSYM)
			tail[ntail++] = run_tail[k];
	}
	/* Top rules and roots. */
	uint32_t top_base = w.nnodes;
	for (uint32_t r = 0; r < top.nrules && !w.failed; r++)
		copy_node(&w, &top, r, atom_sym[b->nlevels], top_base, NULL, 0);
	roots_from = w.nnodes;
	for (uint32_t k = 0; k < top.nroots && !w.failed; k++)
		copy_node(&w, &top, top.nrules + k, atom_sym[b->nlevels], top_base, tail,
			  k + 1 == top.nroots ? ntail : 0);
	if (w.failed)
		goto done;

	assembled = (struct seq_grammar){.nrules = roots_from,
					 .nroots = w.nnodes - roots_from,
					 .flags = SEQ_GRAMMAR_CHUNKED,
					 .start = w.start,
					 .sym = w.sym};
	seq_grammar_free(&top); /* copied: the peak is the copies below */
	/* Rules used once (a chunk seen once, a run of a length seen once)
	 * go into their users: fewer, larger rules, as SEQUITUR's utility
	 * rule would have it. */
	if (seq_grammar_inline_once(&assembled, &flat) < 0)
		goto done;
	free(w.sym);
	free(w.start);
	w.sym = w.start = NULL;
	rc = seq_grammar_canonical(&flat, out);
done:
	seq_grammar_free(&flat);
	seq_grammar_free(&top);
	for (uint32_t k = 0; k <= b->nlevels; k++) {
		free(atom_sym[k]);
		if (k < b->nlevels)
			free(chunk_sym[k]);
	}
	free(tail);
	free(w.sym);
	free(w.start);
	return rc;
}
