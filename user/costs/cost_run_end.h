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

#include "decode/module_map.h"
#include "wpp/wpp_file.h"

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

/*
 * The run's count when the sample was taken, read from the sampled
 * registers: wppcc (-g) describes where the count of a run-counting
 * function lives (the artificial variable WPP_RUN_COUNT_VAR,
 * user/instrument/runs_debug.h) and the sampler saved the registers.
 * 1 with *count when the ip is in the run's function and the count's
 * location there is a register (or a register plus an offset, or a
 * constant); 0 when unknown (no registers, no -g, spilled, other
 * function): the caller keeps the ip rule above.
 *
 * What the count says (runs.c, ir_probes.c): the run's first iteration
 * writes P's record and sets count = 0; each iteration that ends on P
 * again adds 1 at its path end; the iteration that takes another way
 * writes REPEAT(count) first.  While the run is counted the cursor is on
 * the REPEAT slot, so a sample there read count c during iteration c + 2
 * of the run: the (c + 1)-th repeated instance of P when c < K (the
 * REPEAT words' total), and the iteration that ended the run, the record
 * after the REPEAT word(s), when c == K (run_count_place).
 */
int run_count_at(struct run_end_judge *j, uint32_t pid, uint32_t gen, uint64_t ip,
		 const struct run_end_rec *run, const struct wpp_sample_regs *regs,
		 uint64_t *count);

enum run_count_where {
	RUN_COUNT_REPEAT, /* repeated instance number *index (0-based) of the run */
	RUN_COUNT_NEXT,	  /* the record after the run */
	RUN_COUNT_UNSURE, /* inconsistent (c > K, or c == K with no record after the run):
			   * the caller's older rule decides */
};
/* Where a sample that read count c belongs in a run of k repeated
 * instances; has_next: the record after the run is known (same depth, a
 * path, no gap in between). */
enum run_count_where run_count_place(uint64_t c, uint64_t k, int has_next, uint64_t *index);

#endif
