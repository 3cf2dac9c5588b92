/* SPDX-License-Identifier: MIT */
/*
 * dag_walk.h — what every bottom-up pass over a struct wpp_dag needs: out-
 * and in-edge lists (edge indices, in edge-array order, so per-node edge
 * order is the order numbering gives values in) and a reverse topological
 * order (every node after all its successors).
 *
 * Used by Ball-Larus numbering (numbering.c) and preferential numbering
 * (ppp.c); both must see the same edge order at every node.
 */
#ifndef WPP_INSTRUMENT_DAG_WALK_H
#define WPP_INSTRUMENT_DAG_WALK_H

#include "instrument/dag.h"

/* Edges of node v: adj[start[v] .. start[v + 1]). */
struct wpp_dag_adj {
	uint32_t *start, *adj;
};

struct wpp_dag_walk {
	uint32_t nn; /* nblocks + 2 */
	struct wpp_dag_adj out, in;
	uint32_t *order; /* reverse topological */
	uint64_t *np;	 /* zeroed; a per-node count for the caller */
};

/* Returns -1 (with nothing left to free) on allocation failure or a cycle. */
int wpp_dag_walk_begin(struct wpp_dag_walk *w, const struct wpp_dag *d);
void wpp_dag_walk_end(struct wpp_dag_walk *w);

#endif
