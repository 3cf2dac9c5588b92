/* SPDX-License-Identifier: MIT */
/* Open-addressing digram index: the rarely run parts (allocation, growth,
 * deletion); the lookups are inline in sequitur_digram.h. */
#include "sequitur_digram.h"

#include <stdlib.h>
#include <sys/mman.h>

/* Tables from this size up are placed on transparent huge pages: the
 * lookups are random, and with 4 KiB pages nearly every probe of a table
 * of several MiB also missed the TLB. */
#define HUGE_TABLE_BYTES (UINT64_C(2) << 20)

void *seq_alloc_random_access(size_t bytes)
{
	void *p;

	if (bytes < HUGE_TABLE_BYTES)
		return malloc(bytes);
	if (posix_memalign(&p, HUGE_TABLE_BYTES, bytes))
		return NULL;
	/* Advice only: without huge pages the table still works. */
	madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

static int alloc_table(struct seq_digram_index *idx, unsigned log2_capacity)
{
	uint32_t cap = 1u << log2_capacity;

	idx->slots = seq_alloc_random_access(sizeof(*idx->slots) * (size_t)cap);
	idx->occupied = calloc((cap + 63) / 64, sizeof(*idx->occupied));
	if (!idx->slots || !idx->occupied) {
		free(idx->slots);
		free(idx->occupied);
		return -1;
	}
	idx->mask = cap - 1;
	idx->shift = 32 - log2_capacity;
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
	free(idx->occupied);
	idx->slots = NULL;
	idx->occupied = NULL;
}

int seq_digram_grow(struct seq_digram_index *idx)
{
	struct seq_digram_index bigger;
	unsigned log2 = 32 - idx->shift + 1;

	if (log2 > 31 || alloc_table(&bigger, log2) < 0)
		return -1;
	/* Old slots in index order: the new layout depends only on the old
	 * one, so determinism is kept.  Keys are distinct, so each entry just
	 * goes to the first free slot from its home (no key comparison). */
	for (uint32_t i = 0; i <= idx->mask; i++) {
		if (!seq_digram_occupied(idx, i))
			continue;
		uint32_t j = seq_digram_home(&bigger, idx->slots[i].fp);
		while (seq_digram_occupied(&bigger, j))
			j = (j + 1) & bigger.mask;
		bigger.slots[j] = idx->slots[i];
		seq_digram_mark(&bigger, j);
		bigger.count++;
	}
	seq_digram_free(idx);
	*idx = bigger;
	return 0;
}

void seq_digram_remove_slot(struct seq_digram_index *idx, uint32_t i)
{
	/* Backward shift: pull later members of the probe run into the hole
	 * when their home slot does not lie strictly after it. */
	uint32_t hole = i;
	for (uint32_t j = (i + 1) & idx->mask; seq_digram_occupied(idx, j);
	     j = (j + 1) & idx->mask) {
		uint32_t home = seq_digram_home(idx, idx->slots[j].fp);
		if (((j - home) & idx->mask) >= ((j - hole) & idx->mask)) {
			idx->slots[hole] = idx->slots[j];
			hole = j;
		}
	}
	seq_digram_unmark(idx, hole);
	idx->count--;
}

uint64_t seq_digram_bytes(const struct seq_digram_index *idx)
{
	uint64_t cap = (uint64_t)idx->mask + 1;

	return cap * sizeof(*idx->slots) + (cap + 63) / 64 * sizeof(*idx->occupied);
}
