/* SPDX-License-Identifier: MIT */
/*
 * runs.h — loop nests whose path ends are counted as runs instead of
 * recorded one by one (WPP_CTRL_REPEAT, trace_abi.h; docs/instrumentation.md
 * "Runs").
 *
 * A run region is a natural loop together with every loop nested in it, in
 * which nothing can record but the region's own back edges: entered only at
 * its header, every edge inside it an ordinary DAG edge or a back edge
 * (retreating edge cut as BACK_EXIT) to a block of the region, no call
 * heads (unless calls are allowed, below), truncation cuts, returns,
 * unreachable, indirect branches or landing pads, and no block the IR side
 * vetoed (instructions that may move the thread's cursor; terminators
 * other than br/switch).  Its exit edges are ordinary edges whose code can
 * go on the edge (never into a pinned target); there the pending count is
 * written.
 *
 * Calls (opts->calls): a loop whose body calls instrumented code on some
 * of its trips (its back edge is still cut, so some trip avoids every
 * call) may count runs too.  The edge into a call head ends the caller's
 * path there (CALL_EXIT); inside a region it gets the exit role as well:
 * the pending count is written and the state cleared before that path's
 * record, so the count precedes it and everything the callee records, and
 * after the call the region goes on with nothing pending, as if entered
 * anew.  The estimate below follows Ball and Larus's call heuristic: a
 * branch edge that leads only to a call is taken as rarely as a loop exit.
 *
 * Every path end inside a region compares its word with the last word the
 * region wrote, whichever back edge wrote it, so a REPEAT word still means
 * exactly "the record just before ran n more times": an inner back edge
 * breaks an outer run by itself.  The outermost qualifying loop is taken
 * first; a loop that does not qualify or is not worth it (below) leaves its
 * inner loops to be tried on their own.  Regions are disjoint, so one
 * (last, count) pair per function serves all of them: outside every region
 * both are 0.
 *
 * Worth it: counting costs a compare per record and a test on every exit,
 * and the first record of each entry pays more than a plain one, so a
 * region must be expected to record several times per entry.  The static
 * estimate gives every loop-exit branch LLVM's loop-exit likelihood (1 in
 * RUN_EXIT_ODDS) and takes, over the region's path starts (header and
 * inner back-edge targets), the smallest probability q that the path ends
 * on a back edge rather than leaving (or reaching a call): a region then
 * records at least 1 / (1 - q) times per entry on average.  With a
 * training profile (wpp_runs_find_measured) the records per entry of a
 * region the training run entered are measured instead:
 * (back-edge path ends + entries) / entries, where an entry is an edge
 * into the region or the return from a call inside it (the region then
 * goes on as if entered anew).
 */
#ifndef WPP_INSTRUMENT_RUNS_H
#define WPP_INSTRUMENT_RUNS_H

#include <stdint.h>

#include "instrument/dag.h"

enum wpp_run_role {
	WPP_RUN_NONE = 0,
	WPP_RUN_BACK, /* back edge inside a region: its path end counts runs */
	WPP_RUN_EXIT, /* edge leaving a region, or into a call head inside one:
		       * write the pending count and clear the state */
};

/* What a region is made of. */
enum wpp_runs_nests {
	WPP_RUNS_INNERMOST = 0, /* innermost loops only (the first design) */
	WPP_RUNS_NESTS = 1,	/* the outermost qualifying loop with all its inner loops */
	WPP_RUNS_LEVELS = 2,	/* each loop's own blocks, its inner loops left out as holes */
};

struct wpp_runs_opts {
	/* Regions with more different words (paths from a path start of the
	 * region to one of its back edges) are left alone; 0 = no limit. */
	uint32_t max_paths;
	/* Regions expected to record fewer times than this per entry are left
	 * alone (see above); 0 = no minimum. */
	double min_records;
	enum wpp_runs_nests nests;
	/* Loops with calls on some trips count runs too (see above). */
	int calls;
};

/* Fills role[e] for every CFG edge.  veto: per block, non-zero when the IR
 * side forbids runs through it (may be NULL).  Returns the number of
 * regions, or -1 on allocation failure (role is then all NONE). */
int wpp_runs_find(const struct wpp_cfg *cfg, const struct wpp_dag *d, const uint8_t *veto,
		  const struct wpp_runs_opts *opts, uint8_t *role);
/* The same, judging regions by measured[e], how often DAG edge e of d ran
 * in a training run (wppcc --wpp-profile; NULL: as wpp_runs_find). */
int wpp_runs_find_measured(const struct wpp_cfg *cfg, const struct wpp_dag *d, const uint8_t *veto,
			   const struct wpp_runs_opts *opts, const uint64_t *measured,
			   uint8_t *role);

#endif
