/* SPDX-License-Identifier: MIT */
/*
 * wet_cdg.h — post-dominators and control dependences of one function's
 * CFG, for the WET's control dependence edges (docs/wet.md,
 * "Dependences").
 *
 * Contract
 *   - The CFG is given as successor lists (CSR).  Blocks without
 *     successors (returns, noreturn calls, unreachable) flow to a virtual
 *     exit, numbered nblocks; so does every block from which no exit can be
 *     reached (an infinite loop), so that every block has a post-dominator
 *     and the result is defined for any graph.
 *   - wet_postdom computes immediate post-dominators (Cooper, Harvey and
 *     Kennedy's iterative algorithm on the reversed graph), O(E) per pass,
 *     a few passes in practice.
 *   - wet_control_deps computes, per block, the blocks it is control
 *     dependent on (Ferrante, Ottenstein and Warren): b depends on p when
 *     p has a successor s such that b post-dominates s (or is s) and b does
 *     not strictly post-dominate p.  Lists are sorted and without repeats.
 *   - Nothing is assumed of the input beyond its bounds: successor ids out
 *     of range are an error (-1), never an access.
 */
#ifndef WPP_WET_CDG_H
#define WPP_WET_CDG_H

#include <stdint.h>

struct wet_cfg {
	uint32_t nblocks;
	const uint32_t *succ_off; /* nblocks + 1 offsets into succ */
	const uint32_t *succ;
};

/* ipdom[b] for b < nblocks: b's immediate post-dominator, nblocks for the
 * virtual exit.  0, or -1 when out of memory or the CFG is malformed. */
int wet_postdom(const struct wet_cfg *g, uint32_t *ipdom);

struct wet_cdeps {
	uint32_t *off; /* nblocks + 1 offsets into on */
	uint32_t *on;  /* controlling blocks */
};

/* Control dependences from the CFG and its ipdom.  0, or -1 (out of memory,
 * malformed input). */
int wet_control_deps(const struct wet_cfg *g, const uint32_t *ipdom, struct wet_cdeps *out);
void wet_cdeps_free(struct wet_cdeps *cd);

#endif
