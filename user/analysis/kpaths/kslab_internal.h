/* SPDX-License-Identifier: MIT */
/*
 * kslab_internal.h — the k-SF's representation, shared by the streaming
 * construction (kslab.c), pruning (kslab_prune.c) and the k-SF -> k-IPF
 * conversion (kipf.c).  Not for other users.
 *
 * Nodes live in one array indexed by uint32_t (0 = none), first-child /
 * next-sibling, as in the paper's implementation (section 3.3): small nodes,
 * and degrees are low in practice.  A free node has fid 0 (path labels never
 * do: fid 0 is the control fid) and is chained through `sibling`.
 */
#ifndef WPP_KSLAB_INTERNAL_H
#define WPP_KSLAB_INTERNAL_H

#include "analysis/kpaths/kslab.h"
#include "analysis/kpaths/kslab_map.h"

struct kslab_node {
	uint64_t value;
	uint64_t count;
	uint32_t fid;
	uint32_t child;
	uint32_t sibling;
	uint32_t pinned; /* set only while kslab_prune() runs: a cursor is here */
};

/* Figure 6's streaming state for one stream: n (items since the stream's
 * last mark, mod slab), top, bottom.  kslab_push() saves one per suspended
 * routine activation (kslab.h). */
struct kslab_cursor {
	unsigned n;
	uint32_t top, bottom;
	uint64_t stream; /* kslab_item_stream() */
};

struct kslab {
	unsigned k;    /* requested k */
	unsigned slab; /* items per slab: max(k, 2) - 1 */
	uint64_t max_nodes;
	/* Prune when the forest grows past this: max_nodes, or twice what a
	 * sweep had to keep when the nodes pinned by cursors (deep recursion)
	 * kept it above max_nodes / 2, so that sweeps stay O(1) per item. */
	uint64_t prune_at;
	struct kslab_node *nodes;
	uint32_t used; /* nodes[1 .. used) have been handed out */
	uint32_t cap;
	uint32_t free_list; /* pruned nodes for reuse */
	struct kslab_map roots;
	struct kslab_cursor cur;    /* the stream being fed */
	uint64_t streams;	    /* streams begun so far */
	uint64_t item_stream;	    /* the stream of the last item */
	struct kslab_cursor *saved; /* suspended streams, innermost last */
	uint32_t nsaved, saved_cap;
	int failed;
	struct kslab_stats st;
};

void kslab_node_label(const void *pool, uint32_t idx, uint32_t *fid, uint64_t *value);
/* Delete cold leaves until at most max_nodes / 2 remain (kslab_prune.c). */
void kslab_prune(struct kslab *s);

#endif
