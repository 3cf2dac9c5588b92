/* SPDX-License-Identifier: MIT */
/*
 * sequitur_digram.h — the digram index of the SEQUITUR builder.
 *
 * A map from a digram (two 32-bit symbol codes, packed into one 64-bit key)
 * to the node index of one occurrence of it.  Open addressing with linear
 * probing and backward-shift deletion (no tombstones), so the table never
 * degrades however many digrams come and go.  The hash is a fixed
 * multiplicative one of the symbol values, never of pointers: the table's
 * content is a pure function of the operations applied to it (determinism).
 *
 * Compact slots.  A slot is 8 bytes: the node and a 32-bit fingerprint,
 * the top bits of the key's hash (so the home slot, and the table's growth,
 * need no key).  The key itself is not stored: an entry for node i stands
 * for the digram that starts at i, (n[i].sym, n[n[i].next].sym), which the
 * builder keeps true for every indexed node (it unindexes a node before
 * relinking it or changing its symbol).  A lookup compares fingerprints
 * and, only on a match, reads the two nodes — which a hit reads anyway
 * right after.  Why: the table was 16 MiB on the benchmark and its first
 * probe, a random access, was the builder's top cost; halving the slot
 * halves the memory those probes sweep.
 *
 * Occupancy bitmap.  One bit per slot says whether it is in use, and a
 * probe run ends at the first clear bit, so a lookup of an absent key
 * whose home slot is free (half the slots or more, at load <= 1/2) never
 * reads the table: the bitmap is 1/64 of the table's size and stays in
 * cache where the table does not.  About half the builder's lookups are
 * of absent keys (the digram a substitution leaves at the segment's end).
 *
 * The lookups are inline: the builder does two or three per input symbol
 * and the call overhead showed up in profiles; growing the table is rare
 * and stays out of line.
 *
 * Contract: node 0 is never indexed and
 * SEQ_DIGRAM_NONE is never a valid node index.  Functions that can grow the
 * table report allocation failure (-1 or *failed) and leave it unchanged.
 */
#ifndef WPP_SEQUITUR_DIGRAM_H
#define WPP_SEQUITUR_DIGRAM_H

#include <stddef.h>
#include <stdint.h>

#define SEQ_DIGRAM_NONE UINT32_MAX

/* One symbol occurrence (or a rule's guard): see sequitur_internal.h. */
struct seq_node {
	uint32_t sym;  /* terminal, SEQ_RULE_BIT|guard, or SEQ_DEAD_SYM */
	uint32_t prev; /* neighbours in the rule's circular list */
	uint32_t next;
	uint32_t aux; /* guards: reference count | ROOT_FLAG; body nodes:
			 DIGRAM_OWNER when the index points at this node */
};

struct seq_digram_slot {
	uint32_t fp;   /* top 32 bits of the key's hash */
	uint32_t node; /* meaningful only where the bitmap marks the slot */
};

struct seq_digram_index {
	struct seq_digram_slot *slots;
	uint64_t *occupied; /* bit i: slot i holds an entry */
	uint32_t mask;	    /* capacity - 1; capacity is a power of two */
	unsigned shift;	    /* 32 - log2(capacity): home slot = fp >> shift */
	uint32_t count;
};

static inline uint64_t seq_digram_key(uint32_t first, uint32_t second)
{
	return (uint64_t)first << 32 | second;
}

/* Fibonacci hashing: the top bits of key * 2^64/phi spread consecutive
 * symbol values over the whole table. */
static inline uint32_t seq_digram_fp(uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 32);
}

static inline uint32_t seq_digram_home(const struct seq_digram_index *idx, uint32_t fp)
{
	return fp >> idx->shift;
}

/* Start loading the bitmap word and the slot where key's probe begins (no
 * effect on content). */
static inline void seq_digram_prefetch(const struct seq_digram_index *idx, uint64_t key)
{
	uint32_t home = seq_digram_home(idx, seq_digram_fp(key));

	__builtin_prefetch(&idx->occupied[home >> 6]);
	__builtin_prefetch(&idx->slots[home]);
}

int seq_digram_init(struct seq_digram_index *idx, unsigned log2_capacity);
void seq_digram_free(struct seq_digram_index *idx);

/* Out of line: double the table (load factor kept at or below 1/2). */
int seq_digram_grow(struct seq_digram_index *idx);

/* Does the entry for node stand for key?  (Reads the two nodes.) */
static inline int seq_digram_is(const struct seq_node *n, uint32_t node, uint64_t key)
{
	return seq_digram_key(n[node].sym, n[n[node].next].sym) == key;
}

static inline int seq_digram_occupied(const struct seq_digram_index *idx, uint32_t i)
{
	return (idx->occupied[i >> 6] >> (i & 63)) & 1;
}

static inline void seq_digram_mark(struct seq_digram_index *idx, uint32_t i)
{
	idx->occupied[i >> 6] |= UINT64_C(1) << (i & 63);
}

static inline void seq_digram_unmark(struct seq_digram_index *idx, uint32_t i)
{
	idx->occupied[i >> 6] &= ~(UINT64_C(1) << (i & 63));
}

/* Slot holding key, or the free slot where its probe run ends.  A free
 * slot is recognised from the bitmap, without reading the slot. */
