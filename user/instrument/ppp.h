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
 * Cost: O(L log L) for L = the total length of I's paths.
 */
#ifndef WPP_INSTRUMENT_PPP_H
#define WPP_INSTRUMENT_PPP_H

#include <stddef.h>
#include <stdint.h>

#include "instrument/dag.h"

struct wpp_ppp {
	int64_t *weight;   /* per DAG edge */
	uint64_t interval; /* ids of I's paths lie in [0, interval) */
	uint32_t npaths;   /* |I| after removing duplicates */
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
void wpp_ppp_free(struct wpp_ppp *p);

/* Γ: interval / npaths (1.0 for an empty set). */
double wpp_ppp_compactness(const struct wpp_ppp *p);

#endif
