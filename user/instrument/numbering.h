/* SPDX-License-Identifier: MIT */
/*
 * numbering.h — Ball-Larus path numbering of a struct wpp_dag.
 *
 * NumPaths(EXIT) = 1; for every other node v in reverse topological order,
 * its out-edges (in their order in the edge array) get val = the number of
 * paths through the out-edges before them, and NumPaths(v) is the total.
 * Every ENTRY->EXIT path then gets a unique id sum(val) in 0..NumPaths(ENTRY)-1.
 *
 * Overflow: all sums are checked.  NumPaths(ENTRY) < narrow_limit -> narrow
 * (ids fit the 40-bit payload of a trace word).  Otherwise the function is
 * wide (64-bit ids); if any count would exceed wide_limit, whole nodes are
 * cut (all in-edges become CUT_EXIT dummies plus one ENTRY->v CUT_ENTRY)
 * until every count fits.  Never fails for lack of bits.
 *
 * The limits are parameters so tests can exercise truncation on small
 * graphs; the pass uses WPP_NARROW_PATH_LIMIT / WPP_WIDE_PATH_LIMIT.
 */
#ifndef WPP_INSTRUMENT_NUMBERING_H
#define WPP_INSTRUMENT_NUMBERING_H

#include "instrument/dag.h"
#include "instrument/dag_walk.h"

/* Returns 0, or -1 on allocation failure / cyclic input (a bug upstream). */
int wpp_dag_number(struct wpp_dag *d, uint64_t narrow_limit, uint64_t wide_limit);

/* Turns every REAL in-edge of w into a CUT_EXIT dummy and gives w its
 * ENTRY edge: paths through w now start at w (in: the in-edges of a walk
 * begun before any cut).  Also used by the WET bound (ir_wet.c).  0, or
 * -1 on allocation failure. */
int wpp_dag_cut_node(struct wpp_dag *d, const struct wpp_dag_adj *in, uint32_t w);

/* Overflow-checked helpers (return 1 on overflow). */
static inline int wpp_add_overflows(uint64_t a, uint64_t b, uint64_t *out)
{
	return __builtin_add_overflow(a, b, out);
}

#endif
