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
 * Contract: SEQ_DIGRAM_EMPTY is never a valid key (the builder never forms
 * a digram of two copies of the largest rule code) and SEQ_DIGRAM_NONE is
 * never a valid node index.  Functions that can grow the table return -1
 * on allocation failure and leave the table unchanged.
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

/* Start loading the slot where key's probe begins (no effect on content). */
static inline void seq_digram_prefetch(const struct seq_digram_index *idx, uint64_t key)
{
	__builtin_prefetch(&idx->slots[(uint32_t)((key * 0x9e3779b97f4a7c15ull) >> idx->shift)]);
}

int seq_digram_init(struct seq_digram_index *idx, unsigned log2_capacity);
void seq_digram_free(struct seq_digram_index *idx);

/* The node stored for key, or SEQ_DIGRAM_NONE. */
uint32_t seq_digram_find(const struct seq_digram_index *idx, uint64_t key);

/* If key is present, return its node and change nothing; otherwise store
 * (key, node) and return SEQ_DIGRAM_NONE.  -1 cast to uint32 is impossible
 * as a node, so allocation failure is reported through *failed. */
uint32_t seq_digram_find_or_add(struct seq_digram_index *idx, uint64_t key, uint32_t node,
				int *failed);

/* Store (key, node), replacing any node stored for key.  0 or -1. */
int seq_digram_put(struct seq_digram_index *idx, uint64_t key, uint32_t node);

/* Remove key only if it currently maps to node (another occurrence of the
 * same digram may own the entry; it must survive). */
void seq_digram_remove_if(struct seq_digram_index *idx, uint64_t key, uint32_t node);

/* Bytes held by the table. */
uint64_t seq_digram_bytes(const struct seq_digram_index *idx);

#endif
