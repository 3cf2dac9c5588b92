/* SPDX-License-Identifier: MIT */
/*
 * cmd_edges.c — `wpptrace edges run.wpp... [-o FILE]`: the recordings' edge
 * profile, summed (wpp/edge_profile.h; user/report/edge_profile.c), the
 * input of `wppcc --wpp-profile=FILE`.  A summary on stderr says how many
 * functions and edges it holds, and how many path-register increments the
 * recorded builds executed (what profile-guided placement tries to lower).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "report/edge_profile.h"
#include "common/log.h"
#include "common/out_file.h"
#include "report/report_session.h"

/* rpt_merge_inputs' add. */
static int add_profile(void *ctx, const struct rpt_profile *p)
{
	return edge_profile_add((struct edge_profile *)ctx, p);
}

int cmd_edges(int argc, char **argv)
{
	static const struct option opts[] = {{"pid", required_argument, NULL, 'p'},
					     {"tid", required_argument, NULL, 't'},
					     {"output", required_argument, NULL, 'o'},
					     {"quiet", no_argument, NULL, 'q'},
					     {NULL, 0, NULL, 0}};
	struct thread_filter filter = THREAD_FILTER_ANY;
	const char *output = NULL;
	struct edge_profile_stats st;
	struct out_file of = {.fd = -1};
	struct edge_profile *ep;
	FILE *out = stdout;
	int c, rc, quiet = 0, status = 0;

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
		case 'p':
		case 't':
			if (parse_count_opt("edges", c == 'p' ? "pid" : "tid", optarg,
					    c == 'p' ? &filter.pid : &filter.tid))
				return WPP_EXIT_USAGE;
			break;
		default: /* '?' or ':' */
			return bad_option("edges", c, argv, opts);
		}
	}
	if (optind >= argc) {
		wpp_err("edges: expected one or more .wpp files (try wpptrace help edges)");
		return WPP_EXIT_USAGE;
	}
	if (!(ep = edge_profile_new())) {
		wpp_err("edges: out of memory");
		return WPP_EXIT_ERROR;
	}
	if ((rc = rpt_merge_inputs(argv + optind, argc - optind, &filter, "edges", add_profile, ep,
				   &status)) != 0) {
		edge_profile_free(ep);
		return rc;
	}
	if (output &&
	    (out_file_create(&of, output, "edges") < 0 || !(out = out_file_stdio(&of, "edges")))) {
		out_file_discard(&of);
		edge_profile_free(ep);
		return WPP_EXIT_ERROR;
	}
	rc = status;
	if (edge_profile_write(ep, out, argc - optind == 1 ? argv[optind] : "several recordings",
			       &st) < 0 ||
	    fflush(out) != 0 || ferror(out)) {
		wpp_err("edges: writing the profile failed");
		rc = WPP_EXIT_ERROR;
	}
	if (output && rc == WPP_EXIT_ERROR)
		out_file_discard(&of);
	else if (output && out_file_commit(&of, "edges") < 0)
		rc = WPP_EXIT_ERROR;
	if (rc != WPP_EXIT_ERROR && st.conflicting)
		wpp_warn("edges: %" PRIu64 " functions left out: one stable id came with two "
			 "different DAGs",
			 st.conflicting);
	if (rc != WPP_EXIT_ERROR && !quiet)
		wpp_info("edges: %" PRIu64 " functions, %" PRIu64 " edges, %" PRIu64
			 " path executions, %" PRIu64 " increments executed%s%s",
			 st.functions, st.edges, st.path_executions, st.increments,
			 output ? " -> " : "", output ? output : "");
	edge_profile_free(ep);
	return rc;
}
