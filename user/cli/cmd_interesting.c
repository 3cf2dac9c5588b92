/* SPDX-License-Identifier: MIT */
/*
 * cmd_interesting.c — `wpptrace interesting run.wpp... [--top N]
 * [--min-count C] [-o FILE]`: the paths the recordings executed, per
 * function (both limits: the N hottest of those run at least C times),
 * as an interesting-path set (wpp/interesting.h;
 * user/report/interesting_set.c), the input of `wppcc
 * --wpp-interesting=FILE` (preferential path profiling).  A summary on
 * stderr says how many functions and paths it holds out of how many ran.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "report/interesting_set.h"
#include "common/log.h"
#include "common/out_file.h"
#include "report/report_session.h"

/* rpt_merge_inputs' add. */
static int add_profile(void *ctx, const struct rpt_profile *p)
{
	return interesting_set_add((struct interesting_set *)ctx, p);
}

int cmd_interesting(int argc, char **argv)
{
	static const struct option opts[] = {{"pid", required_argument, NULL, 'p'},
					     {"tid", required_argument, NULL, 't'},
					     {"top", required_argument, NULL, 'n'},
					     {"min-count", required_argument, NULL, 'm'},
					     {"output", required_argument, NULL, 'o'},
					     {"quiet", no_argument, NULL, 'q'},
					     {NULL, 0, NULL, 0}};
	struct thread_filter filter = THREAD_FILTER_ANY;
	struct interesting_select sel = {0, 1};
	const char *output = NULL;
	struct interesting_stats st;
	struct out_file of = {.fd = -1};
	struct interesting_set *set;
	FILE *out = stdout;
	int c, rc, quiet = 0, status = 0;
	long v;

	optind = 1;
	opterr = 0; /* bad_option says it in one line */
	while ((c = getopt_long(argc, argv, ":p:t:o:q", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'n':
		case 'm':
			if (parse_count_opt("interesting", c == 'n' ? "top" : "min-count", optarg,
					    &v))
				return WPP_EXIT_USAGE;
			if (c == 'n')
				sel.top = (uint64_t)v;
			else
				sel.min_count = v > 0 ? (uint64_t)v : 1;
			if (c == 'n' && !v) {
				wpp_err("interesting: --top needs a number above 0");
				return WPP_EXIT_USAGE;
			}
			break;
		case 'p':
		case 't':
			if (parse_count_opt("interesting", c == 'p' ? "pid" : "tid", optarg,
					    c == 'p' ? &filter.pid : &filter.tid))
				return WPP_EXIT_USAGE;
			break;
		default: /* '?' or ':' */
			return bad_option("interesting", c, argv, opts);
		}
	}
	if (optind >= argc) {
		wpp_err("interesting: expected one or more .wpp files (try wpptrace help "
			"interesting)");
		return WPP_EXIT_USAGE;
	}
	if (!(set = interesting_set_new())) {
		wpp_err("interesting: out of memory");
		return WPP_EXIT_ERROR;
	}
	if ((rc = rpt_merge_inputs(argv + optind, argc - optind, &filter, "interesting",
				   add_profile, set, &status)) != 0) {
		interesting_set_free(set);
		return rc;
	}
	if (output && (out_file_create(&of, output, "interesting") < 0 ||
		       !(out = out_file_stdio(&of, "interesting")))) {
		out_file_discard(&of);
		interesting_set_free(set);
		return WPP_EXIT_ERROR;
	}
	rc = status;
	if (interesting_set_write(set, &sel, out,
				  argc - optind == 1 ? argv[optind] : "several recordings",
				  &st) < 0 ||
	    fflush(out) != 0 || ferror(out)) {
		wpp_err("interesting: writing the set failed");
		rc = WPP_EXIT_ERROR;
	}
	if (output && rc == WPP_EXIT_ERROR)
		out_file_discard(&of);
	else if (output && out_file_commit(&of, "interesting") < 0)
		rc = WPP_EXIT_ERROR;
	if (rc != WPP_EXIT_ERROR && st.conflicting)
		wpp_warn("interesting: %" PRIu64 " functions left out: one stable id came with "
			 "two different DAGs",
			 st.conflicting);
	if (rc != WPP_EXIT_ERROR && !quiet)
		wpp_info("interesting: %" PRIu64 " functions, %" PRIu64 " of %" PRIu64
			 " executed paths%s%s",
			 st.functions, st.paths, st.executed, output ? " -> " : "",
			 output ? output : "");
	interesting_set_free(set);
	return rc;
}
