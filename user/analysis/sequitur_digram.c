/* SPDX-License-Identifier: MIT */
/* Open-addressing digram index; see sequitur_digram.h for the contract. */
#include "sequitur_digram.h"

#include <stdlib.h>

/* Fibonacci hashing: the top bits of key * 2^64/phi spread consecutive
 * symbol values over the whole table. */
static inline uint32_t slot_of(const struct seq_digram_index *idx, uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> idx->shift);
}

static int alloc_table(struct seq_digram_index *idx, unsigned log2_capacity)
{
	uint32_t cap = 1u << log2_capacity;

	idx->slots = malloc(sizeof(*idx->slots) * cap);
	if (!idx->slots)
		return -1;
	for (uint32_t i = 0; i < cap; i++)
		idx->slots[i] = (struct seq_digram_slot){SEQ_DIGRAM_EMPTY, 0, 0};
	idx->mask = cap - 1;
	idx->shift = 64 - log2_capacity;
	idx->count = 0;
	return 0;
}

int seq_digram_init(struct seq_digram_index *idx, unsigned log2_capacity)
{
	if (log2_capacity < 4)
		log2_capacity = 4;
	return alloc_table(idx, log2_capacity);
}

void seq_digram_free(struct seq_digram_index *idx)
{
	free(idx->slots);
	idx->slots = NULL;
}

static void insert_fresh(struct seq_digram_index *idx, uint64_t key, uint32_t node)
{
	uint32_t i = slot_of(idx, key);

	while (idx->slots[i].key != SEQ_DIGRAM_EMPTY)
		i = (i + 1) & idx->mask;
	idx->slots[i] = (struct seq_digram_slot){key, node, 0};
	idx->count++;
}

/* Keep the load factor at or below 1/2 so probe runs stay short. */
static int grow_if_needed(struct seq_digram_index *idx)
{
	if ((uint64_t)(idx->count + 1) * 2 <= (uint64_t)idx->mask + 1)
		return 0;
	struct seq_digram_index bigger;
	unsigned log2 = 64 - idx->shift + 1;

	if (log2 > 31 || alloc_table(&bigger, log2) < 0)
		return -1;
	for (uint32_t i = 0; i <= idx->mask; i++)
		if (idx->slots[i].key != SEQ_DIGRAM_EMPTY)
			insert_fresh(&bigger, idx->slots[i].key, idx->slots[i].node);
	seq_digram_free(idx);
	*idx = bigger;
	return 0;
}

uint32_t seq_digram_find(const struct seq_digram_index *idx, uint64_t key)
{
	for (uint32_t i = slot_of(idx, key);; i = (i + 1) & idx->mask) {
		if (idx->slots[i].key == key)
			return idx->slots[i].node;
		if (idx->slots[i].key == SEQ_DIGRAM_EMPTY)
			return SEQ_DIGRAM_NONE;
	}
}

uint32_t seq_digram_find_or_add(struct seq_digram_index *idx, uint64_t key, uint32_t node,
				int *failed)
{
	uint32_t i;

	for (i = slot_of(idx, key);; i = (i + 1) & idx->mask) {
		if (idx->slots[i].key == key)
			return idx->slots[i].node;
		if (idx->slots[i].key == SEQ_DIGRAM_EMPTY)
			break;
	}
	if ((uint64_t)(idx->count + 1) * 2 > (uint64_t)idx->mask + 1) {
		if (grow_if_needed(idx) < 0) {
			*failed = 1;
			return SEQ_DIGRAM_NONE;
		}
		insert_fresh(idx, key, node);
		return SEQ_DIGRAM_NONE;
	}
	idx->slots[i] = (struct seq_digram_slot){key, node, 0};
	idx->count++;
	return SEQ_DIGRAM_NONE;
}

int seq_digram_put(struct seq_digram_index *idx, uint64_t key, uint32_t node)
{
	for (uint32_t i = slot_of(idx, key);; i = (i + 1) & idx->mask) {
		if (idx->slots[i].key == key) {
			idx->slots[i].node = node;
			return 0;
		}
		if (idx->slots[i].key == SEQ_DIGRAM_EMPTY)
			break;
	}
	if (grow_if_needed(idx) < 0)
		return -1;
	insert_fresh(idx, key, node);
	return 0;
}

void seq_digram_remove_if(struct seq_digram_index *idx, uint64_t key, uint32_t node)
{
	uint32_t i;

	for (i = slot_of(idx, key);; i = (i + 1) & idx->mask) {
		if (idx->slots[i].key == key)
			break;
		if (idx->slots[i].key == SEQ_DIGRAM_EMPTY)
			return;
	}
	if (idx->slots[i].node != node)
		return;
	/* Backward-shift deletion: pull later members of the probe run into
	 * the hole when their home slot does not lie strictly after it. */
	uint32_t hole = i;
	for (uint32_t j = (i + 1) & idx->mask; idx->slots[j].key != SEQ_DIGRAM_EMPTY;
	     j = (j + 1) & idx->mask) {
		uint32_t home = slot_of(idx, idx->slots[j].key);
		if (((j - home) & idx->mask) >= ((j - hole) & idx->mask)) {
			idx->slots[hole] = idx->slots[j];
			hole = j;
		}
	}
	idx->slots[hole].key = SEQ_DIGRAM_EMPTY;
	idx->count--;
}

uint64_t seq_digram_bytes(const struct seq_digram_index *idx)
{
	return ((uint64_t)idx->mask + 1) * sizeof(*idx->slots);
}
