/* SPDX-License-Identifier: MIT */
/*
 * kipf_cost.c — k-path costs from per-path unit costs (see kipf_cost.h).
 */
#include "analysis/kpaths/kipf_cost.h"

#include <stdlib.h>

double *kipf_node_costs(const struct kipf *f, const double *root_unit)
{
	/* unit_sum[idx]: one occurrence's cost, the sum along the k-path.  A
	 * node is always created after its parent, so index order is a
	 * parent-first order. */
	double *unit_sum = malloc(((size_t)f->nnodes + 1) * sizeof(*unit_sum));
	double *cost = malloc(((size_t)f->nnodes + 1) * sizeof(*cost));

	if (!unit_sum || !cost) {
		free(unit_sum);
		free(cost);
		return NULL;
	}
	unit_sum[0] = cost[0] = 0;
	for (uint32_t i = 1; i <= f->nnodes; i++) {
		const struct kipf_node *nd = &f->nodes[i];
		uint32_t root = nd->parent ? kipf_find((struct kipf *)f, 0, nd->fid, nd->value) : i;
		unit_sum[i] =
		    (nd->parent ? unit_sum[nd->parent] : 0) + (root ? root_unit[root] : 0);
		cost[i] = (double)nd->count * unit_sum[i];
	}
	free(unit_sum);
	return cost;
}
