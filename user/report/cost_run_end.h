/* SPDX-License-Identifier: MIT */
/*
 * cost_run_end.h — which execution a sample taken at a run's REPEAT slot
 * belongs to (docs/counters.md, "Runs").
 *
 * While a loop counts a run of path P, the cursor stays on the slot the
 * REPEAT word will take; the iteration that ends the run (another path Q,
 * or the loop's exit) runs there too, and Q's record is written right
 * after the REPEAT word.  A sample at that slot is P's unless the sampled
 * instruction cannot be on P: its source position (DWARF, innermost frame:
 * file, line and column), in P's function, lies on a block of Q and on no
 * block of P.  Everything else (a position P's blocks have, one no block
 * has, no debug information, an ip outside the function) stays with the
 * run: the rule only moves a sample when the metadata rules P out.
 */
#ifndef WPP_REPORT_COST_RUN_END_H
#define WPP_REPORT_COST_RUN_END_H

#include <stdint.h>

#include "module_map.h"

/* One path or block record of a function: the run's, or the one after it. */
struct run_end_rec {
	const struct wpp_fn *fn;
	uint32_t fid;
	uint64_t value; /* path id, or block index when is_block */
	int is_block;
};

struct run_end_judge;
/* NULL on allocation failure. */
struct run_end_judge *run_end_judge_new(struct wpp_modules *mods);
void run_end_judge_free(struct run_end_judge *j);

/* 1 when the sample (ip, in image (pid, gen)) taken at the REPEAT slot of
 * a run of `run` belongs to `next`, the record right after the run; 0 when
 * it stays with the run. */
int run_end_is_next(struct run_end_judge *j, uint32_t pid, uint32_t gen, uint64_t ip,
		    const struct run_end_rec *run, const struct run_end_rec *next);

#endif
