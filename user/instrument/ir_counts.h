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
 * with more paths than WPP_COUNT_ARRAY_MAX_PATHS (or whose range would take
 * the TU past WPP_COUNT_TU_MAX_SLOTS) counts in the runtime's
 * per-thread hash: an inline probe of the path's home slot (another
 * always_inline helper) adds to a hit without a call, anything else calls
 * __wpp_count_hash through a GOT stub.  The slot ranges are assigned in function order as the
 * functions are instrumented and emitted with the descriptor at the end.
 *
 * A hashed function first tries its path cache (trace_abi.h, "A hashed
 * function's path cache"): N keys then N counts in the TU's array, the
 * pair reached by a multiply and a shift of the key (id + 1: such a
 * function's register starts one above the path id); a hit is a compare
 * and one add, as in an array function, and a miss calls
 * __wpp_count_cache_miss (GOT stub, preserve_most), which claims the pair
 * or counts in the hash.  A cache costs 2 * WPP_COUNT_CACHE_PAIRS counters
 * of the TU's budget (none left: the plain hash probe).  A PPP function's
 * residual paths count in a cache of its own after its interval (sized to
 * its paths, WPP_COUNT_CACHE_PAIRS at most).
 *
 * PPP mode (trace_abi.h, "Preferential path counting") adds functions
 * whose range is indexed by their PPP id: a path end checks the PPP id
 * against the interval and the slot table (a constant global per
 * function), counts a hit with one add and sends anything else to the
 * hash by Ball-Larus id (a third always_inline helper); the descriptor
 * then carries the slot tables.
 */
#ifndef WPP_INSTRUMENT_IR_COUNTS_H
#define WPP_INSTRUMENT_IR_COUNTS_H

#include <llvm-c/Core.h>
#include <stdint.h>

#include "instrument/ir_probes.h"

struct wpp_counts {
	struct wpp_probes *p;
	LLVMValueRef tls;  /* internal thread_local ptr: this thread's array */
	LLVMValueRef desc; /* struct wpp_count_desc, initialized at the end */
	LLVMValueRef base_helper, alloc, hash, probe_helper, self;
	LLVMValueRef ppp_helper;	       /* PPP mode only */
	LLVMValueRef cache_helper, cache_miss; /* built on the first cache */
	LLVMTypeRef base_fn, alloc_fn, hash_fn, ppp_fn, cache_fn, miss_fn;
	uint64_t *first;	  /* per local index: first slot; [n] = total */
	LLVMValueRef *ppp_tables; /* per local index: slot table or NULL */
	uint8_t *cached;	  /* per local index: its range is a path cache */
	uint32_t nfirst, cap, nppp, ncached;
	uint64_t max_array_paths; /* more paths than this: the hash */
	uint32_t cache_pairs;	  /* per cached function; 0: no caches */
};

/* ppp: the unit is built with -fwpp-mode=ppp. */
void wpp_counts_init(struct wpp_counts *k, struct wpp_probes *p, int ppp);
/* The most paths a function may have and still count in an array:
 * WPP_COUNT_ARRAY_MAX_PATHS, or the environment's WPP_COUNT_ARRAY_MAX_PATHS=N
 * for measurements (0: every function counts through the hash). */
uint64_t wpp_counts_array_limit(void);
void wpp_counts_free(struct wpp_counts *k);

/* Would the next function, with npaths paths, count through the hash:
 * more than k->max_array_paths paths (wpp_counts_array_limit()), or a
 * range that would take the TU's array past WPP_COUNT_TU_MAX_SLOTS? */
int wpp_counts_would_hash(const struct wpp_counts *k, uint64_t npaths);
/* The next function (local index k->nfirst) has npaths paths: its first
 * slot, or UINT64_MAX when it counts through the hash
 * (wpp_counts_would_hash). */
uint64_t wpp_counts_add_function(struct wpp_counts *k, uint64_t npaths);
/* Pairs of a path cache: WPP_COUNT_CACHE_PAIRS, or the environment's
 * WPP_COUNT_CACHE_PAIRS=N (a power of two up to
 * WPP_COUNT_CACHE_MAX_PAIRS; 0: no caches) for measurements. */
uint32_t wpp_counts_cache_limit(void);
/* The next function counts through the hash with a path cache in front:
 * the cache's first slot (its keys; the counts follow) and in *log2 the
 * log2 of its pairs, or UINT64_MAX when caches are off or the TU has no
 * room left (nothing added then: add it as a hashed function). */
uint64_t wpp_counts_add_cached_function(struct wpp_counts *k, unsigned *log2);
/* The log2 of the pairs the next cached function would get (0: none):
 * what PPP is weighed against (ppp_cost.h). */
unsigned wpp_counts_cache_log2(const struct wpp_counts *k);
/* The next function counts preferentially (ppp_plan.h): interval slots,
 * and its slot table slot_bl[interval] (returned in *table), then a path
 * cache for its residual paths (of npaths paths at most) at *keys, of
 * 2^*log2 pairs (*log2 0: none, the residual paths probe the hash).  Its
 * first slot. */
uint64_t wpp_counts_add_ppp_function(struct wpp_counts *k, uint64_t interval,
				     const uint64_t *slot_bl, LLVMValueRef *table, uint64_t npaths,
				     uint64_t *keys, unsigned *log2);
/* The next function counts nfront counters in the array and up to nkeys
 * more through the hash (a split TPP plan, ir_tpp.h; a PPP function's
 * interval and its residual paths): nfront slots, then
 * a path cache for the hashed ones at *keys, of 2^*log2 pairs (*log2 0:
 * none, they probe the hash).  Its first slot. */
uint64_t wpp_counts_add_split_function(struct wpp_counts *k, uint64_t nfront, uint64_t nkeys,
				       uint64_t *keys, unsigned *log2);

/* In the function's entry: this thread's array of the TU (allocated on the
 * thread's first use). */
LLVMValueRef wpp_emit_count_base(struct wpp_counts *k, LLVMBuilderRef b);
/* A path end: base[first + id] += 1. */
void wpp_emit_count_array(struct wpp_counts *k, LLVMBuilderRef b, LLVMValueRef base, uint64_t first,
			  LLVMValueRef id);
/* base[first + id] += n (a register's count added to memory). */
void wpp_emit_count_array_add(struct wpp_counts *k, LLVMBuilderRef b, LLVMValueRef base,
			      uint64_t first, LLVMValueRef id, LLVMValueRef n);
/* A path end of a hashed function. */
void wpp_emit_count_hash(struct wpp_counts *k, LLVMBuilderRef b, LLVMValueRef fidw,
			 LLVMValueRef id);
/* A path end of a hashed function with a path cache at slot keys
 * (wpp_counts_add_cached_function): key is the path id + 1; a miss loads
 * the fid word from fid_slot (wpp_fid_slot_global). */
void wpp_emit_count_cached(struct wpp_counts *k, LLVMBuilderRef b, LLVMValueRef base, uint64_t keys,
			   unsigned log2, LLVMValueRef fid_slot, LLVMValueRef key);
/* A path end of a preferentially numbered function: base[first + ppp] += 1
 * when table[ppp] is bl (ppp below interval), else bl into its path cache
 * (keys, log2: wpp_counts_add_ppp_function) or, with none, the hash under
 * the fid word held in fid_slot. */
void wpp_emit_count_ppp(struct wpp_counts *k, LLVMBuilderRef b, LLVMValueRef base, uint64_t first,
			LLVMValueRef table, uint64_t interval, uint64_t keys, unsigned log2,
			LLVMValueRef fid_slot, LLVMValueRef ppp, LLVMValueRef bl);

/* The descriptor's contents, once every function is instrumented
 * (nfuncs = the functions added). */
void wpp_counts_finish(struct wpp_counts *k);

#endif
