/* SPDX-License-Identifier: MIT */
/*
 * runs.h — which loops count repeated paths instead of recording each
 * iteration (WPP_CTRL_REPEAT, trace_abi.h; docs/instrumentation.md "Runs").
 *
 * A loop qualifies when one iteration is exactly one Ball-Larus path that
 * ends on a back edge to its header and nothing else can record in
 * between: an innermost natural loop entered only at its header, whose only
 * cuts are its back edges (no call heads, no inner loops, no truncation
 * cuts, no returns, no unreachable, no indirect branches or landing pads),
 * and whose blocks the IR side did not veto (instructions that may move the
 * thread's cursor; terminators other than br/switch).  Its exit edges are
 * ordinary edges whose code can go on the edge (never into a pinned
 * target), where the pending count is written.
 *
 * Loops are disjoint (innermost, one per header), so one (last, count)
 * pair per function serves all of them: outside every qualifying loop both
 * are 0.
 */
#ifndef WPP_INSTRUMENT_RUNS_H
#define WPP_INSTRUMENT_RUNS_H

#include <stdint.h>

#include "dag.h"

enum wpp_run_role {
	WPP_RUN_NONE = 0,
	WPP_RUN_BACK, /* back edge of a qualifying loop: its path end counts runs */
	WPP_RUN_EXIT, /* edge leaving a qualifying loop: write the pending count */
};

/* Fills role[e] for every CFG edge.  veto: per block, non-zero when the IR
 * side forbids runs through it (may be NULL).  max_paths: loops with more
 * different iterations (header-to-back-edge paths) than this record every
 * iteration, since their paths tend to alternate and then counting costs
 * more than it saves; 0 = no limit.  Returns the number of qualifying
 * loops, or -1 on allocation failure (role is then all NONE). */
int wpp_runs_find(const struct wpp_cfg *cfg, const struct wpp_dag *d, const uint8_t *veto,
		  uint32_t max_paths, uint8_t *role);

#endif
