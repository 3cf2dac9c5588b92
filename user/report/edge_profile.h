/* SPDX-License-Identifier: MIT */
/*
 * edge_profile.h — a path profile reduced to how often each DAG edge of
 * each function was taken, written as an edge profile file
 * (wpp/edge_profile.h) for profile-guided placement.
 *
 * A path's executions count once on each of its DAG edges: its ENTRY edge,
 * the REAL edges between its blocks, its EXIT edge.  Functions of the same
 * stable id (one source function linked into several binaries, or seen in
 * several processes) are summed.  Paths of blocks-mode code carry no DAG
 * edges and are left out.
 */
#ifndef WPP_REPORT_EDGE_PROFILE_H
#define WPP_REPORT_EDGE_PROFILE_H

#include <stdint.h>
#include <stdio.h>

#include "profile.h"

struct edge_profile_stats {
	uint64_t functions, edges;
	uint64_t path_executions;
	/* Executions of edges that carry an increment in the recorded build:
	 * what the path register's updates cost, beside the path ends. */
	uint64_t increments;
};

/* Write p's edge profile to out.  0, or -1 (out of memory, or a write
 * error: the caller reports it). */
int rpt_edge_profile_write(FILE *out, const struct rpt_profile *p, struct edge_profile_stats *st);

#endif
