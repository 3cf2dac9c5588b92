/* SPDX-License-Identifier: MIT */
/*
 * ppp.h — preferential path numbering (Vaswani, Nori, Chilimbi, "Preferential
 * Path Profiling: Compactly Numbering Interesting Paths", POPL 2007, Figure
 * 10) of a Ball-Larus numbered struct wpp_dag.
 *
 * Given the set I of interesting paths (by Ball-Larus id), assign every DAG
 * edge a signed weight W(e) so that the sums of W along the paths of I are
 * distinct and fill [0, interval) as tightly as the paper's algorithm
 * allows.  Nodes are visited bottom-up in the same order Ball-Larus
 * numbering uses (dag_walk.h).  At a node v, for each out-edge e carrying
 * interesting paths and each prefix q (the path from ENTRY to v, named by
 * its Ball-Larus partial sum, unique per node) those paths share:
 *     weight_q = cis(q) - min pid over I's paths through e with prefix q,
 *     W(e)     = max over q of weight_q            (the join)
 * then every such path's partial id pid += W(e) and
 *     cis(q)   = max pid over the same paths + 1
 * so the intervals of one prefix never overlap across v's out-edges
 * (the paper's Lemma 5: paths for which v is critical get distinct ids).
 * Edges no interesting path takes get W = 0: the paper leaves them
 * undefined, and any value keeps I's ids; 0 keeps them cheap.
 *
 * Paths outside I get some id too, possibly outside [0, interval) and
 * possibly equal to an interesting path's: the profiler resolves that with
 * the Ball-Larus register (slot_bl[id] holds the interesting path's
 * Ball-Larus id; a mismatch or an out-of-range id is a residual path).
 *
 * Compactness Γ = interval / |I| (1 is perfect; the paper's Lemma 3 shows
 * 1 is not always reachable).  With I = every path, PPP is Ball-Larus:
 * W = val and every id equals the Ball-Larus id.
 *
 * The join leaves holes (a prefix whose intervals are smaller than
 * another's on the same edge), and the holes compound bottom-up: a
 * prefix's interval at one node is the sum of its (holed) intervals
 * below; along a chain of two-way branches whose paths are a sparse
 * subset of the combinations the widest interval doubles per branch.
 * These choices keep every property above and often leave fewer holes
 * (struct wpp_ppp_way); wpp_ppp_number tries them and keeps the smallest
 * interval:
 *   reverse  number top-down instead, with suffixes as the contexts (the
 *            paper's footnote to Lemma 4: the same invariant over
 *            suffixes); sums along a path do not care which way it was
 *            numbered, and graphs that branch late and merge early number
 *            more tightly this way;
 *   order    which of a node's edges is numbered first: Ball-Larus's
 *            order (the paper's), the most interesting paths first, or
 *            greedily the one whose weight leaves the fewest holes; and
 *            shuffled from a seed first (shuffle != 0);
 *   fill     give an edge the smallest weight under which none of its
 *            paths lands on an id its context already holds — the ids,
 *            not the intervals, must be disjoint — so an edge's ids may
 *            fill the holes earlier edges left (the paper's section 3.3,
 *            Figure 11).  Every weight that would make two ids of one
 *            context meet is (held id - partial id) of that context: they
 *            are collected and the first gap above the lowest weight
 *            taken.  The pairs compared count against a budget; once it
 *            is spent, the join's weight (which always fits) is used;
 *   compact  afterwards, pull ids down into the holes left
 *            (ppp_compact.h).
 * Uniqueness holds for each: after a node, the paths sharing a context
 * there have distinct partial ids (distinct per edge by induction, and
 * no two edges' ids meet within one context); compaction checks every
 * move against all ids.
 *
 * Cost: O(L log L) for L = the total length of I's paths, per way tried
 * (the greedy order: times the node's numbered edges, at most 64; fill
 * and compaction: their budget); wpp_ppp_number bounds the sum
 * (WPP_PPP_EFFORT).
 */
#ifndef WPP_INSTRUMENT_PPP_H
#define WPP_INSTRUMENT_PPP_H

#include <stddef.h>
#include <stdint.h>

#include "instrument/dag.h"
#include "instrument/dag_walk.h"

/* How to number (see above); all zero is the paper's Figure 10. */
enum wpp_ppp_order {
	WPP_PPP_ORDER_BL,      /* Ball-Larus's edge order (the paper's) */
	WPP_PPP_ORDER_LARGEST, /* the edges with the most interesting paths first */
	WPP_PPP_ORDER_HOLES,   /* next the edge whose weight leaves the fewest holes */
};

struct wpp_ppp_way {
	uint8_t reverse, order, fill, compact;
	uint32_t shuffle; /* nonzero: each node's edges shuffled from this seed first */
};

#define WPP_PPP_NWAYS 10
/* Every way, the paper's first (wpp_ppp_number's order of trying). */
extern const struct wpp_ppp_way wpp_ppp_ways[WPP_PPP_NWAYS];
/* After them, wpp_ppp_number tries fill with this many shuffled edge
 * orders (struct wpp_ppp_way's shuffle: the seed), all within a work
 * budget of WPP_PPP_EFFORT times the paper's way's work plus 2^23. */
#define WPP_PPP_SHUFFLES 32
#define WPP_PPP_EFFORT	 48

struct wpp_ppp {
	int64_t *weight;	/* per DAG edge */
	struct wpp_ppp_way way; /* the way that numbered it */
	uint64_t work;		/* occurrences visited, edges weighed, id pairs compared */
	uint64_t interval;	/* ids of I's paths lie in [0, interval) */
	uint32_t npaths;	/* |I| after removing duplicates */
	/* slot_bl[k] for k < npaths: the k-th interesting path's Ball-Larus id
	 * (increasing); slot_ppp[k] its preferential id. */
	uint64_t *slot_bl, *slot_ppp;
};

/* d must be numbered (numbering.h).  bl_ids: n interesting Ball-Larus ids,
 * any order, duplicates allowed (n may be 0: interval 0).  Returns 0, or
 * -1 with a reason in why (an id not below d->npaths, weights that would
 * not fit 63 bits, allocation failure); out is then empty. */
int wpp_ppp_number(const struct wpp_dag *d, const uint64_t *bl_ids, size_t n, struct wpp_ppp *out,
		   char *why, size_t whylen);
/* The same, one way only (wpp_ppp_number tries the paper's first and the
 * others only while Γ > 1, keeping the first smallest interval; why gets
 * the paper's way's reason when no way fits). */
int wpp_ppp_number_way(const struct wpp_dag *d, const uint64_t *bl_ids, size_t n,
		       const struct wpp_ppp_way *way, struct wpp_ppp *out, char *why,
		       size_t whylen);
void wpp_ppp_free(struct wpp_ppp *p);

/* Decoding a Ball-Larus id into its edges (numbering.h's values): walk
 * from wpp_dag_walk_begin on the numbered d; wpp_ppp_count_paths fills
 * walk->np with the paths from each node to EXIT; wpp_ppp_edge_for is the
 * out-edge of v that a remainder r (the id less the values of the edges
 * taken so far) takes, or WPP_NONE when r names no path from v. */
void wpp_ppp_count_paths(const struct wpp_dag *d, struct wpp_dag_walk *walk);
uint32_t wpp_ppp_edge_for(const struct wpp_dag *d, const struct wpp_dag_walk *walk, uint32_t v,
			  uint64_t r);

/* Γ: interval / npaths (1.0 for an empty set). */
double wpp_ppp_compactness(const struct wpp_ppp *p);

#endif
