/* SPDX-License-Identifier: MIT */
/*
 * cmd_edges.c — `wpptrace edges run.wpp... [-o FILE]`: the recordings' edge
 * profile, summed (wpp/edge_profile.h; user/report/edge_profile.c), the
 * input of `wppcc --wpp-profile=FILE`.  A summary on stderr says how many
 * functions and edges it holds, and how many path-register increments the
 * recorded builds executed (what profile-guided placement tries to lower).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "report/edge_profile.h"
#include "common/log.h"
#include "common/options.h"
#include "common/out_file.h"
#include "report/report_session.h"

/* rpt_merge_inputs' add. */
static int add_profile(void *ctx, const struct rpt_profile *p)
{
	return edge_profile_add((struct edge_profile *)ctx, p);
}

static const struct opt_command edges_cmd = {
    .name = "edges",
    OPT_OPERANDS("one or more .wpp files", 1, -1),
    .usage = "edges run.wpp... [options]",
    .about = "How often each edge of each function's path DAG was taken (summed over\n"
	     "the recordings given), as a text edge profile (docs/instrumentation.md,\n"
	     "\"Profile-guided placement\").  wppcc --wpp-profile=FILE places the path\n"
	     "register's increments on the edges that ran least; path ids keep their\n"
	     "meaning.  On stderr: functions, edges, path executions and the increments\n"
	     "the recorded build executed.  A recording of -fwpp-mode=count code gives\n"
	     "the same profile as a trace.\n"};

int cmd_edges(int argc, char **argv)
{
	struct thread_filter filter = THREAD_FILTER_ANY;
	const char *output = NULL;
	struct edge_profile_stats st;
	struct out_file of = {.fd = -1};
	struct edge_profile *ep;
	FILE *out = stdout;
	int first, rc, quiet = 0, status = 0;
	struct opt table[] = {
	    OPTS_THREADS(filter),
	    OPT_OUTPUT(&output, "write there instead of stdout"),
	    OPT_FLAG_('q', "quiet", "no summary line", &quiet),
	    OPT_END_,
	};

	if ((rc = opts_parse(&edges_cmd, table, argc, argv, &first)) != 0)
		return rc > 0 ? WPP_EXIT_OK : WPP_EXIT_USAGE;
	if (!(ep = edge_profile_new())) {
		wpp_err("edges: out of memory");
		return WPP_EXIT_ERROR;
	}
	if ((rc = rpt_merge_inputs(argv + first, argc - first, &filter, "edges", add_profile, ep,
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
	if (edge_profile_write(ep, out, argc - first == 1 ? argv[first] : "several recordings",
			       &st) < 0 ||
	    fflush(out) != 0 || ferror(out)) {
		if (out != stdout || !ferror(out)) /* stdout's: main.c says it */
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
