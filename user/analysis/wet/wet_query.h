/* SPDX-License-Identifier: MIT */
/*
 * wet_query.h — the queries a WET answers (docs/wet.md, "Queries"), read
 * from its compressed label streams through stream cursors, never from a
 * decompressed copy: instances of a statement in timestamp order (a k-way
 * merge over the nodes holding it), values and addresses through tier 1,
 * the control-flow trace through the flow stream in either direction,
 * dependences of an instance, and backward and forward WET slices.
 *
 * Contract
 *   - An instance is (node, position, k): position is a statement's in the
 *     node, or WET_POS_BLOCK | block position for a block without a branch
 *     statement that something is control dependent on.
 *   - Every function returns -1 on a stream that fails to read (a damaged
 *     WET) or out of memory, never crashes; reading moves stream cursors,
 *     so one thread queries a WET at a time.
 */
#ifndef WPP_WET_QUERY_H
#define WPP_WET_QUERY_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/wet/wet_build.h"

#define WET_POS_BLOCK (UINT32_C(1) << 31)

struct wet_inst {
	uint32_t node, pos;
	uint64_t k, ts;
};

/* One instruction of one function (a line may hold several). */
struct wet_insn {
	const struct wpp_fn *fn;
	uint32_t insn;
	const struct wpp_meta_wet_stmt *stmt;
};

/* The executed instructions whose source position is FILE:LINE (file
 * matches as a whole or as a trailing path component; col 0: any), each
 * once, in (function, instruction) order, into a malloc'd array.  Their
 * count, or -1 when out of memory. */
int wet_find_insns(const struct wet_thread *t, const char *file, uint32_t line, uint32_t col,
		   struct wet_insn **out);

/* Instances of one instruction in timestamp order. */
struct wet_insn_iter {
	struct wet_thread *t;
	uint32_t nocc;
	struct wet_inst *occ; /* per node holding it: its next instance */
	uint64_t *count;      /* instances of that node */
};
int wet_insn_iter_init(struct wet_insn_iter *it, struct wet_thread *t, const struct wet_insn *in);
/* 1 with the next instance in *out, 0 at the end, -1 on error. */
int wet_insn_iter_next(struct wet_insn_iter *it, struct wet_inst *out);
void wet_insn_iter_free(struct wet_insn_iter *it);
/* The n-th instance (from 1) of the instruction: 1, 0 when it ran fewer
 * times, -1 on error. */
int wet_insn_nth(struct wet_thread *t, const struct wet_insn *in, uint64_t n, struct wet_inst *out);

enum wet_value_state { WET_V_OK, WET_V_NOT_RECORDED, WET_V_LOST };
/* The address (what = WPP_WET_REC_ADDR) or value of an instance: its
 * state, or -1 on a read error. */
int wet_inst_value(struct wet_thread *t, const struct wet_inst *i, uint8_t what, uint64_t *v);
/* The timestamp of instance k of a node into *ts.  0, or -1. */
int wet_node_ts(struct wet_thread *t, uint32_t node, uint64_t k, uint64_t *ts);
/* The node executed at timestamp ts (1..nts).  0, or -1. */
int wet_flow_at(struct wet_thread *t, uint64_t ts, uint32_t *node);
/* 1 when words were lost right after timestamp ts (a flow break). */
int wet_gap_after(const struct wet_thread *t, uint64_t ts);

struct wet_dep_ans {
	uint8_t kind;	/* enum wet_dep_kind */
	uint8_t status; /* WET_DEP_FOUND, OTHER_THREAD, or the def is NONE / UNKNOWN */
	uint16_t op;
	struct wet_inst def; /* FOUND: ts filled; OTHER_THREAD: ts only (its thread's) */
	/* OTHER_THREAD: the storing thread, its function id and the store's
	 * statement index in that function's TU (wet_build.h WET_DEF_XTHREAD) */
	uint32_t x_tid, x_fid, x_stmt;
};
enum {
	WET_DEP_FOUND = 0,
	WET_DEP_IS_NONE = 1,
	WET_DEP_IS_UNKNOWN = 2,
	WET_DEP_OTHER_THREAD = 3, /* a store of another thread, proven the last */
};

/* The dependences of instance i (data, then control), into a malloc'd
 * array: their count, or -1 on error. */
int wet_deps(struct wet_thread *t, const struct wet_inst *i, struct wet_dep_ans **out);

/* A WET slice of instance i: backward (the instances its value came from,
 * data and control, transitively) or forward (the instances it influenced,
 * found walking the flow stream forward).  At most max instances (then
 * *truncated = 1), i included, in timestamp order, malloc'd: their count,
 * or -1 on error.  *unknown counts dependences the slice could not follow
 * (an unknown def). */
int wet_slice(struct wet_thread *t, const struct wet_inst *i, int forward, size_t max,
	      struct wet_inst **out, int *truncated, uint64_t *unknown);

/* Every label stream of the WET read whole, forward, then backward and
 * compared, after wet_stream_verify: the bidirectional traversal round
 * trip on real labels.  0 with the streams and values read, or -1 with a
 * one-line reason in err. */
int wet_verify(struct wet_thread *t, uint64_t *streams, uint64_t *values, char *err, size_t errlen);

#endif
