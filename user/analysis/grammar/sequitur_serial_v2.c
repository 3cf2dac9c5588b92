/* SPDX-License-Identifier: MIT */
/*
 * sequitur_serial_v2.c — grammar format version 2: the body symbols
 * range-coded against adaptive models (docs/sequitur.md has the layout
 * and the measurements behind each choice).
 *
 * What is predictable, and how it is used:
 *
 *  - First occurrences cost (almost) nothing.  Rules are numbered in the
 *    post-order of a depth-first walk from the roots, so a rule's first
 *    reference (a "new" symbol) always points to a rule that is fully
 *    determined: within a rule body, its c new children are the c most
 *    recent rules not referenced yet, in order; in a root, the oldest one.
 *    A new terminal is the next entry of the terminal table, which lists
 *    terminals in order of first occurrence.  So a new symbol costs one
 *    flag and one kind bit.
 *  - Control flow makes the next path predictable from the previous one:
 *    a repeated symbol's first terminal is coded as its rank in a
 *    move-to-front list of the first terminals that followed the previous
 *    symbol's last terminal before.
 *  - Given its first terminal, the symbol is coded as its rank in a
 *    move-to-front list of the symbols seen so far that start with that
 *    terminal.
 *  - Anything the lists miss is coded absolutely: a terminal number, or a
 *    rule's distance below the current one as in version 1 — in version 4,
 *    its rank among the earlier rules that start with the same terminal,
 *    newest first (the first terminal is already known).  The lists of
 *    versions 2 and 3 are capped and scanned; version 4's class lists
 *    hold every symbol and answer in O(log n) (sequitur_recency.h).
 *
 * The encoder and the decoder run the same model code (struct model); the
 * encoder writes version 1 instead when the grammar is not in the
 * canonical numbering (seq_export always produces it; a hand-made grammar
 * may not).
 */
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "analysis/grammar/grow_u32.h"
#include "analysis/grammar/sequitur_rc.h"
#include "analysis/grammar/sequitur_recency.h"
#include "analysis/grammar/sequitur_serial_internal.h"

#define SUCC_CAP  256u	/* first terminals remembered after a terminal */
#define CLASS_CAP 1024u /* symbols remembered per first terminal (v2, v3) */
#define NONE	  UINT32_MAX
/* A decision costs at least ~0.011 bits (see sequitur_rc.h) and a symbol
 * takes at least two, so a payload of N bytes cannot hold more than ~380 N
 * symbols; the decoder accepts at most 256 N, which keeps a hostile header
 * from asking for a huge allocation, and the encoder writes version 1 for
 * the (never yet seen) grammar that would compress better than that. */
#define SYMS_PER_BYTE 256u

/* A capped move-to-front list of uint32 values. */
struct mtf {
	uint32_t *v;
	uint32_t n, cap;
};

static uint32_t mtf_find(const struct mtf *l, uint32_t x)
{
	for (uint32_t r = 0; r < l->n; r++)
		if (l->v[r] == x)
			return r;
	return NONE;
}

/* Move the entry at rank r (or a new entry x, r == NONE) towards the front:
 * all the way, or (ahead) to a quarter of its rank.  A new entry always
 * goes to the front. */
static int mtf_move(struct mtf *l, uint32_t r, uint32_t x, uint32_t limit, int ahead)
{
	uint32_t to = 0;

	if (r == NONE) {
		if (l->n < limit) {
			if (l->n == l->cap && grow_u32(&l->v, &l->cap, 4) < 0)
				return -1;
			l->n++;
		}
		r = l->n - 1; /* the last entry falls off when full */
	} else if (ahead) {
		to = r / 4;
	}
	memmove(l->v + to + 1, l->v + to, (r - to) * sizeof(*l->v));
	l->v[to] = x;
	return 0;
}

/* Rank contexts: the list's size by bit length (version 2 lumps every
 * size from 64 up together, version 3 every size from 1 024 up: its lists
 * hold up to 1 024 entries; version 4's class lists have no cap). */
#define RANK_CONTEXTS 24

static unsigned size_bucket(uint32_t n, unsigned cap)
{
	unsigned b = 0;
	while (n && b < cap) {
		b++;
		n >>= 1;
	}
	return b;
}

