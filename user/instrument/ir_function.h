/* SPDX-License-Identifier: MIT */
/*
 * ir_function.h — instrumenting one function: CFG preparation, DAG,
 * numbering, placement, emission of the path register code (paths mode) or
 * per-block records (blocks mode), and its metadata entry.
 */
#ifndef WPP_INSTRUMENT_IR_FUNCTION_H
#define WPP_INSTRUMENT_IR_FUNCTION_H

#include <llvm-c/Core.h>
#include <stdint.h>

#include "instrument/edge_profile_read.h"
#include "instrument/ir_counts.h"
#include "instrument/ir_probes.h"
#include "instrument/ir_stats.h"
#include "instrument/meta_blob.h"
#include "instrument/runs.h"
#include "instrument/tpp_meta.h"
#include "instrument/weights.h"

struct wpp_tu_ctx {
	struct wpp_probes probes;
	struct wpp_counts counts; /* counting mode only */
	struct wpp_wet_tu *wet;	  /* wet mode only (ir_wet.h) */
	struct wpp_meta_builder meta;
	uint32_t mode;	    /* enum wpp_meta_mode */
	const char *source; /* module source file name */
	size_t source_len;
	wpp_weight_fn weigh; /* placement weighting (weights.h) */
	/* measured edge counts (wppcc --wpp-profile), or NULL */
	const struct wpp_edge_prof *profile;
	const char *profile_path;
	/* the file as --wpp-profile named it (profile_path may be the cache
	 * a recording was converted into), for the user's messages */
	const char *profile_name;
	/* what the profile steers besides placement: codegen's branch weights
	 * (ir_branch_weights.h), which loops count runs (runs.h) */
	int profile_layout, profile_runs;
	int runs;		       /* count repeated loop paths (runs.h); paths mode only */
	int dual;		       /* plain copies behind a flag (ir_dual.h); paths mode only */
	struct wpp_runs_opts run_opts; /* which loops count runs (runs.h) */
	struct wpp_ir_stats *stats;    /* interesting paths, --wpp-stats; or NULL */
	uint64_t ppp_min_paths;	       /* PPP mode: more paths than this may count
					* preferentially (ppp_plan.h) */
	/* TPP mode: --tpp-cold, --tpp-loop (percent) and the plan tables */
	double tpp_cold, tpp_loop;
	struct wpp_tpp_meta tpp_meta;
	uint32_t nfuncs;
	uint64_t tu_hash_acc;
};

/* Returns 0 when instrumented (a metadata entry was added with
 * local_index = tu->nfuncs, then nfuncs incremented), -1 when the function
 * was left alone (allocation failure: never a broken module). */
int wpp_instrument_function(struct wpp_tu_ctx *tu, LLVMValueRef fn);

#endif
