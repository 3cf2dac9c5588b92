/* SPDX-License-Identifier: MIT */
/*
 * kipf.h — the k-iterations path forest (k-IPF): the prefix forest of every
 * k-path (run of up to k consecutive path labels of one stream — a routine
 * activation, or a whole thread in the flat view — with no segment mark
 * inside, docs/kpaths.md) with its number of occurrences.  The node reached
 * from a root by labels l1..ln counts the occurrences of the k-path
 * <l1..ln>; the roots are exactly the plain path profile.
 *
 * Built from a k-slab forest at the end of a thread (the paper's Figure 7),
 * merged across threads of a process, loaded from WPP_CHUNK_KIPF chunks
 * (kipf_serial.h).  Readers walk the public fields; children are in
 * increasing (fid, value) order after kipf_sort().
 */
#ifndef WPP_KIPF_H
#define WPP_KIPF_H

#include <stdint.h>

#include "analysis/kpaths/kslab.h"
#include "analysis/kpaths/kslab_map.h"
#include "wpp/wpp_file.h"

struct kipf_node {
	uint64_t value;
	uint64_t count;
	uint32_t fid;
	uint32_t child;	  /* first child, 0 = none */
	uint32_t sibling; /* next sibling, 0 = none */
	uint32_t parent;  /* 0 = a root */
};

struct kipf {
	unsigned k;		 /* depth: longest k-path kept */
	struct kipf_node *nodes; /* nodes[1 .. nnodes] */
	uint32_t nnodes, cap;
	uint32_t *roots; /* after kipf_sort(): roots in (fid, value) order */
	uint32_t nroots;
	struct kslab_map root_map;
	uint64_t items;		  /* labels the forest counts (sum over the roots) */
	uint64_t lost_items;	  /* pruning error bound (0 = exact) */
	uint64_t peak_slab_nodes; /* largest k-SF seen (sum over merged forests) */
	int failed;		  /* an allocation failed: the forest is incomplete */
	int activation;		  /* k-paths of routine activations (kslab_act.h);
				   * 0: the flat view (docs/kpaths.md) */
};

/* k in 1..WPP_KIPF_MAX_K.  NULL on no memory. */
struct kipf *kipf_new(unsigned k);
void kipf_free(struct kipf *f);

/* The child of parent (0 = the root level) labelled (fid, value), created
 * with count 0 if missing; 0 on allocation failure. */
uint32_t kipf_child(struct kipf *f, uint32_t parent, uint32_t fid, uint64_t value);
/* Create a child the caller knows is new (loading a validated stored
 * forest: sibling order already proves uniqueness).  0 on no memory. */
uint32_t kipf_new_child(struct kipf *f, uint32_t parent, uint32_t fid, uint64_t value);
/* Find without creating; 0 if absent. */
uint32_t kipf_find(struct kipf *f, uint32_t parent, uint32_t fid, uint64_t value);

/* Add the k-IPF of a k-slab forest (Figure 7) into f, cut at depth f->k
 * (which must not exceed kslab_k(s)).  After pruning, nodes whose subtree
 * counts nothing are dropped and each count is raised to its children's
 * sum (still a lower bound), so no child ever counts more than its prefix.
 * 0, or -1 on no memory. */
int kipf_add_kslab(struct kipf *f, const struct kslab *s);
/* Add src into dst, cut at dst->k.  0, or -1 on no memory. */
int kipf_merge(struct kipf *dst, const struct kipf *src);
/* Order every child list and the root list by (fid, value). 0 / -1. */
int kipf_sort(struct kipf *f);
/* Two sorted forests count the same k-paths the same number of times
 * (items and every node's label and count; lost_items too).  1 or 0. */
int kipf_equal(const struct kipf *a, const struct kipf *b);
/* Depth of node idx (0 = root). */
unsigned kipf_depth(const struct kipf *f, uint32_t idx);

#endif
