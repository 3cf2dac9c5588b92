/* SPDX-License-Identifier: MIT */
/*
 * sequitur_grammar.h — a finished, immutable SEQUITUR grammar in DAG form.
 *
 * This is what the builder exports, what the serializer writes and parses,
 * and what the analyses (wppdag.h, hotsub.h) read.  Nodes are numbered so
 * that every rule only refers to rules with smaller numbers (children
 * first, a post-order), which makes the grammar acyclic by construction:
 *
 *   node i in [0, nrules)               an ordinary rule (non-terminal)
 *   node nrules + k, k in [0, nroots)   the start rule of segment k
 *
 * Segments are the stretches of a thread's stream between gaps (lost
 * events); they share rules but no digram ever spans two segments.
 * Body symbols: a value below SEQ_RULE_BIT is a terminal (the caller's
 * symbol, e.g. a dense id for a (function, path) pair); SEQ_RULE_BIT | i
 * refers to rule i.
 */
#ifndef WPP_SEQUITUR_GRAMMAR_H
#define WPP_SEQUITUR_GRAMMAR_H

#include <stddef.h>
#include <stdint.h>

#define SEQ_RULE_BIT 0x80000000u
/* Terminals must be below this value (0x7fffffff is kept as a marker). */
#define SEQ_TERMINAL_LIMIT 0x7fffffffu

enum seq_grammar_flags {
	SEQ_GRAMMAR_LOOKAHEAD = 1u << 0, /* built by SEQUITUR(1) */
	/* Built by the chunked builder (sequitur_chunked.h).  Not serialized
	 * (readers that predate it refuse unknown flags): the GRAMMAR chunk's
	 * header carries it as WPP_GRAMMAR_CHUNKED. */
	SEQ_GRAMMAR_CHUNKED = 1u << 1,
};

struct seq_grammar {
	uint32_t nrules;   /* ordinary rules, nodes [0, nrules) */
	uint32_t nroots;   /* segments, nodes [nrules, nrules + nroots) */
	uint32_t flags;	   /* enum seq_grammar_flags */
	uint32_t *start;   /* body of node i is sym[start[i] .. start[i+1]) */
	uint32_t *sym;	   /* all bodies, concatenated */
	uint64_t *exp_len; /* length of each node's expansion */
};

static inline uint32_t seq_grammar_nodes(const struct seq_grammar *g)
{
	return g->nrules + g->nroots;
}

static inline uint32_t seq_grammar_body_len(const struct seq_grammar *g, uint32_t node)
{
	return g->start[node + 1] - g->start[node];
}

static inline const uint32_t *seq_grammar_body(const struct seq_grammar *g, uint32_t node)
{
	return g->sym + g->start[node];
}

static inline int seq_is_rule(uint32_t sym)
{
	return (sym & SEQ_RULE_BIT) != 0;
}

/* Allocate arrays for nrules + nroots bodies holding nsyms symbols in all;
 * the caller fills start[] and sym[] and then calls seq_grammar_finish(). */
int seq_grammar_alloc(struct seq_grammar *g, uint32_t nrules, uint32_t nroots, uint64_t nsyms);

/* Check the structure (offsets monotone, rules non-empty and referring only
 * to lower-numbered rules, roots referring only to rules, terminals below
 * SEQ_TERMINAL_LIMIT, expansion lengths below 2^62) and compute exp_len.
 * 0, or -1 with a reason in why (when why is not NULL). */
int seq_grammar_finish(struct seq_grammar *g, char *why, size_t whylen);

void seq_grammar_free(struct seq_grammar *g);

/* Copy in (bodies and flags; every rule referring only to lower-numbered
 * rules, finished or not) into out in seq_export's canonical numbering:
 * rules numbered in the order a depth-first walk from the roots (in
 * order, bodies left to right) finishes them; rules no root reaches are
 * left out.  out is finished (validated).  0, or -1 (no memory, or out
 * does not validate). */
int seq_grammar_canonical(const struct seq_grammar *in, struct seq_grammar *out);

/* Copy in (every rule referring only to lower-numbered rules) into out
 * with every rule that is used once inlined into its user (the rule is
 * left empty and unreachable: pass out through seq_grammar_canonical,
 * which drops it).  The expansion is unchanged; the grammar has fewer
 * rules and symbols.  out is not finished.  0, or -1 (no memory, or in
 * is not children first). */
int seq_grammar_inline_once(const struct seq_grammar *in, struct seq_grammar *out);

/* The distinct terminal values of g's bodies, increasing, in a malloc'd
 * *vals (*n of them): how a grammar without a terminal table (a raw one)
 * names and renumbers its terminals.  0, or -1 when out of memory. */
int seq_grammar_terminals(const struct seq_grammar *g, uint32_t **vals, uint32_t *n);
/* Terminal t's position in such a table (n when it is not there). */
uint32_t seq_grammar_terminal_rank(const uint32_t *vals, uint32_t n, uint32_t t);

/* Total expanded length of all segments. */
uint64_t seq_grammar_total_len(const struct seq_grammar *g);

/* Expand segment k, calling emit with consecutive runs of terminals (at
 * most a few thousand at a time).  A non-zero return from emit stops the
 * expansion and is returned; -1 also means out of memory. */
typedef int (*seq_emit_fn)(void *ctx, const uint32_t *syms, size_t n);
int seq_grammar_expand_root(const struct seq_grammar *g, uint32_t k, seq_emit_fn emit, void *ctx);

/* Expand node (rule or root) into out, which holds exp_len[node] symbols. */
int seq_grammar_expand_node(const struct seq_grammar *g, uint32_t node, uint32_t *out);

#endif
