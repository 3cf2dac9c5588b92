/* SPDX-License-Identifier: MIT */
/*
 * ir_module.c — the pass entry point: picks the functions to instrument,
 * instruments each (ir_function.h) and emits the TU's metadata and
 * registration (ir_meta.h).  Called from the C++ plugin shim.
 */
#include "instrument/wpp_pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/ir_attrs.h"
#include "instrument/ir_cfg.h"
#include "instrument/ir_dual.h"
#include "instrument/ir_function.h"
#include "instrument/ir_meta.h"
#include "instrument/ppp_plan.h"
#include "instrument/ir_wet.h"
#include "instrument/stable_hash.h"
#include "instrument/weights.h"
#include "wpp/meta_format.h"
#include "wpp/meta_wet.h"

/* The driver passes the mode in the environment: -mllvm options of
 * -fpass-plugin plugins are not reliably parsed before the plugin loads. */
static uint32_t mode_from_env(void)
{
	const char *m = getenv("WPP_MODE");
	if (m && strcmp(m, "blocks") == 0)
		return WPP_MODE_BLOCKS;
	if (m && strcmp(m, "count") == 0)
		return WPP_MODE_COUNTS;
	if (m && strcmp(m, "ppp") == 0)
		return WPP_MODE_PPP;
	if (m && strcmp(m, "tpp") == 0)
		return WPP_MODE_TPP;
	if (m && strcmp(m, "wet") == 0)
		return WPP_MODE_WET;
	if (m && *m && strcmp(m, "paths") != 0)
		fprintf(stderr, "wppcc: unknown WPP_MODE '%s', using paths\n", m);
	return WPP_MODE_PATHS;
}

/* A TPP threshold from the driver (wppcc checked it), else the default. */
static double percent_from_env(const char *name, double dflt)
{
	const char *v = getenv(name);
	char *end;
	double p = v && *v ? strtod(v, &end) : dflt;
	return v && *v && (*end || !(p >= 0 && p <= 100)) ? dflt : p;
}

/* A switch that is on unless the environment sets it to 0. */
static int env_not_zero(const char *name)
{
	const char *v = getenv(name);
	return !(v && strcmp(v, "0") == 0);
}

/* Runs (WPP_CTRL_REPEAT) are on unless the driver says WPP_RUNS=0
 * (wppcc -fwpp-no-runs). */
static int runs_from_env(void)
{
	return env_not_zero("WPP_RUNS");
}

/* Which loop nests count runs (runs.h).  The environment overrides the
 * defaults for measurements: WPP_RUN_MAX_PATHS (0 = no limit),
 * WPP_RUN_MIN_RECORDS (0 = no minimum), WPP_RUN_NESTS (enum
 * wpp_runs_nests: 0 innermost loops, 1 nests, 2 levels), WPP_RUN_CALLS
 * (0: loops with calls never count runs). */
#define RUN_MAX_PATHS_DEFAULT	0
#define RUN_MIN_RECORDS_DEFAULT 8.0
#define RUN_NESTS_DEFAULT	WPP_RUNS_NESTS
#define RUN_CALLS_DEFAULT	1

static struct wpp_runs_opts run_opts_from_env(void)
{
	struct wpp_runs_opts o = {RUN_MAX_PATHS_DEFAULT, RUN_MIN_RECORDS_DEFAULT, RUN_NESTS_DEFAULT,
				  RUN_CALLS_DEFAULT};
	const char *v = getenv("WPP_RUN_MAX_PATHS");
	if (v && *v)
		o.max_paths = (uint32_t)strtoul(v, NULL, 10);
	if ((v = getenv("WPP_RUN_MIN_RECORDS")) && *v)
		o.min_records = strtod(v, NULL);
	if ((v = getenv("WPP_RUN_NESTS")) && *v)
		o.nests = (enum wpp_runs_nests)strtoul(v, NULL, 10);
	if ((v = getenv("WPP_RUN_CALLS")) && *v)
		o.calls = strcmp(v, "0") != 0;
	return o;
}

static int has_fn_attr(LLVMValueRef fn, const char *attr)
{
	unsigned kind = LLVMGetEnumAttributeKindForName(attr, strlen(attr));
	return LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind) != NULL;
}

static int should_instrument(LLVMValueRef fn, uint32_t mode)
{
	if (mode == WPP_MODE_WET && wpp_wet_skips_function(fn))
		return 0;
	if (LLVMIsDeclaration(fn) || !LLVMGetFirstBasicBlock(fn))
		return 0;
	if (LLVMGetLinkage(fn) == LLVMAvailableExternallyLinkage)
		return 0;
	if (has_fn_attr(fn, "naked"))
		return 0;
	size_t len;
	const char *name = LLVMGetValueName2(fn, &len);
	if (len >= 5 && memcmp(name, "__wpp", 5) == 0)
		return 0; /* our own helpers, constructor and runtime */
	return wpp_ir_function_supported(fn) == 0;
}

