/* SPDX-License-Identifier: MIT */
/* The digram index's rarely run parts (allocation, growth, deletion past
 * the home bucket); the lookups are inline in sequitur_digram.h, and its
 * consistency check is with the builder's in sequitur_check.c. */
#include "analysis/grammar/sequitur_digram.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Arrays from this size up are placed on transparent huge pages: the
 * lookups are random, and with 4 KiB pages nearly every probe of a table
 * of several MiB also missed the TLB. */
#define HUGE_TABLE_BYTES (UINT64_C(2) << 20)

void *seq_alloc_random_access(size_t bytes)
{
	void *p;

	if (posix_memalign(&p, bytes < HUGE_TABLE_BYTES ? 64 : HUGE_TABLE_BYTES, bytes ? bytes : 1))
		return NULL;
	/* Advice only: without huge pages the array still works. */
	if (bytes >= HUGE_TABLE_BYTES)
		madvise(p, bytes, MADV_HUGEPAGE);
	return p;
}

/* An anonymous mapping of bytes (a multiple of HUGE_TABLE_BYTES) at a
 * HUGE_TABLE_BYTES boundary, or MAP_FAILED: a larger reservation, trimmed. */
static void *map_aligned(size_t bytes, int prot)
{
	size_t span = bytes + HUGE_TABLE_BYTES;
	uint8_t *p = mmap(NULL, span, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return MAP_FAILED;
	size_t head = (HUGE_TABLE_BYTES - (uintptr_t)p % HUGE_TABLE_BYTES) % HUGE_TABLE_BYTES;
	if (head)
		munmap(p, head);
	if (span - head - bytes)
		munmap(p + head + bytes, span - head - bytes);
	return p + head;
}

void *seq_grow_growable(void *p, size_t old_bytes, size_t new_bytes)
{
	void *bigger;

	if (new_bytes < HUGE_TABLE_BYTES || new_bytes % HUGE_TABLE_BYTES) {
		bigger = seq_alloc_random_access(new_bytes);
		if (bigger && old_bytes)
			memcpy(bigger, p, old_bytes);
	} else if (old_bytes < HUGE_TABLE_BYTES) {
		/* Leaving the heap: one last copy. */
		bigger = map_aligned(new_bytes, PROT_READ | PROT_WRITE);
		if (bigger == MAP_FAILED)
			return NULL;
		if (old_bytes)
			memcpy(bigger, p, old_bytes);
		madvise(bigger, new_bytes, MADV_HUGEPAGE);
	} else {
		/* Grown in place when the addresses after it are free, else
		 * moved onto an aligned reservation (so that its huge pages
		 * stay whole); the pages themselves are not touched. */
		bigger = mremap(p, old_bytes, new_bytes, 0);
		if (bigger == MAP_FAILED) {
			void *at = map_aligned(new_bytes, PROT_NONE);
			if (at == MAP_FAILED)
				return NULL;
			bigger = mremap(p, old_bytes, new_bytes, MREMAP_MAYMOVE | MREMAP_FIXED, at);
			if (bigger == MAP_FAILED) {
				munmap(at, new_bytes);
				return NULL;
			}
		}
		madvise(bigger, new_bytes, MADV_HUGEPAGE);
		return bigger;
	}
	if (bigger && old_bytes)
		seq_free_growable(p, old_bytes);
	return bigger;
}

void seq_free_growable(void *p, size_t bytes)
{
	if (bytes >= HUGE_TABLE_BYTES && bytes % HUGE_TABLE_BYTES == 0)
		munmap(p, bytes);
	else
		free(p);
}

static int alloc_table(struct seq_digram_index *idx, unsigned log2_buckets)
{
	uint32_t nb = 1u << log2_buckets;

	idx->buckets = seq_alloc_random_access(sizeof(*idx->buckets) * (size_t)nb);
	idx->overflow = calloc(nb, 1);
	if (!idx->buckets || !idx->overflow) {
		free(idx->buckets);
		free(idx->overflow);
		return -1;
	}
	memset(idx->buckets, 0, sizeof(*idx->buckets) * (size_t)nb);
	idx->mask = nb - 1;
	idx->shift = 32 - log2_buckets;
	idx->count = 0;
	idx->limit = (uint32_t)((uint64_t)nb * SEQ_DIGRAM_LANES * 3 / 4);
	return 0;
}

int seq_digram_init(struct seq_digram_index *idx, unsigned log2_capacity)
{
	/* Eight entries a bucket, and at least two buckets (shift < 32). */
	return alloc_table(idx, log2_capacity > 4 ? log2_capacity - 3 : 1);
}

void seq_digram_free(struct seq_digram_index *idx)
{
	free(idx->buckets);
	free(idx->overflow);
	idx->buckets = NULL;
	idx->overflow = NULL;
}

int seq_digram_grow(struct seq_digram_index *idx)
{
	struct seq_digram_index bigger;
	unsigned log2 = 32 - idx->shift + 1;

	if (log2 > 28 || alloc_table(&bigger, log2) < 0)
		return -1;
	/* Old entries in bucket and lane order: the new layout depends only
	 * on the old one, so determinism is kept.  Keys are distinct, so each
	 * entry just goes to the first free lane from its home. */
	for (uint32_t b = 0; b <= idx->mask; b++)
		for (unsigned j = 0; j < SEQ_DIGRAM_LANES; j++)
			if (idx->buckets[b].tag[j])
				seq_digram_place(&bigger, idx->buckets[b].tag[j],
						 idx->buckets[b].node[j]);
	seq_digram_free(idx);
	*idx = bigger;
	return 0;
}

void seq_digram_remove_at(struct seq_digram_index *idx, uint32_t b, unsigned j)
{
	struct seq_digram_bucket *bk = &idx->buckets[b];

	for (uint32_t c = seq_digram_home(idx, bk->tag[j]); c != b; c = seq_digram_next(idx, c))
		if (idx->overflow[c] != SEQ_DIGRAM_STICKY)
			idx->overflow[c]--;
	bk->tag[j] = 0;
	bk->node[j] = 0;
	idx->count--;
}

uint64_t seq_digram_bytes(const struct seq_digram_index *idx)
{
	uint64_t nb = (uint64_t)idx->mask + 1;

	return nb * (sizeof(*idx->buckets) + 1);
}
