/* SPDX-License-Identifier: MIT */
/*
 * edge_profile.h — path profiles reduced to how often each DAG edge of
 * each function was taken, written as an edge profile file
 * (wpp/edge_profile.h) for profile-guided placement.
 *
 * A path's executions count once on each of its DAG edges: its ENTRY edge,
 * the REAL edges between its blocks, its EXIT edge.  Functions are keyed
 * by stable id, so the same source function seen in several processes,
 * binaries or recordings (a training run of several steps) is summed.
 * Paths of blocks-mode code carry no DAG edges and are left out.
 */
#ifndef WPP_REPORT_EDGE_PROFILE_H
#define WPP_REPORT_EDGE_PROFILE_H

#include <stdint.h>
#include <stdio.h>

#include "report/profile.h"

struct edge_profile_stats {
	uint64_t functions, edges;
	uint64_t path_executions;
	/* Executions of edges that carry an increment in the recorded build:
	 * what the path register's updates cost, beside the path ends. */
	uint64_t increments;
	/* Functions left out: their stable id came with two different DAGs
	 * (a hash collision, or metadata from another wppcc). */
	uint64_t conflicting;
};

struct edge_profile;

struct edge_profile *edge_profile_new(void);
void edge_profile_free(struct edge_profile *ep);
/* Add p's path counts (p may be closed afterwards).  0, or -1 when out of
 * memory. */
int edge_profile_add(struct edge_profile *ep, const struct rpt_profile *p);
/* Write the file (functions by stable id); source names the inputs in its
 * comment line.  0, or -1 on a write error (the caller reports it). */
int edge_profile_write(const struct edge_profile *ep, FILE *out, const char *source,
		       struct edge_profile_stats *st);

#endif
