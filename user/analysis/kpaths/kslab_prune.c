/* SPDX-License-Identifier: MIT */
/*
 * kslab_prune.c — bounded-memory k-SF: delete the coldest leaves.
 *
 * Only leaves go (a node goes once all its children went), so every
 * surviving node still stands for the same label path from its root and
 * keeps counting correctly; only the counts of deleted nodes are lost, and
 * their sum is kept in lost_items — the error bound of docs/kpaths.md.  The
 * top and bottom nodes of every cursor (the current one and those of
 * suspended activations) are pinned and never deleted, and their ancestors
 * are never leaves, so every streaming state stays valid.
 *
 * The threshold is picked from a count histogram so one sweep usually
 * reaches the target (max_nodes / 2); cold internal nodes above hot leaves
 * cannot go, so the sweep repeats with the next threshold if needed.  A
 * sweep costs O(nodes) and frees at least half of max_nodes' worth of room,
 * so pruning costs O(1) amortized per item.  When the pinned nodes alone
 * exceed that (a cursor pins its top and bottom paths, <= 2k-2 nodes, and
 * every suspended activation has one), the next sweep waits until the
 * forest has doubled: memory stays within max(max_nodes, 2 * pinned) + 2
 * and sweeps stay O(1) amortized.
 */
#include <stdlib.h>

#include "analysis/kpaths/kslab_internal.h"

/* Histogram buckets: exact counts 0..63, then one bucket per power of two. */
#define EXACT	 64u
#define NBUCKETS (EXACT + 64u)

static unsigned bucket_of(uint64_t c)
{
	unsigned b = EXACT;

	if (c < EXACT)
		return (unsigned)c;
	while (c >= 2 * EXACT && b < NBUCKETS - 1) {
		c >>= 1;
		b++;
	}
	return b;
}

/* Largest count that falls into bucket b. */
static uint64_t bucket_max(unsigned b)
{
	if (b < EXACT)
		return b;
	if (b - EXACT >= 57)
		return UINT64_MAX;
	return (UINT64_C(2) * EXACT << (b - EXACT)) - 1;
}

static void release(struct kslab *s, uint32_t idx)
{
	s->st.lost_items += s->nodes[idx].count;
	s->nodes[idx].fid = 0;
	s->nodes[idx].sibling = s->free_list;
	s->free_list = idx;
	s->st.nodes--;
}

/* Post-order: drop cold leaf descendants of idx; 1 if idx itself may go. */
static int sweep(struct kslab *s, uint32_t idx, uint64_t threshold)
{
	uint32_t *link = &s->nodes[idx].child;

	while (*link) {
		uint32_t c = *link;
		if (sweep(s, c, threshold)) {
			*link = s->nodes[c].sibling;
			release(s, c);
		} else {
			link = &s->nodes[c].sibling;
		}
	}
	return !s->nodes[idx].child && s->nodes[idx].count <= threshold && !s->nodes[idx].pinned;
}

/* Pin (1) or unpin (0) the nodes every cursor stands on, the suspended ones
 * included: a resumed activation continues from them. */
static void pin_cursors(struct kslab *s, uint32_t on)
{
	s->nodes[s->cur.top].pinned = on;
	s->nodes[s->cur.bottom].pinned = on;
	for (uint32_t i = 0; i < s->nsaved; i++) {
		s->nodes[s->saved[i].top].pinned = on;
		s->nodes[s->saved[i].bottom].pinned = on;
	}
}

void kslab_prune(struct kslab *s)
{
	uint64_t hist[NBUCKETS] = {0}, target = s->max_nodes / 2, excess, acc = 0;
	uint32_t *roots;
	size_t nroots = 0;
	unsigned b;

	s->st.prunes++;
	for (uint32_t i = 1; i < s->used; i++)
		if (s->nodes[i].fid)
			hist[bucket_of(s->nodes[i].count)]++;
	excess = s->st.nodes - target;
	for (b = 0; b < NBUCKETS - 1 && acc + hist[b] < excess; b++)
		acc += hist[b];

	roots = malloc(s->roots.n * sizeof(*roots));
	if (!roots)
		return; /* no room to prune now; the next item tries again */
	pin_cursors(s, 1);
	for (size_t i = 0; i < s->roots.cap; i++)
		if (s->roots.slots[i])
			roots[nroots++] = s->roots.slots[i];

	for (;; b++) {
		uint64_t threshold = bucket_max(b < NBUCKETS ? b : NBUCKETS - 1);
		size_t kept = 0;
		for (size_t i = 0; i < nroots; i++) {
			if (sweep(s, roots[i], threshold)) {
				kslab_map_remove(&s->roots, s->nodes, roots[i]);
				release(s, roots[i]);
			} else {
				roots[kept++] = roots[i];
			}
		}
		nroots = kept;
		if (s->st.nodes <= target || b >= NBUCKETS - 1)
			break;
	}
	pin_cursors(s, 0);
	free(roots);
	/* Only pinned nodes and their ancestors can be left above the target:
	 * let the forest double before the next sweep, which keeps sweeps
	 * O(1) amortized per item and memory within max(M, 2 * pinned) + 2. */
	s->prune_at =
	    s->st.nodes > target && 2 * s->st.nodes > s->max_nodes ? 2 * s->st.nodes : s->max_nodes;
}
