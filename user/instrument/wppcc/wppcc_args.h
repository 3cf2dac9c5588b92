/* SPDX-License-Identifier: MIT */
/*
 * wppcc_args.h — reading a C compiler command line the way clang will, just
 * enough to decide what wppcc adds: the pass plugin (when source is
 * compiled), -gline-tables-only (when no -g option is given), the runtime
 * (when linking).  Everything else passes through untouched, in order.
 *
 * wppcc's own options (removed before clang sees the line):
 *   -fwpp-mode=paths|count|ppp|tpp|wet|blocks instrumentation mode (default
 *                             paths; ppp needs --wpp-interesting, tpp
 *                             --wpp-profile)
 *   --tpp-cold=P --tpp-loop=P TPP thresholds, percent (default 5 and 15: the
 *                             paper's TPP(5,15), its best trade-off)
 *   -fwpp-wet-values=memory|all  what wet mode records (default memory)
 *   -fwpp-static-rt           link libwpprt.a instead of libwpprt.so
 *   -fwpp-no-runs             record every loop iteration (no REPEAT words)
 *   --wpp-profile=FILE        place increments by an edge profile or recording
 *   --wpp-interesting=F[,F..] interesting paths (recordings or path lists)
 *   --wpp-stats[=FILE]        per-function path statistics (stderr or FILE)
 *   -fno-wpp                  behave exactly like plain clang
 * Each option with a value also takes it as the next argument (OPT VALUE);
 * --wpp-stats only as --wpp-stats=FILE (a next argument may be an input).
 * A missing or bad value is plan->error, one line.
 * `--help` (or `-help`) is noted and passed on: wppcc lists its own options
 * (wppcc_help.h), clang its own.
 */
#ifndef WPPCC_ARGS_H
#define WPPCC_ARGS_H

#define WPPCC_TPP_COLD_DEFAULT "5"
#define WPPCC_TPP_LOOP_DEFAULT "15"

struct wppcc_plan {
	int no_wpp;
	int help; /* --help or -help: clang's is passed on too */
	int static_rt;
	int no_runs;		 /* -fwpp-no-runs */
	int dual;		 /* plain copies behind a flag: 1 -fwpp-dual, 0 -fno-wpp-dual,
				  * unset: profile-guided paths builds only */
	const char *mode;	 /* "paths", "count", "ppp", "tpp", "wet", "blocks" */
	const char *wet_values;	 /* "memory" or "all" */
	const char *tpp_cold;	 /* --tpp-cold=P (percent, checked) */
	const char *tpp_loop;	 /* --tpp-loop=P */
	const char *profile;	 /* --wpp-profile=FILE, or NULL */
	const char *interesting; /* --wpp-interesting=FILE[,FILE...], or NULL */
	const char *stats;	 /* --wpp-stats: "-" (stderr) or FILE, or NULL */
	int compiles_source;	 /* some input is compiled from source */
	int has_input;		 /* any input file (or @response file) */
	int stops_before_link;	 /* -c -S -E -M -MM -fsyntax-only ... */
	int has_g;		 /* an option that sets the debug-info level */
	int nargs;		 /* clang's arguments, without wppcc's own */
	char **args;		 /* points into the caller's argv strings */
	const char *error;	 /* set when the command line is unusable */
};

/* Reads argv[1..argc-1].  Returns 0, or -1 with plan->error set (the only
 * errors are wppcc's own options with bad values). Allocates plan->args. */
int wppcc_plan_args(int argc, char **argv, struct wppcc_plan *plan);
void wppcc_plan_free(struct wppcc_plan *plan);

/* Does the plan link (so libwpprt must be added)? */
int wppcc_plan_links(const struct wppcc_plan *plan);

#endif
