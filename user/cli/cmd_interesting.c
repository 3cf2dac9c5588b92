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
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "report/interesting_set.h"
#include "common/log.h"
#include "common/options.h"
#include "common/out_file.h"
#include "report/report_session.h"

/* rpt_merge_inputs' add. */
static int add_profile(void *ctx, const struct rpt_profile *p)
{
	return interesting_set_add((struct interesting_set *)ctx, p);
}

static const struct opt_command interesting_cmd = {
    .name = "interesting",
    OPT_OPERANDS("one or more .wpp files", 1, -1),
    .usage = "interesting run.wpp... [options]",
    .about = "Per function, the Ball-Larus ids of the paths the recordings executed, with\n"
	     "their counts (docs/instrumentation.md, \"Interesting paths\"): the set that\n"
	     "wppcc --wpp-interesting=FILE numbers compactly (preferential path profiling).\n"
	     "On stderr: functions, paths kept and paths executed.  A recording of\n"
	     "-fwpp-mode=count code gives the same set as a trace.\n"};

int cmd_interesting(int argc, char **argv)
{
	struct thread_filter filter = THREAD_FILTER_ANY;
	struct interesting_select sel = {0, 1};
	const char *output = NULL;
	struct interesting_stats st;
	struct out_file of = {.fd = -1};
	struct interesting_set *set;
	FILE *out = stdout;
	int first, rc, quiet = 0, status = 0;
	long top = 0, min_count = 0;
	struct opt table[] = {
	    OPT_COUNT_(0, "top", "N", "only the N hottest paths over all recordings", &top, 1,
		       LONG_MAX, 0),
	    OPT_COUNT_(0, "min-count", "C",
		       "only paths executed at least C times (with --top: the N\n"
		       "hottest of those; the file's '# kept:' line says which)",
		       &min_count, 0, LONG_MAX, 0),
	    OPTS_THREADS(filter),
	    OPT_OUTPUT(&output, "write there instead of stdout"),
	    OPT_FLAG_('q', "quiet", "no summary line", &quiet),
	    OPT_END_,
	};

	if ((rc = opts_parse(&interesting_cmd, table, argc, argv, &first)) != 0)
		return rc > 0 ? WPP_EXIT_OK : WPP_EXIT_USAGE;
	sel.top = (uint64_t)top;
	sel.min_count = min_count > 0 ? (uint64_t)min_count : 1;
	if (!(set = interesting_set_new())) {
		wpp_err("interesting: out of memory");
		return WPP_EXIT_ERROR;
	}
	if ((rc = rpt_merge_inputs(argv + first, argc - first, &filter, "interesting", add_profile,
				   set, &status)) != 0) {
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
	if (interesting_set_write(
		set, &sel, out, argc - first == 1 ? argv[first] : "several recordings", &st) < 0 ||
	    fflush(out) != 0 || ferror(out)) {
		if (out != stdout || !ferror(out)) /* stdout's: main.c says it */
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
