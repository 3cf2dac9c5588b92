/* SPDX-License-Identifier: MIT */
/*
 * ir_tpp.h — targeted path profiling in the pass (-fwpp-mode=tpp): a
 * function's plan from the training profile (tpp.h) and the code of each
 * edge of its full DAG.  ir_function.c walks the full DAG exactly as it
 * walks a count build's DAG (same sites, cuts, restarts, landing pads) and
 * asks this module for the code of each edge.
 *
 * A function's counters (one range of the TU's per-thread array, or the
 * hash under its fid word, as in counting mode) are laid out as
 *   0 .. nslots-1            the counted paths (rec ids, tpp.h)
 *   nslots                   the cold counter
 *   nslots + 1 + k           edge counter k (obvious path k's defining edge)
 *   nslots + 1 + nobvious .. the poison slots (cold paths at a recording
 *                            point; a plan with cold edges only, tpp.h)
 * so a recording holds (fid, counter) pairs; the metadata (mode 6) says how
 * they turn back into paths.  A function with too many counters for the
 * array splits them (WPP_TPP_HOW_SPLIT, meta_tpp.h): its paths go to the
 * hash, its cold counter and edge counters to an array range of 1 +
 * nobvious, so the obvious paths of a hashed function cost an add to
 * memory, not a hash probe; and its paths try a path cache after that
 * range first (as a hashed function's in counting mode, trace_abi.h),
 * keyed by their hash counter + 1, so a recording reads the same.
 */
#ifndef WPP_INSTRUMENT_IR_TPP_H
#define WPP_INSTRUMENT_IR_TPP_H

#include <llvm-c/Core.h>
#include <stdint.h>

#include "instrument/dag.h"
#include "instrument/edge_profile_read.h"
#include "instrument/ir_counts.h"
#include "instrument/tpp.h"
#include "instrument/tpp_accum.h"

struct wpp_ir_tpp {
	struct wpp_tpp plan; /* valid when active */
	int active;
	/* set by the caller before emitting */
	struct wpp_counts *counts;
	LLVMValueRef reg;   /* alloca i64: the path register */
	LLVMValueRef saved; /* alloca i64 when wpp_ir_tpp_needs_saved */
	LLVMValueRef base;  /* the thread's array (array functions) */
	LLVMValueRef fidw;  /* the fid word (hashed functions) */
	uint64_t first;	    /* first counter, or UINT64_MAX: the hash */
	/* the paths count in the hash under fidw, the cold counter and the
	 * edge counters in the array from first (WPP_TPP_HOW_SPLIT) */
	int split;
	/* a split function's path cache (wpp_counts_add_split_function):
	 * its keys' first slot and log2 of its pairs (0: none, the hash),
	 * and the fid word's global for its misses */
	uint64_t keys;
	unsigned log2;
	LLVMValueRef fid_slot;
	/* edge counters kept in registers inside loops that call nothing
	 * (tpp_accum.h), each in an alloca promoted like the register */
	struct wpp_tpp_accum accum;
	LLVMValueRef *acc_slot; /* per edge counter: its alloca, or NULL */
};

/*
 * Plans the function from f (its matching profile entry, NULL when the
 * training never ran it: every count 0).  weight: the placement weights of
 * d's edges.  0 with x->active set, or -1 on allocation failure (why is
 * printed by the caller).
 */
int wpp_ir_tpp_plan(struct wpp_ir_tpp *x, const struct wpp_cfg *cfg, const struct wpp_dag *d,
		    const struct wpp_edge_prof_fn *f, const double *weight, double cold_pct,
		    double loop_pct, char *why, size_t whylen);
void wpp_ir_tpp_free(struct wpp_ir_tpp *x);

/* How many counters the function owns (slots, cold counter, edge counters). */
uint64_t wpp_ir_tpp_ncounters(const struct wpp_ir_tpp *x);
/* Full edge e runs any code. */
int wpp_ir_tpp_has_code(const struct wpp_ir_tpp *x, uint32_t e);
/* An at_target edge whose source must save the register (COLD). */
int wpp_ir_tpp_needs_saved(const struct wpp_ir_tpp *x);

/* Array functions only (the hash is a call): which edge counters count
 * in registers (tpp_accum.h; blocks: the IR blocks of cfg, to find inline
 * asm), and their allocas, made with b in the entry block and tagged with
 * md_kind like the path register.  Without it (or with the compiler's
 * environment saying WPP_TPP_ACCUM=0, for measurements) every counter
 * counts in memory.  0, or -1 on allocation failure. */
int wpp_ir_tpp_accum_prepare(struct wpp_ir_tpp *x, LLVMBuilderRef b, const struct wpp_cfg *cfg,
			     const struct wpp_dag *d, LLVMBasicBlockRef *blocks, unsigned md_kind,
			     LLVMValueRef md);

/* Function entry, after the count base: the register starts poisoned, so
 * a path no hot edge started can never count for a valid slot. */
void wpp_ir_tpp_emit_entry(struct wpp_ir_tpp *x, LLVMBuilderRef b);
/* Full edge e's op and counter. */
void wpp_ir_tpp_emit_edge(struct wpp_ir_tpp *x, LLVMBuilderRef b, uint32_t e);
/* A landing pad: records the register the invoke prepared. */
void wpp_ir_tpp_emit_landing(struct wpp_ir_tpp *x, LLVMBuilderRef b);
/* An invoke's unwind edge e (at_target): prepared before the invoke, taken
 * back on its normal edge. */
void wpp_ir_tpp_emit_preadjust(struct wpp_ir_tpp *x, LLVMBuilderRef b, uint32_t e);
void wpp_ir_tpp_emit_undo(struct wpp_ir_tpp *x, LLVMBuilderRef b, uint32_t e);

#endif