void wpp_instrument_module(LLVMModuleRef m)
{
	uint32_t mode = mode_from_env();
	size_t nfn = 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		nfn += should_instrument(f, mode);
	if (!nfn)
		return;
	LLVMValueRef *fns = malloc(nfn * sizeof(*fns));
	if (!fns)
		return;
	nfn = 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
		if (should_instrument(f, mode))
			fns[nfn++] = f;

	/* Moving instructions between blocks is simplest with debug intrinsics
	 * as ordinary instructions; restore the module's format at the end. */
	LLVMBool new_dbg = LLVMIsNewDbgInfoFormat(m);
	if (new_dbg)
		LLVMSetIsNewDbgInfoFormat(m, 0);

	struct wpp_tu_ctx tu;
	memset(&tu, 0, sizeof(tu));
	tu.mode = mode;
	tu.source = LLVMGetSourceFileName(m, &tu.source_len);
	tu.weigh = wpp_weights_static;
	struct wpp_edge_prof profile;
	if ((tu.profile_path = getenv("WPP_EDGE_PROFILE")) && *tu.profile_path) {
		char why[256];
		if (wpp_edge_prof_load(&profile, tu.profile_path, why, sizeof(why)) == 0)
			tu.profile = &profile;
		else
			fprintf(stderr, "wppcc: profile %s: %s; placing without it\n",
				tu.profile_path, why);
		tu.profile_name = getenv("WPP_EDGE_PROFILE_NAME");
		if (!tu.profile_name || !*tu.profile_name)
			tu.profile_name = tu.profile_path;
	}
	tu.stats = wpp_ir_stats_open(tu.source, tu.source_len);
	/* For comparisons: WPP_PROFILE_LAYOUT=0 leaves codegen LLVM's branch
	 * guesses, WPP_PROFILE_RUNS=0 the static trip estimate of runs. */
	tu.profile_layout = env_not_zero("WPP_PROFILE_LAYOUT");
	tu.profile_runs = env_not_zero("WPP_PROFILE_RUNS");
	tu.runs = runs_from_env();
	tu.dual = wpp_dual_from_env();
	tu.run_opts = run_opts_from_env();
	tu.tu_hash_acc = wpp_hash_str(WPP_HASH_INIT, tu.source, tu.source_len);
	tu.tu_hash_acc = wpp_hash_u64(tu.tu_hash_acc, tu.mode);
	wpp_probes_init(&tu.probes, m);
	if (wpp_meta_mode_counts(tu.mode)) {
		wpp_counts_init(&tu.counts, &tu.probes, tu.mode == WPP_MODE_PPP);
		tu.ppp_min_paths = wpp_ppp_min_paths(tu.counts.max_array_paths);
	}
	/* WPP_WET_VALUES=all (wppcc -fwpp-wet-values=all) records every value. */
	const char *vals = getenv("WPP_WET_VALUES");
	if (tu.mode == WPP_MODE_WET &&
	    !(tu.wet = wpp_wet_tu_new(&tu.probes, vals && strcmp(vals, "all") == 0
						      ? WPP_WET_VALUES_ALL
						      : WPP_WET_VALUES_MEMORY)))
		tu.mode = WPP_MODE_PATHS; /* out of memory: record paths only */
	wpp_mb_init(&tu.meta);
	tu.tpp_cold = percent_from_env("WPP_TPP_COLD", 5);
	tu.tpp_loop = percent_from_env("WPP_TPP_LOOP", 15);
	wpp_tpp_meta_init(&tu.tpp_meta, tu.tpp_cold, tu.tpp_loop);
	if (tu.mode == WPP_MODE_TPP && !tu.profile) {
		fprintf(stderr,
			"wppcc: -fwpp-mode=tpp without a usable profile: %.*s counts "
			"every path (plain Ball-Larus)\n",
			(int)tu.source_len, tu.source);
	}
	for (size_t i = 0; i < nfn; i++)
		wpp_instrument_function(&tu, fns[i]);
	free(fns);
	if (wpp_meta_mode_counts(tu.mode)) {
		wpp_counts_finish(&tu.counts);
		wpp_counts_free(&tu.counts);
	}
	wpp_ir_drop_memory_claims(m);
	if (tu.wet && tu.nfuncs)
		wpp_wet_meta_finish(tu.wet, &tu.meta);
	if (tu.mode == WPP_MODE_TPP && tu.nfuncs)
		wpp_tpp_meta_finish(&tu.tpp_meta, &tu.meta);
	if (tu.nfuncs &&
	    wpp_ir_meta_emit_tu(&tu.probes, &tu.meta, tu.nfuncs, wpp_hash_final(tu.tu_hash_acc),
				tu.mode, tu.source, tu.source_len))
		fprintf(stderr, "wppcc: could not emit path metadata for %.*s\n",
			(int)tu.source_len, tu.source);
	if (tu.profile)
		wpp_edge_prof_free(&profile);
	wpp_ir_stats_close(tu.stats);
	wpp_mb_free(&tu.meta);
	wpp_tpp_meta_free(&tu.tpp_meta);
	wpp_wet_tu_free(tu.wet);
	wpp_probes_free(&tu.probes);
	if (new_dbg)
		LLVMSetIsNewDbgInfoFormat(m, 1);
}
