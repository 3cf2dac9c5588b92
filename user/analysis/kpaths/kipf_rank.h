/* SPDX-License-Identifier: MIT */
/*
 * kipf_rank.h — the hottest k-paths of a k-IPF (the report's selection).
 *
 * A k-path is listed when it is maximal — k paths long, or a prefix no
 * longer k-path extends — or, with all, for every node.  Ordered by count
 * (or by cost, when costs are given: kipf_cost.h), longer first on ties,
 * then by label order, so output is deterministic.
 */
#ifndef WPP_KIPF_RANK_H
#define WPP_KIPF_RANK_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/kpaths/kipf.h"

/* Keep a k-path whose first path is (fid, value)?  NULL keeps all. */
typedef int (*kipf_root_filter)(void *ctx, uint32_t fid, uint64_t value);

struct kipf_rank_opts {
	unsigned k; /* view depth (<= f->k) */
	int all;    /* every node, not only maximal ones */
	uint64_t min_count;
	size_t top; /* 0 = no limit */
	kipf_root_filter keep;
	void *keep_ctx;
	const double *cost; /* per node (kipf_node_costs); NULL: rank by count */
};

/* Node indices of the selected k-paths' last nodes, best first, in
 * *out (malloc'd); returns how many, or -1 on no memory.  *total gets the
 * number that matched before --top. */
long kipf_rank(const struct kipf *f, const struct kipf_rank_opts *o, uint32_t **out, size_t *total);

#endif
