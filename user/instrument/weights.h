/* SPDX-License-Identifier: MIT */
/*
 * weights.h — edge weights that steer increment placement (placement.h).
 *
 * A weighting is a function filling one weight per DAG edge; placement only
 * needs "heavier = executed more often".  The static weighting here uses
 * branch probabilities (from !prof branch_weights, else uniform) times an
 * estimated block frequency of 8^loop_depth.  Measured counts from an
 * earlier run (wppcc --wpp-profile) replace it per function where they
 * apply (edge_profile_read.h), keeping it as the tie-break.
 */
#ifndef WPP_INSTRUMENT_WEIGHTS_H
#define WPP_INSTRUMENT_WEIGHTS_H

#include "instrument/dag.h"

struct wpp_weight_input {
	const struct wpp_cfg *cfg;
	const struct wpp_dag *dag;
	/* Per CFG edge: probability of the edge given its source block, or
	 * NULL for "uniform over the distinct successors". */
	const double *cfg_edge_prob;
};

typedef int (*wpp_weight_fn)(const struct wpp_weight_input *in, double *dag_weight);

/* Static estimate.  Returns 0 or -1 (allocation). */
int wpp_weights_static(const struct wpp_weight_input *in, double *dag_weight);

/* Loop nesting depth per block, from the retreating edges the DAG found
 * (natural-loop bodies, restricted to DFS descendants of the header so
 * irreducible regions stay bounded).  Work is capped for huge functions;
 * past the cap, remaining loops are ignored (weights are only a hint). */
int wpp_loop_depth(const struct wpp_cfg *cfg, const struct wpp_dag *d, uint32_t *depth);

#endif
