/* SPDX-License-Identifier: MIT */
/*
 * dag.h — the path DAG of one function, independent of LLVM.
 *
 * Input is a plain description of a CFG (blocks 0..n-1, block 0 is the entry
 * block, distinct directed edges, per-block facts the IR side found).  Output
 * is the Ball-Larus DAG: nodes 0..n-1 are the blocks, WPP_DAG_ENTRY(n) = n and
 * WPP_DAG_EXIT(n) = n + 1.  Every CFG edge is represented by exactly one DAG
 * edge: itself (REAL) or, when the edge must end a path, a dummy u->EXIT
 * (the v-side of the cut is the single ENTRY->v edge of the target).
 *
 * Why cuts exist (see docs/instrumentation.md):
 *   - an edge into a block that starts with a call (the path so far must be
 *     in the trace before the callee's paths),
 *   - a retreating edge of a DFS from the entry (loops, also irreducible)
 *     that lies on a cycle no cut of another kind breaks,
 *   - an edge whose source terminator (indirectbr/callbr) or target
 *     (indirect target, landing pad) cannot carry code on the edge,
 *   - truncation when the number of paths would not fit (numbering.h).
 *
 * This module only builds the graph; numbering.h assigns Ball-Larus values,
 * placement.h chooses where increments go.
 */
#ifndef WPP_INSTRUMENT_DAG_H
#define WPP_INSTRUMENT_DAG_H

#include <stddef.h>
#include <stdint.h>

#define WPP_DAG_ENTRY(n) ((uint32_t)(n))
#define WPP_DAG_EXIT(n)	 ((uint32_t)(n) + 1u)
#define WPP_NONE	 UINT32_MAX

/* What a block's terminator does about leaving the function. */
enum wpp_cfg_exit {
	WPP_CFG_EXIT_NONE = 0,
	WPP_CFG_EXIT_RETURN,   /* ret: RETURN edge, recorded */
	WPP_CFG_EXIT_NORETURN, /* unreachable: NORETURN edge, nothing recorded */
	WPP_CFG_EXIT_RESUME,   /* resume (unwinding on): NORETURN edge, recorded */
};

/* Per-block facts found by the IR side. */
enum wpp_cfg_block_flags {
	WPP_CFGB_CALL_HEAD = 1u << 0,	 /* first real instruction is a path-ending call */
	WPP_CFGB_INDIRECT_SRC = 1u << 1, /* terminator is indirectbr/callbr: its out-edges
					  * cannot carry code */
	WPP_CFGB_PINNED = 1u << 2,	 /* in-edges cannot carry code (indirect target,
					  * landing pad) */
};

struct wpp_cfg {
	uint32_t nblocks; /* >= 1; block 0 is the entry block */
	uint32_t nedges;  /* distinct (src,dst) pairs */
	const uint32_t *edge_src;
	const uint32_t *edge_dst;
	const uint8_t *block_flags; /* enum wpp_cfg_block_flags, per block */
	const uint8_t *block_exit;  /* enum wpp_cfg_exit, per block */
};

struct wpp_dag_edge {
	uint32_t src, dst;
	uint32_t kind; /* enum wpp_edge_kind (meta_format.h) */
	uint32_t cfg_src, cfg_dst;
	uint64_t val;	 /* Ball-Larus value (numbering.h) */
	uint64_t inc;	 /* increment placed on the edge (placement.h), mod 2^64 */
	uint8_t in_tree; /* on the spanning tree: no code for it (placement.h) */
};

struct wpp_dag {
	uint32_t nblocks;
	uint32_t nedges, cap;
	struct wpp_dag_edge *edges;
	/* Per CFG edge (same index as in struct wpp_cfg): the DAG edge standing
	 * for it — the edge itself when REAL, else the u->EXIT dummy. */
	uint32_t *cfg_edge_dag;
	uint8_t *cfg_edge_retreating; /* per CFG edge: retreating in the DFS */
	/* per CFG edge: retreating and on a cycle no other cut breaks, so cut
	 * as a back edge (a retreating edge of a loop that calls is REAL) */
	uint8_t *cfg_edge_back;
	/* Per block: the ENTRY->b edge or WPP_NONE. */
	uint32_t *entry_edge;
	/* Per block: its RETURN/NORETURN edge, or the shared u->EXIT edge of an
	 * indirect source, or WPP_NONE. */
	uint32_t *exit_edge;
	/* Per block: every CFG in-edge is a cut (or it has none and is the entry),
	 * so the path register is (re)started at the start of the block. */
	uint8_t *restart_at_start;
	uint8_t *loop_header; /* target of a retreating edge */
	/* DFS numbering (pre/post order) used by the loop-depth heuristic. */
	uint32_t *dfs_pre, *dfs_post;
	/* Filled by numbering.h: */
	uint64_t npaths;
	int wide;      /* npaths >= narrow limit: 64-bit path ids */
	int truncated; /* truncation cuts were added */
};

/* Builds the DAG (no values yet).  Returns 0, or -1 on allocation failure or
 * malformed input (edge endpoint out of range). */
int wpp_dag_build(struct wpp_dag *d, const struct wpp_cfg *cfg);
void wpp_dag_free(struct wpp_dag *d);

/* Appends an edge; returns its index or WPP_NONE on allocation failure. */
uint32_t wpp_dag_add_edge(struct wpp_dag *d, uint32_t src, uint32_t dst, uint32_t kind,
			  uint32_t cfg_src, uint32_t cfg_dst);

/* Edge indices ordered as meta_format.h wants them: by source node, then by
 * val (call after numbering).  Returns a malloc'ed array of d->nedges. */
uint32_t *wpp_dag_meta_order(const struct wpp_dag *d);

#endif
