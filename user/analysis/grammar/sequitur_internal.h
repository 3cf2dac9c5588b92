/* SPDX-License-Identifier: MIT */
/*
 * sequitur_internal.h — the builder's representation, shared by the files
 * that implement it (sequitur.c: the algorithm; sequitur_export.c: the
 * canonical snapshot; sequitur_check.c: the invariant checker).  Not for
 * users of the library.
 *
 * Every symbol occurrence, and every rule, is a 16-byte node in one array.
 * A rule is a circular doubly linked list through a guard node; the rule's
 * identity is the guard's index g, and its code in bodies is
 * SEQ_RULE_BIT | g.  A guard carries that same code in sym, so "node i is
 * a guard" is simply sym == (SEQ_RULE_BIT | i).  The guard's aux field
 * holds the rule's reference count and, for segment roots, ROOT_FLAG; a
 * body node's aux says whether the digram index points at it.
 * Node 0 is a dummy that is never linked, so 0 can mean "no node".
 */
#ifndef WPP_SEQUITUR_INTERNAL_H
#define WPP_SEQUITUR_INTERNAL_H

#include "analysis/grammar/sequitur.h"
#include "analysis/grammar/sequitur_digram.h"

#define SEQ_DEAD_SYM 0x7fffffffu /* sym of a free node */
#define ROOT_FLAG    0x80000000u
#define REFS_MASK    0x7fffffffu
/* aux of a body node: the digram index maps this node's digram to it. */
#define DIGRAM_OWNER 1u

/* struct seq_node is defined in sequitur_digram.h (the index reads nodes). */

/* lazy_key when no digram is lazy: no key, since no symbol is 0xffffffff. */
#define LAZY_NONE UINT64_MAX

struct seq_builder {
	struct seq_node *n;
	uint32_t cap, used;
	uint32_t free_head;   /* free nodes, linked through next */
	uint32_t dead_guards; /* guards of rules deleted during this step */
	struct seq_digram_index digrams;
	/* One indexed digram may live outside the table: the last digram of
	 * a segment, which the next step usually folds into a rule at once
	 * (see check_tail).  lazy is its node (0: none), lazy_key its key
	 * (LAZY_NONE when there is none, so that a lookup compares once); it
	 * carries DIGRAM_OWNER like any indexed node.  Every lookup consults
	 * it first (seq_index_find), so the index means the same either way. */
	uint32_t lazy;
	uint64_t lazy_key;

	uint32_t *roots; /* guard of each segment's start rule, in order */
	uint32_t nroots, roots_cap;
	uint32_t cur_root;

	enum seq_algorithm algo;
	int have_pending; /* SEQUITUR(1): a symbol held back */
	uint32_t pending;
	int have_lookahead; /* during a step: the next input symbol is known */
	uint32_t lookahead;
	int deferred; /* the last digram of the current root is a duplicate
			 left for the next step (SEQUITUR(1) only) */
	int failed;
	int general_only; /* tests: no fast paths (seq_builder_general_only) */

	uint32_t *utility; /* rules awaiting their utility check (check_tail) */
	uint32_t nutility, utility_cap;

	uint64_t input_symbols;
	uint64_t body_symbols;
	uint32_t live_rules;
};

/* For tests: every step of seq_append, seq_append_run and seq_finish goes
 * through the general path (check(), as in the reference algorithm), none
 * through check_tail()'s fast paths, so that the two can be compared
 * grammar for grammar (seq_append_many ignores it).  Call before the
 * first symbol. */
static inline void seq_builder_general_only(struct seq_builder *b)
{
	b->general_only = 1;
}

static inline int seq_node_is_guard(const struct seq_builder *b, uint32_t i)
{
	return b->n[i].sym == (SEQ_RULE_BIT | i);
}

/* Is key's index entry the lazy one? */
static inline int seq_lazy_holds(const struct seq_builder *b, uint64_t key)
{
	return key == b->lazy_key;
}

/* The value indexed for key (the lazy entry's node, always plain: it is
 * in a segment's start rule; or the table's value), or SEQ_DIGRAM_NONE. */
static inline uint32_t seq_index_find(const struct seq_builder *b, uint64_t key)
{
	if (seq_lazy_holds(b, key))
		return b->lazy;
	return seq_digram_find(&b->digrams, b->n, key);
}

/* How many digrams the index holds. */
static inline uint32_t seq_index_count(const struct seq_builder *b)
{
	return b->digrams.count + (b->lazy != 0);
}

#endif
