/* SPDX-License-Identifier: MIT */
/*
 * fn_flow.h — one function's execution counts derived from its path counts
 * (merged over every process of the same binary): how often each block ran,
 * how often each CFG edge was taken, and its hottest paths.
 *
 * A block lies at most once on a DAG path, so its count is the sum of the
 * counts of the paths through it.  An edge u->v is taken once per execution
 * of a path that has v right after u, or that ends at u by taking u->v as a
 * back edge or into a call block (the path's exit edge).  Used by annotate
 * (per line and per edge) and cfg (the drawn graph).
 */
#ifndef WPP_REPORT_FN_FLOW_H
#define WPP_REPORT_FN_FLOW_H

#include <stdint.h>

#include "report/profile.h"

#define FN_FLOW_MAX_SUCC 64 /* successors tracked per block (switches beyond: "other") */

struct fn_flow {
	const struct wpp_fn *fn;
	uint64_t total;	       /* path executions of the function */
	uint64_t *block_count; /* [nblocks] */
	uint32_t *nsucc;       /* [nblocks] */
	uint32_t *succ;	       /* [nblocks * FN_FLOW_MAX_SUCC] CFG successors */
	uint64_t *edge_count;  /* parallel to succ */
	struct rpt_row *paths; /* the function's paths, hottest first (by the sort given) */
	size_t npaths;
};

/* 0, or -1 if fn has no paths in p. */
int fn_flow_build(struct fn_flow *f, const struct rpt_profile *p, const struct wpp_fn *fn,
		  enum rpt_sort sort);
void fn_flow_free(struct fn_flow *f);

/* Functions of p named name (several when binaries share a name); caller frees. */
size_t fn_flow_find(const struct rpt_profile *p, const char *name, const struct wpp_fn ***out);

/* 1 if the path lies on the edge u->v (v after u, or its exit edge). */
int fn_flow_path_has_edge(const struct rpt_path *r, uint32_t u, uint32_t v);

#endif