/* What the model keeps per rule, side by side: coding a repeated rule
 * reads all of it, and rules are looked up in no particular order, so one
 * cache miss instead of one per array. */
struct rule_info {
	uint32_t first, last; /* terminal numbers at its ends */
	uint32_t stamp;	      /* v4: its stamp in its class list (0: none yet) */
	uint32_t parent;      /* encoder: position of its "new" reference */
};

struct model {
	/* Version 3 (tuned on the benchmark's synthetic trace and on the
	 * random-loop trace of tests/e2e/wpp-raw.sh): every bit of small
	 * ranks and distances modelled, a context per size of list up to
	 * 1 024, successor lists move a hit only part of the way up, so
	 * one unusual successor does not push the usual ones down. */
	int v3;
	/* Version 4: the class lists have no cap (struct recency: ranks in
	 * O(log n)); a rule they miss — one referenced before its "new"
	 * reference is coded — is coded by its rank among the rules before
	 * it that start with the same terminal.  On real programs' streams the
	 * capped lists of the commonest terminals overflowed, and the
	 * distance below the current node cost ~17 bits. */
	int v4;
	uint16_t is_new[8];   /* [root][first in body][previous was new] */
	uint16_t new_rule[2]; /* new symbol: rule (1) or terminal (0), [root] */
	uint16_t abs_rule[2]; /* escaped symbol: rule or terminal, [root] */
	struct rc_gamma_model len[2], succ_rank[RANK_CONTEXTS], class_rank[RANK_CONTEXTS], term[2],
	    rule_dist, first_rank[RANK_CONTEXTS];

	uint32_t nterm, nrules;
	struct mtf *succ;	/* per terminal number: following first terminals */
	struct mtf *cls;	/* v2, v3, per terminal number: symbols starting with it */
	struct rule_info *rule; /* per rule */
	struct recency *rec;	/* v4, per terminal number: the class list */
	uint32_t *term_stamp;	/* v4: each terminal's stamp in it */
	struct mtf *by_first;	/* v4, per terminal number: the rules that start
				   with it, in increasing order (an append-only
				   list: mtf only for its storage) */

	/* Rules not referenced yet, oldest first; roots take from the
	 * bottom, rule bodies from the top. */
	uint32_t *unclaimed;
	uint32_t nunclaimed, bottom;
	uint32_t next_term; /* terminals seen so far */
};

static void model_free(struct model *m)
{
	for (uint32_t t = 0; m->succ && t < m->nterm; t++)
		free(m->succ[t].v);
	for (uint32_t t = 0; m->cls && t < m->nterm; t++)
		free(m->cls[t].v);
	for (uint32_t t = 0; m->by_first && t < m->nterm; t++)
		free(m->by_first[t].v);
	free(m->by_first);
	for (uint32_t t = 0; m->rec && t < m->nterm; t++)
		recency_free(&m->rec[t]);
	free(m->rec);
	free(m->term_stamp);
	free(m->succ);
	free(m->cls);
	free(m->rule);
	free(m->unclaimed);
}

static int model_init(struct model *m, uint32_t nterm, uint32_t nrules, unsigned version)
{
	void (*gamma_init)(struct rc_gamma_model *) =
	    version >= 3 ? rc_gamma_init_fine : rc_gamma_init;

	memset(m, 0, sizeof(*m));
	m->v3 = version >= 3;
	m->v4 = version >= 4;
	rc_probs_init(m->is_new, 8);
	rc_probs_init(m->new_rule, 2);
	rc_probs_init(m->abs_rule, 2);
	for (int i = 0; i < 2; i++) {
		gamma_init(&m->len[i]);
		gamma_init(&m->term[i]);
	}
	for (int i = 0; i < RANK_CONTEXTS; i++) {
		gamma_init(&m->succ_rank[i]);
		gamma_init(&m->class_rank[i]);
		gamma_init(&m->first_rank[i]);
	}
	gamma_init(&m->rule_dist);
	m->nterm = nterm;
	m->nrules = nrules;
	m->succ = calloc(nterm ? nterm : 1, sizeof(*m->succ));
	m->rule = calloc(nrules ? nrules : 1, sizeof(*m->rule));
	m->unclaimed = malloc((nrules ? nrules : 1) * sizeof(*m->unclaimed));
	if (!m->v4) {
		m->cls = calloc(nterm ? nterm : 1, sizeof(*m->cls));
	} else {
		m->by_first = calloc(nterm ? nterm : 1, sizeof(*m->by_first));
		m->rec = calloc(nterm ? nterm : 1, sizeof(*m->rec));
		m->term_stamp = calloc(nterm ? nterm : 1, sizeof(*m->term_stamp));
	}
	if (!m->succ || !m->rule || !m->unclaimed ||
	    (m->v4 ? !m->by_first || !m->rec || !m->term_stamp : !m->cls)) {
		model_free(m);
		return -1;
	}
	return 0;
}

