/* SPDX-License-Identifier: MIT */
/*
 * loops.h — natural-loop bodies from the retreating edges the DAG found
 * (dag.h), shared by the static weights (loop depth) and the run detection
 * (runs.h).  LLVM-C has no LoopInfo, so the pass finds loops itself.
 *
 * The body of a retreating edge latch -> header is the header plus every
 * block that reaches the latch without passing the header, restricted to
 * DFS descendants of the header so that irreducible regions stay bounded.
 */
#ifndef WPP_INSTRUMENT_LOOPS_H
#define WPP_INSTRUMENT_LOOPS_H

#include <stdint.h>

#include "instrument/dag.h"

/* Predecessor lists of a CFG (compressed: the predecessors of block b are
 * src[start[b] .. start[b + 1] - 1]). */
struct wpp_preds {
	uint32_t *start;
	uint32_t *src;
};

/* Returns 0 or -1 (allocation). */
int wpp_preds_build(struct wpp_preds *p, const struct wpp_cfg *cfg);
void wpp_preds_free(struct wpp_preds *p);

/* Scratch and bookkeeping of loop walks over one function. */
struct wpp_loop_walk {
	const struct wpp_dag *d;
	const struct wpp_preds *preds;
	uint32_t *mark;		 /* per block: id of the last walk that added it */
	uint32_t *stack;	 /* nblocks entries */
	uint64_t work, work_cap; /* predecessor visits so far, and the cap */
};

/* Adds the body of the retreating edge latch -> header to the walk `id`
 * (non-zero; reuse the id to unite the bodies of several latches of one
 * header).  Each block added for the first time under this id is marked
 * and appended to body[*nbody] (body has room for every block).  Stops
 * early once the work cap is reached; returns -1 then, else 0. */
int wpp_loop_walk(struct wpp_loop_walk *w, uint32_t header, uint32_t latch, uint32_t id,
		  uint32_t *body, uint32_t *nbody);

#endif
