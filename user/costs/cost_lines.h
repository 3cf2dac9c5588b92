/* SPDX-License-Identifier: MIT */
/*
 * cost_lines.h — a counter's attributed samples placed on source lines by
 * their sampled ip (issue 7: a path's cost per block/line).
 *
 * costs.h puts each sample on the path record executing when the counter
 * overflowed; the sample also carries the interrupted ip.  That ip is
 * mapped through the object of the path's module (found by the fid, opened
 * by path + build-id, translated with the load bias recorded at run time)
 * to source frames with libdw (symbolizer/dwarf_lookup.h).  The line kept
 * is the one in the path's own function: the outermost frame, so code
 * inlined into the function is charged to the line that called it.  An ip
 * whose outermost frame is another function (a library or callee the path
 * was waiting on) is counted as "elsewhere" (line 0); one that cannot be
 * symbolized (no DWARF, object gone) as "unknown".
 */
#ifndef WPP_REPORT_COST_LINES_H
#define WPP_REPORT_COST_LINES_H

#include <stddef.h>
#include <stdint.h>

#include "costs/costs.h"

struct line_cost {
	const struct wpp_fn *fn;
	int is_block;
	uint64_t path; /* path id (block index when is_block) */
	uint32_t line; /* in fn's own file; 0 = elsewhere */
	uint64_t weight, samples;
};

struct line_costs {
	struct line_cost *v; /* sorted by fn, path, line; merged over processes of a binary */
	size_t n;
	uint64_t unknown_samples, unknown_weight;
};

/* 0, or -1 on allocation failure (message printed). */
int line_costs_build(struct wpp_modules *mods, const struct cost_attribution *a,
		     struct line_costs *out);
void line_costs_free(struct line_costs *lc);

/* Weight and samples on line of fn (0 = elsewhere) over all its paths; path
 * >= 0 narrows to one path (is_block says which kind). */
uint64_t line_cost_of(const struct line_costs *lc, const struct wpp_fn *fn, long long path,
		      int is_block, uint32_t line, uint64_t *samples);

#endif
