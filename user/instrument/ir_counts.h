/* SPDX-License-Identifier: MIT */
/*
 * ir_counts.h — counting mode's side of the runtime interface
 * (trace_abi.h, "Counting mode"): the TU's thread-local array pointer, its
 * wpp_count_desc, and the code of a path end that counts instead of
 * recording.
 *
 * A function whose paths fit an array range loads the thread's array once
 * at entry (wpp_count_base: an always_inline helper, so the NULL test and
 * the cold allocation call become a branch in the caller after the plugin's
 * inliner) and counts each path end with one add to memory.  A function
 * with more paths than WPP_COUNT_ARRAY_MAX_PATHS counts in the runtime's
 * per-thread hash: an inline probe of the path's home slot (another
 * always_inline helper) adds to a hit without a call, anything else calls
 * __wpp_count_hash through a GOT stub.  The slot ranges are assigned in function order as the
 * functions are instrumented and emitted with the descriptor at the end.
 */
#ifndef WPP_INSTRUMENT_IR_COUNTS_H
#define WPP_INSTRUMENT_IR_COUNTS_H

#include <llvm-c/Core.h>
#include <stdint.h>

#include "ir_probes.h"

struct wpp_counts {
	struct wpp_probes *p;
	LLVMValueRef tls;  /* internal thread_local ptr: this thread's array */
	LLVMValueRef desc; /* struct wpp_count_desc, initialized at the end */
	LLVMValueRef base_helper, alloc, hash, probe_helper, self;
	LLVMTypeRef base_fn, alloc_fn, hash_fn;
	uint64_t *first; /* per local index: first slot; [n] = total */
	uint32_t nfirst, cap;
	uint64_t max_array_paths; /* more paths than this: the hash */
};

void wpp_counts_init(struct wpp_counts *k, struct wpp_probes *p);
/* The most paths a function may have and still count in an array:
 * WPP_COUNT_ARRAY_MAX_PATHS, or the environment's WPP_COUNT_ARRAY_MAX_PATHS=N
 * for measurements (0: every function counts through the hash). */
uint64_t wpp_counts_array_limit(void);
void wpp_counts_free(struct wpp_counts *k);

/* The next function (local index k->nfirst) has npaths paths: its first
 * slot, or UINT64_MAX when it counts through the hash (more than
 * k->max_array_paths paths, wpp_counts_array_limit()). */
uint64_t wpp_counts_add_function(struct wpp_counts *k, uint64_t npaths);

/* In the function's entry: this thread's array of the TU (allocated on the
 * thread's first use). */
LLVMValueRef wpp_emit_count_base(struct wpp_counts *k, LLVMBuilderRef b);
/* A path end: base[first + id] += 1. */
void wpp_emit_count_array(struct wpp_counts *k, LLVMBuilderRef b, LLVMValueRef base, uint64_t first,
			  LLVMValueRef id);
/* A path end of a hashed function. */
void wpp_emit_count_hash(struct wpp_counts *k, LLVMBuilderRef b, LLVMValueRef fidw,
			 LLVMValueRef id);

/* The descriptor's contents, once every function is instrumented
 * (nfuncs = the functions added). */
void wpp_counts_finish(struct wpp_counts *k);

#endif
