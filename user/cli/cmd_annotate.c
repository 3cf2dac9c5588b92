/* SPDX-License-Identifier: MIT */
/*
 * cmd_annotate.c — `wpptrace annotate run.wpp FUNCTION`: the function's
 * source with per-line and per-branch counts, hot paths marked
 * (user/report/annotate.c).
 */
#include <stdio.h>
#include <string.h>

#include "report/annotate.h"
#include "cli/commands.h"
#include "common/log.h"
#include "common/options.h"
#include "report/report_session.h"

static const char *const sorts[] = {"count", "cost", NULL}; /* enum rpt_sort */

static const struct opt_command annotate_cmd = {
    .name = "annotate",
    OPT_OPERANDS("a .wpp file and a function name", 2, 2),
    .usage = "annotate run.wpp FUNCTION [options]",
    .about = "The function's source, each line with how often it ran, each branch with\n"
	     "how often each way was taken, and the lines of the three hottest paths\n"
	     "marked A, B, C.  A recording of -fwpp-mode=count code gives the same counts\n"
	     "as a trace.\n"};

int cmd_annotate(int argc, char **argv)
{
	struct thread_filter filter = THREAD_FILTER_ANY;
	int sort = RPT_SORT_COUNT;
	struct rpt_profile p;
	struct session s;
	const char *cost = NULL; /* --cost COUNTER (default: IR instructions) */
	char cost_line[512];
	int json = 0, rc, first;
	struct opt table[] = {
	    OPT_FORMAT(&json, opt_text_json),
	    OPTS_THREADS(filter),
	    OPT_WORD_('s', "sort", "which paths are the hottest: by executions or by cost", &sort,
		      sorts, OPT_SHOW_DEFAULT),
	    OPT_COST(&cost, "EV", "hot paths by a counter recorded with record -e EV"),
	    OPT_END_,
	};

	if ((rc = opts_parse(&annotate_cmd, table, argc, argv, &first)) != 0)
		return rc > 0 ? WPP_EXIT_OK : WPP_EXIT_USAGE;
	if ((rc = rpt_open(&s, &p, argv[first], &filter, "annotate")) != 0)
		return rc;
	if ((rc = rpt_apply_counter(&s, &p, cost, &filter, "annotate", cost_line,
				    sizeof(cost_line))) != 0) {
		rpt_close(&s, &p);
		return rc;
	}
	/* Estimates say so, with their sample counts and what was not attributed. */
	if (cost_line[0] && !json)
		printf("%s\n", cost_line);
	rc = rpt_annotate(stdout, &p, argv[first + 1], json, (enum rpt_sort)sort) < 0
		 ? WPP_EXIT_ERROR
		 : s.exit_status;
	rpt_close(&s, &p);
	return rc;
}
