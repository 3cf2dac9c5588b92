/* SPDX-License-Identifier: MIT */
/*
 * path_regen.h — Ball-Larus path regeneration: from a function's DAG and a
 * path id back to the sequence of basic blocks the path executed.
 *
 * Walk from ENTRY; at each node take the last out-edge whose val is <= the
 * remainder (edges are sorted by val), subtract its val, continue until EXIT.
 * An id is valid only if the walk reaches EXIT with remainder exactly 0; any
 * other id is reported as corrupt rather than guessed at.
 */
#ifndef WPP_DECODE_PATH_REGEN_H
#define WPP_DECODE_PATH_REGEN_H

#include <stdint.h>

#include "symbolizer/meta_model.h"

/* Where a path begins: the kind of its ENTRY -> v edge. */
enum wpp_path_start {
	WPP_START_ENTRY,     /* function entry */
	WPP_START_BACK_EDGE, /* after a loop back edge */
	WPP_START_CALL,	     /* resuming at a call block */
	WPP_START_CUT,	     /* after a truncation / indirect-branch cut */
};

/* Where a path ends: the kind of its u -> EXIT edge. */
enum wpp_path_end {
	WPP_END_RETURN,
	WPP_END_BACK_EDGE,
	WPP_END_CALL,
	WPP_END_CUT,
	WPP_END_NORETURN,
};

struct wpp_path {
	uint32_t nblocks;
	uint32_t *blocks; /* function-local block indices, in execution order */
	enum wpp_path_start start;
	enum wpp_path_end end;
	/* Indices into fn->edges of the path's ENTRY -> first and last -> EXIT
	 * edges: their cfg_src/cfg_dst say which back/call/cut edge it
	 * began or ended at (reports show which way the last branch went). */
	uint32_t entry_edge, exit_edge;
	/* The blocks this path instance *entered*, in execution order — the
	 * view a trace of executed blocks needs.  A path is recorded when it
	 * ends, and a path ends before a call: the call's block is entered
	 * before the callee runs, so it belongs with the path that ended at the
	 * call (END_CALL adds its edge's cfg_dst), and a path resuming at a call
	 * block (START_CALL) does not enter it again.  Aliases the blocks
	 * buffer, which needs one slot more than nblocks for the added block. */
	const uint32_t *entered;
	uint32_t nentered;
};

/*
 * Expand path id of fn into out->blocks (capacity cap; fn->nblocks + 1
 * always suffices: a DAG path visits a block at most once, and the entered
 * view may add the call block).  0 on success, -1 if the id is not a path of
 * this DAG (corrupt trace or metadata) or cap is too small.
 */
int wpp_path_expand(const struct wpp_fn *fn, uint64_t id, uint32_t *blocks, uint32_t cap,
		    struct wpp_path *out);

const char *wpp_path_start_name(enum wpp_path_start s);
const char *wpp_path_end_name(enum wpp_path_end e);

#endif
