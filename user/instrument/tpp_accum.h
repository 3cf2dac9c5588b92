/* SPDX-License-Identifier: MIT */
/*
 * tpp_accum.h — which of a TPP plan's edge counters (tpp.h: the obvious
 * paths' defining edges) may count in a register instead of in memory,
 * and where those registers are added to their counters.
 *
 * An obvious path inside a loop is counted once per iteration, like any
 * path; what costs is the add to memory, a load and a store on the same
 * address every iteration.  Inside a loop that calls nothing, nothing but
 * the loop's own exit edges can leave it: no callee can longjmp, exit,
 * exec or read the counters.  So a counter whose code runs on the way
 * into a block of such a loop adds 1 to a register, and every CFG edge
 * leaving the loop adds the register to the counter in memory and clears
 * it.  The counts are exact: each increment happens inside the loop and
 * every way out passes an edge that flushes it (a process killed inside
 * the loop loses them, as it would lose a path in flight).
 *
 * A flush costs more instructions than the add to memory it replaces, so
 * a counter accumulates only where the training ran it at least twice per
 * exit of its loop (never in a function the training did not run).
 *
 * The loop of a counter is the largest natural loop (loops.h) that holds
 * its block and has no block that calls (CALL_HEAD), ends in an indirect
 * branch (INDIRECT_SRC: its edges carry no code), is opaque to the caller
 * (inline asm), or is the entry block, and no exit edge into a pinned
 * block.  Counters of edges into EXIT (returns), of indirect sources and
 * into pinned blocks are never accumulated.
 */
#ifndef WPP_INSTRUMENT_TPP_ACCUM_H
#define WPP_INSTRUMENT_TPP_ACCUM_H

#include <stdint.h>

#include "instrument/tpp.h"

struct wpp_tpp_accum {
	uint8_t *acc;	       /* per edge counter k of the plan: counts in a register */
	uint32_t *flush_start; /* per full edge g: flush[flush_start[g] .. flush_start[g + 1]) */
	uint32_t *flush;       /* edge counters whose register is added to memory there */
	uint32_t nacc;	       /* counters that accumulate */
};

/*
 * cfg and d: the function as dag.h built it (d is the DAG t was planned
 * from); opaque: per block, non-zero for a block the loops must not hold
 * (inline asm), or NULL.  Returns 0, or -1 on allocation failure (a is
 * then empty, which means: no counter accumulates).
 */
int wpp_tpp_accum_plan(struct wpp_tpp_accum *a, const struct wpp_tpp *t, const struct wpp_cfg *cfg,
		       const struct wpp_dag *d, const uint8_t *opaque);
void wpp_tpp_accum_free(struct wpp_tpp_accum *a);

#endif