static inline uint32_t seq_digram_slot_for(const struct seq_digram_index *idx,
					   const struct seq_node *n, uint64_t key, uint32_t fp)
{
	uint32_t i = seq_digram_home(idx, fp);

	for (;; i = (i + 1) & idx->mask) {
		if (!seq_digram_occupied(idx, i))
			return i;
		const struct seq_digram_slot *s = &idx->slots[i];
		if (s->fp == fp && seq_digram_is(n, s->node, key))
			return i;
	}
}

static inline int seq_digram_full(const struct seq_digram_index *idx)
{
	return (uint64_t)(idx->count + 1) * 2 > (uint64_t)idx->mask + 1;
}

/* The node stored for key, or SEQ_DIGRAM_NONE.  Its own probe loop, not
 * seq_digram_slot_for(): a hit returns from inside the loop, so neither the
 * bitmap bit nor the slot is read a second time. */
static inline uint32_t seq_digram_find(const struct seq_digram_index *idx, const struct seq_node *n,
				       uint64_t key)
{
	uint32_t fp = seq_digram_fp(key);

	for (uint32_t i = seq_digram_home(idx, fp); seq_digram_occupied(idx, i);
	     i = (i + 1) & idx->mask) {
		const struct seq_digram_slot *s = &idx->slots[i];
		if (s->fp == fp && seq_digram_is(n, s->node, key))
			return s->node;
	}
	return SEQ_DIGRAM_NONE;
}

/* Store node in free slot i for fingerprint fp (growing first if needed). */
static inline int seq_digram_store(struct seq_digram_index *idx, const struct seq_node *n,
				   uint64_t key, uint32_t fp, uint32_t i, uint32_t node)
{
	if (seq_digram_full(idx)) {
		if (seq_digram_grow(idx) < 0)
			return -1;
		i = seq_digram_slot_for(idx, n, key, fp);
	}
	idx->slots[i] = (struct seq_digram_slot){fp, node};
	seq_digram_mark(idx, i);
	idx->count++;
	return 0;
}

/* Store (key, node) for a key known to be absent (fingerprint fp): the
 * first free slot from its home is its place, so no key is compared and
 * no node is read.  0 or -1 (the table could not grow; nothing stored). */
static inline int seq_digram_insert_absent(struct seq_digram_index *idx, uint32_t fp, uint32_t node)
{
	uint32_t i;

	if (seq_digram_full(idx) && seq_digram_grow(idx) < 0)
		return -1;
	for (i = seq_digram_home(idx, fp); seq_digram_occupied(idx, i); i = (i + 1) & idx->mask)
		;
	idx->slots[i] = (struct seq_digram_slot){fp, node};
	seq_digram_mark(idx, i);
	idx->count++;
	return 0;
}

/* If key is present, return its node and change nothing; otherwise store
 * (key, node) and return SEQ_DIGRAM_NONE (then *failed = 1 if the table
 * could not grow and nothing was stored).  node's digram must be key. */
static inline uint32_t seq_digram_find_or_add(struct seq_digram_index *idx,
					      const struct seq_node *n, uint64_t key, uint32_t node,
					      int *failed)
{
	uint32_t fp = seq_digram_fp(key), i = seq_digram_slot_for(idx, n, key, fp);

	if (seq_digram_occupied(idx, i))
		return idx->slots[i].node;
	if (seq_digram_store(idx, n, key, fp, i, node) < 0)
		*failed = 1;
	return SEQ_DIGRAM_NONE;
}

/* Store (key, node), replacing any node stored for key; *replaced gets
 * the node it displaced or SEQ_DIGRAM_NONE.  0 or -1. */
static inline int seq_digram_put(struct seq_digram_index *idx, const struct seq_node *n,
				 uint64_t key, uint32_t node, uint32_t *replaced)
{
	uint32_t fp = seq_digram_fp(key), i = seq_digram_slot_for(idx, n, key, fp);

	*replaced = SEQ_DIGRAM_NONE;
	if (seq_digram_occupied(idx, i)) {
		*replaced = idx->slots[i].node;
		idx->slots[i].node = node;
		return 0;
	}
	return seq_digram_store(idx, n, key, fp, i, node);
}

/* Remove the entry in slot i (backward-shift deletion). */
void seq_digram_remove_slot(struct seq_digram_index *idx, uint32_t i);

/* Remove key's entry only if it is node's (another occurrence of the same
 * digram may own the entry; it must survive).  A node is stored at most
 * once, so the node alone identifies the entry: no node is read.  1 if
 * removed. */
static inline int seq_digram_remove_if(struct seq_digram_index *idx, uint64_t key, uint32_t node)
{
	uint32_t i = seq_digram_home(idx, seq_digram_fp(key));

	for (; seq_digram_occupied(idx, i); i = (i + 1) & idx->mask) {
		if (idx->slots[i].node == node) {
			seq_digram_remove_slot(idx, i);
			return 1;
		}
	}
	return 0;
}

/* Bytes held by the table. */
uint64_t seq_digram_bytes(const struct seq_digram_index *idx);

/* malloc() for an array read at random: from 2 MiB up, aligned and
 * advised onto transparent huge pages.  Freed with free(). */
void *seq_alloc_random_access(size_t bytes);

#endif
