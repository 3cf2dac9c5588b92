/* SPDX-License-Identifier: MIT */
/*
 * profile.h — a whole trace reduced to path counts, the input of every
 * report (text, JSON, HTML, diff, annotate, cfg, pprof).
 *
 * Built in one pass over the decoder (no expansion per execution): one
 * entry per distinct (process image, function, path id).  Each distinct
 * path is then expanded once for its blocks and static facts.  Path ids that
 * do not expand are counted as corrupt, weighted by their executions.
 *
 * Cost is the dynamic IR instruction count: executions x the static
 * instruction count of the path (the metadata's per-block counts).  It is
 * the only cost every trace has; sampled costs can join later as another
 * value column.
 *
 * Views (rpt_rows) group the entries by path, by function or by process;
 * grouping by path or function merges processes of the same binary (the
 * same object file and build-id yield the same wpp_fn), never functions of
 * different binaries that happen to share a name.
 */
#ifndef WPP_REPORT_PROFILE_H
#define WPP_REPORT_PROFILE_H

#include <stdint.h>

#include "costs/costs.h"
#include "decode/decoder.h"
#include "decode/module_map.h"
#include "decode/trace_file.h"

struct rpt_path {
	uint32_t pid, gen;
	const struct wpp_fn *fn;
	const char *object; /* file of the ELF object holding fn */
	uint64_t id;	    /* path id, or block index when is_block */
	int is_block;
	uint64_t count;
	uint64_t cost;	  /* count x insns, or the counter events attributed to it */
	uint64_t samples; /* counter samples attributed (rpt_profile_apply_costs) */
	/* static facts (expanded once) */
	uint64_t insns; /* per execution */
	uint32_t nblocks;
	uint32_t *blocks;
	enum wpp_path_start start;
	enum wpp_path_end end;
	uint32_t entry_edge, exit_edge; /* see struct wpp_path; unused for blocks */
	/* Line span in the function's own file (lines of inlined header code
	 * are left out: rpt_spans names them per file); 0 when none. */
	uint32_t line_min, line_max;
	struct rpt_inlines *inlines; /* the profile's inline names (inline_names.h) */
};

struct rpt_image {
	uint32_t pid, gen;
	const char *exe; /* "" if the file has no PROCESS record for it */
	uint32_t nthreads;
	uint64_t count, cost, distinct;
	const struct wpp_fn *hottest; /* function with the largest cost */
};

struct rpt_profile {
	const char *file;
	struct rpt_path *paths; /* sorted by image, then function, then id */
	size_t npaths;
	struct rpt_image *images; /* sorted by (pid, gen); only images with selected threads */
	size_t nimages;
	uint64_t total_count, total_cost;
	struct wpp_decode_stats stats;
	uint64_t corrupt_paths; /* executions of ids that do not expand */
	/* What cost means: "ir_instructions" (exact), or a counter's name
	 * (sampled: an estimate, total_samples samples behind it). */
	const char *cost_unit;
	int cost_estimated;
	uint64_t total_samples;
	struct rpt_inlines *inlines; /* owned; NULL if it could not be created */
	/* With a counter cost: its samples per source line by sampled ip
	 * (cost_lines.h; owned), else NULL. */
	struct line_costs *line_costs;
	/* With a counter cost: its samples on paths and in each miss class. */
	struct cost_tally cost_tally;
	int has_cost_tally;
};

struct rpt_inlines;
struct line_costs;
struct cost_attribution;
/* Replace every path's cost by the counter events its samples stand for
 * (costs.h) and recompute the totals; unit names the counter.  Samples of
 * paths the profile does not have (other threads, corrupt ids) are left
 * out.  0, or -1 on allocation failure. */
int rpt_profile_apply_costs(struct rpt_profile *p, const struct cost_attribution *a,
			    const char *unit);

/* Threads selected by pid / tid / exec generation (negative = any).  0, or
 * -1 on allocation failure. */
int rpt_profile_build(struct rpt_profile *p, const char *file, const struct wpp_trace *t,
		      struct wpp_modules *mods, long pid, long tid, long gen);
void rpt_profile_free(struct rpt_profile *p);

enum rpt_by { RPT_BY_PATH, RPT_BY_FUNCTION, RPT_BY_PROCESS };
enum rpt_sort { RPT_SORT_COUNT, RPT_SORT_COST };

struct rpt_row {
	const struct rpt_path *path;   /* BY_PATH: the first merged entry (static facts) */
	const struct wpp_fn *fn;       /* BY_PATH, BY_FUNCTION */
	const char *object;	       /* BY_PATH, BY_FUNCTION */
	const struct rpt_image *image; /* BY_PROCESS */
	uint64_t count, cost;
	uint64_t distinct; /* paths (BY_FUNCTION, BY_PROCESS) */
	uint32_t nimages;  /* BY_PATH: processes it occurred in */
};

/* Rows of a view, sorted (descending, ties by name then id); caller frees. */
size_t rpt_rows(const struct rpt_profile *p, enum rpt_by by, enum rpt_sort sort,
		struct rpt_row **out);

/* Is position l in fn's own file (not inlined header code)?  A position
 * without a file counts as the function's. */
int rpt_in_own_file(const struct wpp_fn *fn, const struct wpp_meta_line *l);

/* Compare two functions by identity across files: name, file, stable id. */
int rpt_fn_cmp(const struct wpp_fn *a, const struct wpp_fn *b);

#endif
