/* SPDX-License-Identifier: MIT */
/*
 * cmd_annotate.c — `wpptrace annotate run.wpp FUNCTION`: the function's
 * source with per-line and per-branch counts, hot paths marked
 * (user/report/annotate.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "report/annotate.h"
#include "cli/commands.h"
#include "common/log.h"
#include "report/report_session.h"

int cmd_annotate(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"format", required_argument, NULL, 'f'}, {"pid", required_argument, NULL, 'p'},
	    {"tid", required_argument, NULL, 't'},    {"sort", required_argument, NULL, 's'},
	    {"cost", required_argument, NULL, 'c'},   {NULL, 0, NULL, 0}};
	struct thread_filter filter = THREAD_FILTER_ANY;
	enum rpt_sort sort = RPT_SORT_COUNT;
	struct rpt_profile p;
	struct session s;
	const char *cost = NULL; /* --cost COUNTER (default: IR instructions) */
	char cost_line[512];
	int json = 0, c, rc;

	optind = 1;
	opterr = 0; /* bad_option says it in one line */
	while ((c = getopt_long(argc, argv, ":f:p:t:s:c:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				wpp_err("annotate: unknown format '%s' (text or json)", optarg);
				return WPP_EXIT_USAGE;
			}
			json = !strcmp(optarg, "json");
			break;
		case 's':
			if (strcmp(optarg, "count") && strcmp(optarg, "cost")) {
				wpp_err("annotate: --sort takes count or cost, not '%s'", optarg);
				return WPP_EXIT_USAGE;
			}
			sort = !strcmp(optarg, "cost") ? RPT_SORT_COST : RPT_SORT_COUNT;
			break;
		case 'c':
			cost = optarg;
			break;
		case 'p':
		case 't':
			if (parse_count_opt("annotate", c == 'p' ? "pid" : "tid", optarg,
					    c == 'p' ? &filter.pid : &filter.tid))
				return WPP_EXIT_USAGE;
			break;
		default: /* '?' or ':' */
			return bad_option("annotate", c, argv, opts);
		}
	}
	if (optind != argc - 2) {
		wpp_err("annotate: expected a .wpp file and a function name (try wpptrace help "
			"annotate)");
		return WPP_EXIT_USAGE;
	}
	if ((rc = rpt_open(&s, &p, argv[optind], &filter, "annotate")) != 0)
		return rc;
	if ((rc = rpt_apply_counter(&s, &p, cost, &filter, "annotate", cost_line,
				    sizeof(cost_line))) != 0) {
		rpt_close(&s, &p);
		return rc;
	}
	/* Estimates say so, with their sample counts and what was not attributed. */
	if (cost_line[0] && !json)
		printf("%s\n", cost_line);
	rc = rpt_annotate(stdout, &p, argv[optind + 1], json, sort) < 0 ? WPP_EXIT_ERROR
									: s.exit_status;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		wpp_err("annotate: writing the output failed");
		rc = WPP_EXIT_ERROR;
	}
	rpt_close(&s, &p);
	return rc;
}
