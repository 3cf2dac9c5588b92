/* SPDX-License-Identifier: MIT */
/*
 * sequitur_digram.h — the digram index of the SEQUITUR builder.
 *
 * A map from a digram (two 32-bit symbol codes, packed into one 64-bit key)
 * to the node index of one occurrence of it.  Open addressing with linear
 * probing and backward-shift deletion (no tombstones), so the table never
 * degrades however many digrams come and go.  Keys are symbol values, never
 * pointers, and the hash is a fixed multiplicative one: the table's content
 * is a pure function of the operations applied to it (determinism).
 *
 * The lookups are inline: the builder does two or three per input symbol
 * and the call overhead showed up in profiles; growing the table is rare
 * and stays out of line.
 *
 * Contract: SEQ_DIGRAM_EMPTY is never a valid key (the builder never forms
 * a digram of two copies of the largest rule code) and SEQ_DIGRAM_NONE is
 * never a valid node index.  Functions that can grow the table report
 * allocation failure (-1 or *failed) and leave the table unchanged.
 */
#ifndef WPP_SEQUITUR_DIGRAM_H
#define WPP_SEQUITUR_DIGRAM_H

#include <stdint.h>

#define SEQ_DIGRAM_EMPTY UINT64_MAX
#define SEQ_DIGRAM_NONE	 UINT32_MAX

/* Key and node side by side: a probe touches one cache line, not two. */
struct seq_digram_slot {
	uint64_t key;  /* SEQ_DIGRAM_EMPTY marks a free slot */
	uint32_t node; /* node index of the occurrence the key maps to */
	uint32_t pad;
};

struct seq_digram_index {
	struct seq_digram_slot *slots;
	uint32_t mask;	/* capacity - 1; capacity is a power of two */
	unsigned shift; /* 64 - log2(capacity), for the hash */
	uint32_t count;
};

static inline uint64_t seq_digram_key(uint32_t first, uint32_t second)
{
	return (uint64_t)first << 32 | second;
}

/* Fibonacci hashing: the top bits of key * 2^64/phi spread consecutive
 * symbol values over the whole table. */
static inline uint32_t seq_digram_home(const struct seq_digram_index *idx, uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> idx->shift);
}

/* Start loading the slot where key's probe begins (no effect on content). */
static inline void seq_digram_prefetch(const struct seq_digram_index *idx, uint64_t key)
{
	__builtin_prefetch(&idx->slots[seq_digram_home(idx, key)]);
}

int seq_digram_init(struct seq_digram_index *idx, unsigned log2_capacity);
void seq_digram_free(struct seq_digram_index *idx);

/* Out of line: double the table (load factor kept at or below 1/2). */
int seq_digram_grow(struct seq_digram_index *idx);

/* Slot holding key, or the empty slot where its probe run ends. */
static inline uint32_t seq_digram_slot_for(const struct seq_digram_index *idx, uint64_t key)
{
	uint32_t i = seq_digram_home(idx, key);

	while (idx->slots[i].key != key && idx->slots[i].key != SEQ_DIGRAM_EMPTY)
		i = (i + 1) & idx->mask;
	return i;
}

static inline int seq_digram_full(const struct seq_digram_index *idx)
{
	return (uint64_t)(idx->count + 1) * 2 > (uint64_t)idx->mask + 1;
}

/* The node stored for key, or SEQ_DIGRAM_NONE. */
static inline uint32_t seq_digram_find(const struct seq_digram_index *idx, uint64_t key)
{
	const struct seq_digram_slot *s = &idx->slots[seq_digram_slot_for(idx, key)];

	return s->key == key ? s->node : SEQ_DIGRAM_NONE;
}

/* If key is present, return its node and change nothing; otherwise store
 * (key, node) and return SEQ_DIGRAM_NONE (then *failed = 1 if the table
 * could not grow and nothing was stored). */
static inline uint32_t seq_digram_find_or_add(struct seq_digram_index *idx, uint64_t key,
					      uint32_t node, int *failed)
{
	uint32_t i = seq_digram_slot_for(idx, key);

	if (idx->slots[i].key == key)
		return idx->slots[i].node;
	if (seq_digram_full(idx)) {
		if (seq_digram_grow(idx) < 0) {
			*failed = 1;
			return SEQ_DIGRAM_NONE;
		}
		i = seq_digram_slot_for(idx, key);
	}
	idx->slots[i] = (struct seq_digram_slot){key, node, 0};
	idx->count++;
	return SEQ_DIGRAM_NONE;
}

/* Store (key, node), replacing any node stored for key; *replaced gets
 * the node it displaced or SEQ_DIGRAM_NONE.  0 or -1. */
static inline int seq_digram_put(struct seq_digram_index *idx, uint64_t key, uint32_t node,
				 uint32_t *replaced)
{
	uint32_t i = seq_digram_slot_for(idx, key);

	*replaced = SEQ_DIGRAM_NONE;
	if (idx->slots[i].key == key) {
		*replaced = idx->slots[i].node;
		idx->slots[i].node = node;
		return 0;
	}
	if (seq_digram_full(idx)) {
		if (seq_digram_grow(idx) < 0)
			return -1;
		i = seq_digram_slot_for(idx, key);
	}
	idx->slots[i] = (struct seq_digram_slot){key, node, 0};
	idx->count++;
	return 0;
}

/* Remove the entry in slot i (backward-shift deletion). */
void seq_digram_remove_slot(struct seq_digram_index *idx, uint32_t i);

/* Remove key only if it currently maps to node (another occurrence of the
 * same digram may own the entry; it must survive).  1 if removed. */
static inline int seq_digram_remove_if(struct seq_digram_index *idx, uint64_t key, uint32_t node)
{
	uint32_t i = seq_digram_slot_for(idx, key);

	if (idx->slots[i].key != key || idx->slots[i].node != node)
		return 0;
	seq_digram_remove_slot(idx, i);
	return 1;
}

/* Bytes held by the table. */
uint64_t seq_digram_bytes(const struct seq_digram_index *idx);

#endif