/* Context of a rank: the size of its list. */
static unsigned rank_ctx(const struct model *m, uint32_t list_size)
{
	return size_bucket(list_size, m->v4 ? RANK_CONTEXTS - 1 : m->v3 ? 11 : 7);
}

/* Symbols inside the model: terminal number t, or SEQ_RULE_BIT | rule. */
static uint32_t first_term(const struct model *m, uint32_t s)
{
	return seq_is_rule(s) ? m->rule[s & ~SEQ_RULE_BIT].first : s;
}

static uint32_t last_term(const struct model *m, uint32_t s)
{
	return seq_is_rule(s) ? m->rule[s & ~SEQ_RULE_BIT].last : s;
}

/* v4: where symbol s's stamp in its class list is kept. */
static uint32_t *stamp_of(const struct model *m, uint32_t s)
{
	return seq_is_rule(s) ? &m->rule[s & ~SEQ_RULE_BIT].stamp : &m->term_stamp[s];
}

/* After symbol s (first terminal f) followed a symbol ending in terminal
 * prev (NONE at the start of a body): update both lists.  class_rank is
 * s's rank in a capped class list (versions 2 and 3). */
static int model_update(struct model *m, uint32_t prev, uint32_t f, uint32_t s, uint32_t succ_rank,
			uint32_t class_rank)
{
	if (prev != NONE && mtf_move(&m->succ[prev], succ_rank, f, SUCC_CAP, m->v3) < 0)
		return -1;
	if (m->v4)
		return recency_touch(&m->rec[f], stamp_of(m, s), s);
	return mtf_move(&m->cls[f], class_rank, s, CLASS_CAP, 0);
}

/* A symbol's first occurrence codes no ranks (encoder and decoder both know
 * it is new); the lists move it to the front from wherever f and s stand now.
 * Shared by the encoder and decoder so the two models cannot drift apart. */
static int model_update_new(struct model *m, uint32_t prev, uint32_t s)
{
	uint32_t f = first_term(m, s);

	return model_update(m, prev, f, s, prev == NONE ? NONE : mtf_find(&m->succ[prev], f),
			    m->v4 ? NONE : mtf_find(&m->cls[f], s));
}

/* A rule's body is complete: remember its ends and that it awaits its
 * first reference.  0 or -1 (no memory). */
static int model_rule_done(struct model *m, uint32_t rule, const uint32_t *body, uint32_t len)
{
	m->rule[rule].first = first_term(m, body[0]);
	m->rule[rule].last = last_term(m, body[len - 1]);
	m->unclaimed[m->nunclaimed++] = rule;
	if (m->v4) {
		struct mtf *l = &m->by_first[m->rule[rule].first];
		if (l->n == l->cap && grow_u32(&l->v, &l->cap, 4) < 0)
			return -1;
		l->v[l->n++] = rule;
	}
	return 0;
}

/* Version 4: the rank of rule r among the rules that start with terminal
 * f, newest first (r is one of them).  Rules complete in increasing
 * order, so the list is sorted and holds exactly the rules below the one
 * being coded. */
static uint32_t first_rank_of(const struct model *m, uint32_t f, uint32_t r)
{
	const struct mtf *l = &m->by_first[f];
	uint32_t lo = 0, hi = l->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (l->v[mid] < r)
			lo = mid + 1;
		else
			hi = mid;
	}
	return l->n - 1 - lo;
}

