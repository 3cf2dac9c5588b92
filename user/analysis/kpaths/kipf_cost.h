/* SPDX-License-Identifier: MIT */
/*
 * kipf_cost.h — what each k-path of a k-IPF cost (issue 7: costs flow into
 * every report).  A k-path's cost is the sum of the costs of its path
 * instances over all its occurrences: with unit(l) the cost of one
 * execution of path l, the k-path <l1..ln> counted c times costs
 * c * (unit(l1) + ... + unit(ln)).  That is exact when a path's cost is the
 * same on every execution (IR instructions, executions); sampled counter
 * events vary per execution and are costed per instance instead
 * (kipf_inst_cost.h).
 *
 * Every label of a k-IPF is also a root (each 1-path is a k-path), so the
 * caller gives unit costs per root node only.
 */
#ifndef WPP_KIPF_COST_H
#define WPP_KIPF_COST_H

#include "analysis/kpaths/kipf.h"

/* root_unit[r] for each root r (indexed by node; other entries ignored).
 * Returns cost[idx] for every node idx in 1..f->nnodes (malloc'd; [0]
 * unused), or NULL on no memory. */
double *kipf_node_costs(const struct kipf *f, const double *root_unit);

#endif
