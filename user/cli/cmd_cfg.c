/* SPDX-License-Identifier: MIT */
/*
 * cmd_cfg.c — `wpptrace cfg run.wpp FUNCTION [-o f.svg|f.dot]`: the CFG with
 * counts and the hottest paths drawn (user/report/cfg_dot.c).  Without -o,
 * or with a name not ending in .svg, the dot text is written.
 */
#include <stdio.h>
#include <string.h>

#include "report/cfg_dot.h"
#include "cli/commands.h"
#include "common/log.h"
#include "common/options.h"
#include "common/out_file.h"
#include "report/report_session.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

static const char *const sorts[] = {"count", "cost", NULL}; /* enum rpt_sort */

static const struct opt_command cfg_cmd = {
    .name = "cfg",
    OPT_OPERANDS("a .wpp file and a function name", 2, 2),
    .usage = "cfg run.wpp FUNCTION [-o f.svg|f.dot] [options]",
    .about = "Blocks with source lines and counts, edges with how often they were taken,\n"
	     "the three hottest paths in red, orange and gold.  -o NAME.svg runs\n"
	     "Graphviz's dot; otherwise the dot text is written.  A recording of\n"
	     "-fwpp-mode=count code gives the same counts as a trace.\n"};

int cmd_cfg(int argc, char **argv)
{
	struct thread_filter filter = THREAD_FILTER_ANY;
	int sort_word = RPT_SORT_COUNT;
	const char *output = NULL;
	struct rpt_profile p;
	struct session s;
	FILE *out = stdout;
	int rc, first;
	struct opt table[] = {
	    OPTS_THREADS(filter),
	    OPT_WORD_('s', "sort", "which paths are the hottest: by executions or by cost",
		      &sort_word, sorts, OPT_SHOW_DEFAULT),
	    OPT_OUTPUT(&output, "NAME.svg: an SVG drawn by dot; else the dot text"),
	    OPT_END_,
	};

	if ((rc = opts_parse(&cfg_cmd, table, argc, argv, &first)) != 0)
		return rc > 0 ? WPP_EXIT_OK : WPP_EXIT_USAGE;
	enum rpt_sort sort = (enum rpt_sort)sort_word;
	if ((rc = rpt_open(&s, &p, argv[first], &filter, "cfg")) != 0)
		return rc;
	struct out_file of = {.fd = -1};
	if (output && out_file_create(&of, output, "cfg") < 0) {
		rc = WPP_EXIT_ERROR;
	} else if (output && ends_with(output, ".svg")) {
		/* dot writes into our file (its stdout), never opening a name. */
		rc = rpt_cfg_svg(of.fd, output, &p, argv[first + 1], sort) < 0 ? WPP_EXIT_ERROR
									       : s.exit_status;
		if (rc == WPP_EXIT_ERROR)
			out_file_discard(&of);
		else if (out_file_commit(&of, "cfg") < 0)
			rc = WPP_EXIT_ERROR;
	} else if (output && !(out = out_file_stdio(&of, "cfg"))) {
		out_file_discard(&of);
		rc = WPP_EXIT_ERROR;
	} else {
		rc = rpt_cfg_dot(out, &p, argv[first + 1], sort) < 0 ? WPP_EXIT_ERROR
								     : s.exit_status;
		if (out != stdout && rc == WPP_EXIT_ERROR)
			out_file_discard(&of);
		else if (out != stdout && out_file_commit(&of, "cfg") < 0)
			rc = WPP_EXIT_ERROR;
	}
	rpt_close(&s, &p);
	return rc;
}