/* ---- encoder ---- */

static int by_value(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* The index of value in sorted[0..n) (it is there). */
static uint32_t value_index(const uint32_t *sorted, uint32_t n, uint32_t value)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (sorted[mid] < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Every body symbol in model form (terminal numbers in order of first
 * occurrence, rules as they are) into body[0..nsyms), once for the whole
 * grammar; values[k] receives terminal number k's value.  The number of
 * terminals, or -1 when out of memory. */
static int64_t number_terminals(const struct seq_grammar *g, uint32_t nsyms, uint32_t *body,
				uint32_t *values)
{
	uint32_t n = 0, nterm = 0, next = 0;
	uint32_t *sorted = malloc((nsyms ? nsyms : 1) * sizeof(*sorted)), *number = NULL;

	if (!sorted)
		return -1;
	/* A sorted table of the distinct values gives each its index... */
	for (uint32_t i = 0; i < nsyms; i++)
		if (!seq_is_rule(g->sym[i]))
			sorted[n++] = g->sym[i];
	qsort(sorted, n, sizeof(*sorted), by_value);
	for (uint32_t i = 0; i < n; i++)
		if (!nterm || sorted[nterm - 1] != sorted[i])
			sorted[nterm++] = sorted[i];
	/* ...and a scan in stream order numbers the indices. */
	number = malloc((nterm ? nterm : 1) * sizeof(*number));
	if (!number) {
		free(sorted);
		return -1;
	}
	for (uint32_t k = 0; k < nterm; k++)
		number[k] = NONE;
	for (uint32_t i = 0; i < nsyms; i++) {
		uint32_t s = g->sym[i];
		if (!seq_is_rule(s)) {
			uint32_t k = value_index(sorted, nterm, s);
			if (number[k] == NONE) {
				values[next] = s;
				number[k] = next++;
			}
			s = number[k];
		}
		body[i] = s;
	}
	free(number);
	free(sorted);
	return nterm;
}

static void put_zigzag(struct seq_out *o, int64_t v)
{
	seq_out_varint(o, v < 0 ? ((uint64_t)(-(v + 1)) << 1) | 1 : (uint64_t)v << 1);
}

/* Code one old (repeated) symbol s at body position j; prev is the last
 * terminal of the symbol before it.  self: own number (nrules for roots). */
static int encode_old(struct rc_enc *e, struct model *m, uint32_t s, uint32_t prev, int root,
		      uint32_t self)
{
	uint32_t f = first_term(m, s), sr = NONE, cr;

	if (prev != NONE) {
		struct mtf *l = &m->succ[prev];
		sr = mtf_find(l, f);
		if (l->n)
			rc_enc_gamma(e, &m->succ_rank[rank_ctx(m, l->n)], sr == NONE ? 0 : sr + 1);
	}
	if (sr == NONE)
		rc_enc_gamma(e, &m->term[prev == NONE], f);
	uint32_t class_n;
	if (m->v4) {
		uint32_t stamp = *stamp_of(m, s);
		cr = stamp ? recency_rank(&m->rec[f], stamp) : NONE;
		class_n = m->rec[f].n;
	} else {
		cr = mtf_find(&m->cls[f], s);
		class_n = m->cls[f].n;
	}
	if (class_n)
		rc_enc_gamma(e, &m->class_rank[rank_ctx(m, class_n)], cr == NONE ? 0 : cr + 1);
	if (cr == NONE) {
		rc_enc_bit(e, &m->abs_rule[root], seq_is_rule(s));
		if (seq_is_rule(s) && m->v4)
			rc_enc_gamma(e, &m->first_rank[rank_ctx(m, m->by_first[f].n)],
				     first_rank_of(m, f, s & ~SEQ_RULE_BIT));
		else if (seq_is_rule(s))
			rc_enc_gamma(e, &m->rule_dist, self - 1 - (s & ~SEQ_RULE_BIT));
	}
	return model_update(m, prev, f, s, sr, cr);
}

/* For each rule, the position (index into g->sym) of the reference through
 * which a depth-first walk from the roots first reaches it: its "new"
 * reference, whose target the decoder can infer.  Rules the walk never
 * reaches keep NONE.  0 or -1 (no memory). */
static int dfs_parents(const struct seq_grammar *g, struct rule_info *rule)
{
	struct frame {
		uint32_t node, pos;
	} *stack = malloc(((size_t)g->nrules + 1) * sizeof(*stack));

	if (!stack)
		return -1;
	for (uint32_t r = 0; r < g->nrules; r++)
		rule[r].parent = NONE;
	for (uint32_t k = 0; k < g->nroots; k++) {
		size_t depth = 0;
		stack[depth++] = (struct frame){g->nrules + k, g->start[g->nrules + k]};
		while (depth) {
			struct frame *f = &stack[depth - 1];
			if (f->pos == g->start[f->node + 1]) {
				depth--;
				continue;
			}
			uint32_t at = f->pos++, s = g->sym[at];
			if (!seq_is_rule(s) || rule[s & ~SEQ_RULE_BIT].parent != NONE)
				continue;
			/* Each rule is pushed once, so depth <= nrules + 1. */
			rule[s & ~SEQ_RULE_BIT].parent = at;
			stack[depth++] =
			    (struct frame){s & ~SEQ_RULE_BIT, g->start[s & ~SEQ_RULE_BIT]};
		}
	}
	free(stack);
	return 0;
}

/* Symbols ahead of the one being coded whose rule record is asked for
 * now: the records are read in no useful order, and a body or root is a
 * plain array, so the misses can overlap. */
#define PREFETCH_AHEAD 12u

static inline void prefetch_rule(const struct model *m, const uint32_t *model_sym, uint32_t nsyms,
				 uint32_t at)
{
	if (at + PREFETCH_AHEAD < nsyms && seq_is_rule(model_sym[at + PREFETCH_AHEAD]))
		__builtin_prefetch(&m->rule[model_sym[at + PREFETCH_AHEAD] & ~SEQ_RULE_BIT]);
}

int seq_serialize_v2_body(const struct seq_grammar *g, struct seq_out *o, unsigned version)
{
	uint32_t nodes = seq_grammar_nodes(g), nsyms = g->start[nodes];
	uint32_t *values = malloc((nsyms ? nsyms : 1) * sizeof(*values));
	uint32_t *model_sym = malloc((nsyms ? nsyms : 1) * sizeof(*model_sym));
	uint8_t *isnew = malloc(nsyms ? nsyms : 1);
	struct model m;
	struct rc_enc e;
	int rc = -1, model_ok = 0;
	int64_t counted;

	rc_enc_init(&e);
	if (!values || !model_sym || !isnew ||
	    (counted = number_terminals(g, nsyms, model_sym, values)) < 0)
		goto done;
	uint32_t nterm = (uint32_t)counted;
	if (model_init(&m, nterm, g->nrules, version) < 0)
		goto done;
	model_ok = 1;
	if (dfs_parents(g, m.rule) < 0)
		goto done;

	/* The payload size is not known yet; the symbol bound is checked
	 * after coding. */
	seq_out_varint(o, g->flags & SEQ_GRAMMAR_LOOKAHEAD);
	seq_out_varint(o, nterm);
	for (uint32_t k = 0; k < nterm; k++)
		put_zigzag(o, (int64_t)values[k] - (k ? (int64_t)values[k - 1] + 1 : 0));
	seq_out_varint(o, g->nrules);
	seq_out_varint(o, g->nroots);
	seq_out_varint(o, nsyms);

	for (uint32_t i = 0; i < nodes; i++) {
		int root = i >= g->nrules;
		uint32_t len = seq_grammar_body_len(g, i), self = root ? g->nrules : i, prev = NONE;
		const uint32_t *body = model_sym + g->start[i];

		rc_enc_gamma(&e, &m.len[root], root ? len : len - 2);
		uint32_t nnew_rules = 0;
		if (!root) {
			/* Flags first: the decoder needs the number of new
			 * children to know which unclaimed rules they are. */
			int prev_new = 0;
			for (uint32_t j = 0; j < len; j++) {
				prefetch_rule(&m, model_sym, nsyms, g->start[i] + j);
				uint32_t s = body[j];
				int is_new;
				if (seq_is_rule(s)) {
					is_new =
					    m.rule[s & ~SEQ_RULE_BIT].parent == g->start[i] + j;
				} else {
					is_new = s == m.next_term;
					m.next_term += is_new;
				}
				rc_enc_bit(&e, &m.is_new[(j == 0) * 2 + prev_new], is_new);
				if (is_new)
					rc_enc_bit(&e, &m.new_rule[0], seq_is_rule(s));
				if (is_new && seq_is_rule(s))
					nnew_rules++;
				isnew[j] = (uint8_t)is_new;
				prev_new = is_new;
			}
			/* Canonical numbering: the new children are the newest
			 * unclaimed rules, in order. */
			if (nnew_rules > m.nunclaimed - m.bottom) {
				rc = 1;
				goto done;
			}
			uint32_t at = m.nunclaimed - nnew_rules;
			for (uint32_t j = 0; j < len; j++)
				if (isnew[j] && seq_is_rule(body[j]) &&
				    m.unclaimed[at++] != (body[j] & ~SEQ_RULE_BIT)) {
					rc = 1;
					goto done;
				}
			m.nunclaimed -= nnew_rules;
			for (uint32_t j = 0; j < len; j++) {
				uint32_t s = body[j];
				if (isnew[j]) {
					if (model_update_new(&m, prev, s) < 0)
						goto done;
				} else if (encode_old(&e, &m, s, prev, 0, self) < 0) {
					goto done;
				}
				prev = last_term(&m, s);
			}
			if (model_rule_done(&m, i, body, len) < 0)
				goto done;
			continue;
		}
		int prev_new = 0;
		for (uint32_t j = 0; j < len; j++) {
			prefetch_rule(&m, model_sym, nsyms, g->start[i] + j);
			uint32_t s = body[j];
			int is_new;
			if (seq_is_rule(s)) {
				uint32_t r = s & ~SEQ_RULE_BIT;
				is_new = m.rule[r].parent == g->start[i] + j;
				if (is_new &&
				    (m.bottom == m.nunclaimed || m.unclaimed[m.bottom] != r)) {
					rc = 1;
					goto done;
				}
				m.bottom += is_new;
			} else {
				is_new = s == m.next_term;
				m.next_term += is_new;
			}
			rc_enc_bit(&e, &m.is_new[4 + (j == 0) * 2 + prev_new], is_new);
			if (is_new) {
				rc_enc_bit(&e, &m.new_rule[1], seq_is_rule(s));
				if (model_update_new(&m, prev, s) < 0)
					goto done;
			} else if (encode_old(&e, &m, s, prev, 1, self) < 0) {
				goto done;
			}
			prev = last_term(&m, s);
			prev_new = is_new;
		}
	}
	/* Every rule must be referenced (it is, in an exported grammar). */
	if (m.bottom != m.nunclaimed) {
		rc = 1;
		goto done;
	}
	if (rc_enc_finish(&e) < 0)
		goto done;
	if ((uint64_t)nsyms > (uint64_t)SYMS_PER_BYTE * e.n) {
		rc = 1; /* would fail the decoder's sanity bound */
		goto done;
	}
	seq_out_bytes(o, e.buf, e.n);
	rc = o->failed ? -1 : 0;
done:
	if (model_ok)
		model_free(&m);
	free(e.buf);
	free(values);
	free(model_sym);
	free(isnew);
	return rc;
}

/* ---- decoder ---- */

static int reject(struct seq_grammar *g, char *why, size_t whylen, const char *msg)
{
	seq_grammar_free(g);
	if (why && whylen)
		snprintf(why, whylen, "%s", msg);
	return -1;
}

/* A new symbol's first occurrence: the rule just claimed (rule != NONE) or
 * the next terminal number; NONE if the stream asks for more terminals than
 * its header declared, or (with *oom set) when out of memory. */
static uint32_t decode_new(struct model *m, uint32_t prev, uint32_t rule, uint32_t nterm, int *oom)
{
	uint32_t s;

	if (rule != NONE) {
		s = SEQ_RULE_BIT | rule;
	} else {
		if (m->next_term == nterm)
			return NONE;
		s = m->next_term++;
	}
	if (model_update_new(m, prev, s) < 0) {
		*oom = 1;
		return NONE;
	}
	return s;
}

/* Decode one old symbol; NONE if the stream is inconsistent. */
static uint32_t decode_old(struct rc_dec *d, struct model *m, uint32_t prev, int root,
			   uint32_t self, int *oom)
{
	uint32_t f = NONE, sr = NONE, cr = NONE, s;

	if (prev != NONE && m->succ[prev].n) {
		struct mtf *l = &m->succ[prev];
		uint64_t r = rc_dec_gamma(d, &m->succ_rank[rank_ctx(m, l->n)], l->n);
		if (r > l->n)
			return NONE;
		if (r) {
			sr = (uint32_t)r - 1;
			f = l->v[sr];
		}
	}
	if (f == NONE) {
		uint64_t t = rc_dec_gamma(d, &m->term[prev == NONE], m->next_term);
		if (t >= m->next_term) /* a repeated symbol starts with a seen terminal */
			return NONE;
		f = (uint32_t)t;
	}
	uint32_t class_n = m->v4 ? m->rec[f].n : m->cls[f].n;
	if (class_n) {
		uint64_t r = rc_dec_gamma(d, &m->class_rank[rank_ctx(m, class_n)], class_n);
		if (r > class_n)
			return NONE;
		if (r)
			cr = (uint32_t)r - 1;
	}
	if (cr != NONE) {
		s = m->v4 ? recency_at(&m->rec[f], cr) : m->cls[f].v[cr];
	} else if (!rc_dec_bit(d, &m->abs_rule[root])) {
		s = f;
	} else if (m->v4) {
		const struct mtf *l = &m->by_first[f];
		if (!l->n)
			return NONE;
		uint64_t rank = rc_dec_gamma(d, &m->first_rank[rank_ctx(m, l->n)], l->n - 1);
		if (rank >= l->n)
			return NONE;
		s = SEQ_RULE_BIT | l->v[l->n - 1 - rank];
	} else {
		uint64_t dist = rc_dec_gamma(d, &m->rule_dist, self);
		if (dist >= self)
			return NONE;
		s = SEQ_RULE_BIT | (self - 1 - (uint32_t)dist);
		if (m->rule[s & ~SEQ_RULE_BIT].first != f)
			return NONE;
	}
	if (model_update(m, prev, f, s, sr, cr) < 0) {
		*oom = 1;
		return NONE;
	}
	return s;
}

int seq_deserialize_v2_body(struct seq_in *in, struct seq_grammar *g, char *why, size_t whylen,
			    unsigned version)
{
	struct model m;
	struct rc_dec d;
	uint32_t *terms = NULL, *isnew = NULL;
	int model_ok = 0, oom = 0;
	const char *err = "bad grammar header";

	memset(g, 0, sizeof(*g));
	uint32_t flags = (uint32_t)seq_in_varint(in, SEQ_GRAMMAR_LOOKAHEAD);
	uint32_t nterm = (uint32_t)seq_in_varint(in, (uint64_t)(in->end - in->p));
	if (in->bad)
		goto bad;
	terms = malloc((nterm ? nterm : 1) * sizeof(*terms));
	if (!terms) {
		err = "out of memory";
		goto bad;
	}
	int64_t v = -1;
	for (uint32_t k = 0; k < nterm && !in->bad; k++) {
		uint64_t z = seq_in_varint(in, UINT64_MAX >> 1);
		int64_t delta = (z & 1) ? -(int64_t)(z >> 1) - 1 : (int64_t)(z >> 1);
		v = v + 1 + delta;
		if (v < 0 || v >= SEQ_TERMINAL_LIMIT) {
			in->bad = 1;
			break;
		}
		terms[k] = (uint32_t)v;
	}
	uint32_t nrules = (uint32_t)seq_in_varint(in, SEQ_RULE_BIT);
	uint32_t nroots = (uint32_t)seq_in_varint(in, SEQ_RULE_BIT);
	uint64_t nsyms = seq_in_varint(in, UINT32_MAX);
	uint64_t payload = (uint64_t)(in->end - in->p);
	if (in->bad || nroots == 0 || (uint64_t)nrules + nroots >= SEQ_RULE_BIT ||
	    2 * (uint64_t)nrules > nsyms || nsyms > SYMS_PER_BYTE * payload)
		goto bad;
	err = "out of memory";
	if (model_init(&m, nterm, nrules, version) < 0)
		goto bad;
	model_ok = 1;
	if (seq_grammar_alloc(g, nrules, nroots, nsyms) < 0)
		goto bad;
	isnew = malloc((nsyms ? nsyms : 1) * sizeof(*isnew));
	if (!isnew)
		goto bad;
	err = "malformed grammar body";
	if (rc_dec_init(&d, in->p, payload) < 0)
		goto bad;
	g->flags = flags;

	uint64_t pos = 0;
	for (uint32_t i = 0; i < nrules + nroots; i++) {
		int root = i >= nrules;
		uint32_t self = root ? nrules : i, prev = NONE;
		uint64_t len = rc_dec_gamma(&d, &m.len[root], nsyms - pos) + (root ? 0 : 2);
		if (len > nsyms - pos || d.overrun)
			goto bad;
		uint32_t *body = g->sym + pos;
		g->start[i] = (uint32_t)pos;
		if (!root) {
			uint32_t nnew_rules = 0;
			int prev_new = 0;
			for (uint32_t j = 0; j < len; j++) {
				isnew[j] = rc_dec_bit(&d, &m.is_new[(j == 0) * 2 + prev_new]);
				if (isnew[j] && rc_dec_bit(&d, &m.new_rule[0])) {
					isnew[j] = 2;
					nnew_rules++;
				}
				prev_new = isnew[j] != 0;
			}
			if (nnew_rules > m.nunclaimed - m.bottom)
				goto bad;
			uint32_t at = m.nunclaimed - nnew_rules;
			m.nunclaimed -= nnew_rules;
			for (uint32_t j = 0; j < len; j++) {
				uint32_t s;
				if (isnew[j])
					s = decode_new(&m, prev,
						       isnew[j] == 2 ? m.unclaimed[at++] : NONE,
						       nterm, &oom);
				else
					s = decode_old(&d, &m, prev, 0, self, &oom);
				if (s == NONE)
					goto bad;
				body[j] = s;
				prev = last_term(&m, s);
			}
			if (model_rule_done(&m, i, body, (uint32_t)len) < 0) {
				oom = 1;
				goto bad;
			}
		} else {
			int prev_new = 0;
			for (uint32_t j = 0; j < len; j++) {
				uint32_t s;
				int is_new = rc_dec_bit(&d, &m.is_new[4 + (j == 0) * 2 + prev_new]);
				if (is_new) {
					uint32_t rule = NONE;
					if (rc_dec_bit(&d, &m.new_rule[1])) {
						if (m.bottom == m.nunclaimed)
							goto bad;
						rule = m.unclaimed[m.bottom++];
					}
					s = decode_new(&m, prev, rule, nterm, &oom);
				} else {
					s = decode_old(&d, &m, prev, 1, self, &oom);
				}
				if (s == NONE)
					goto bad;
				body[j] = s;
				prev = last_term(&m, s);
				prev_new = is_new;
			}
		}
		if (d.overrun)
			goto bad;
		pos += len;
	}
	if (pos != nsyms || m.next_term != nterm || m.bottom != m.nunclaimed || d.overrun)
		goto bad;
	g->start[nrules + nroots] = (uint32_t)pos;
	/* Terminal numbers -> the caller's values. */
	for (uint64_t k = 0; k < nsyms; k++)
		if (!seq_is_rule(g->sym[k]))
			g->sym[k] = terms[g->sym[k]];
	free(terms);
	free(isnew);
	model_free(&m);
	if (seq_grammar_finish(g, why, whylen) < 0) {
		seq_grammar_free(g);
		return -1;
	}
	return 0;
bad:
	if (oom)
		err = "out of memory";
	free(terms);
	free(isnew);
	if (model_ok)
		model_free(&m);
	return reject(g, why, whylen, err);
}
