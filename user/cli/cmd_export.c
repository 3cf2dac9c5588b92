/* SPDX-License-Identifier: MIT */
/*
 * cmd_export.c — `wpptrace export run.wpp --format pprof -o run.pb.gz`
 * (user/report/pprof_export.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/log.h"
#include "report/pprof_export.h"
#include "report/report_session.h"

int cmd_export(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"format", required_argument, NULL, 'f'}, {"pid", required_argument, NULL, 'p'},
	    {"tid", required_argument, NULL, 't'},    {"output", required_argument, NULL, 'o'},
	    {"cost", required_argument, NULL, 'c'},   {NULL, 0, NULL, 0}};
	struct thread_filter filter = THREAD_FILTER_ANY;
	const char *output = NULL, *format = NULL;
	const char *cost =
	    NULL; /* --cost COUNTER: the second sample value (default: IR instructions) */
	char cost_line[512];
	struct rpt_profile p;
	struct session s;
	int c, rc;

	optind = 1;
	opterr = 0; /* bad_option says it in one line */
	while ((c = getopt_long(argc, argv, ":f:p:t:o:c:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			format = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'c':
			cost = optarg;
			break;
		case 'p':
		case 't':
			if (parse_count_opt("export", c == 'p' ? "pid" : "tid", optarg,
					    c == 'p' ? &filter.pid : &filter.tid))
				return WPP_EXIT_USAGE;
			break;
		default: /* '?' or ':' */
			return bad_option("export", c, argv, opts);
		}
	}
	if (!format || strcmp(format, "pprof") != 0) {
		wpp_err("export: --format pprof is the one export format");
		return WPP_EXIT_USAGE;
	}
	if (!output || optind != argc - 1) {
		wpp_err("export: expected one .wpp file and -o FILE (try wpptrace help export)");
		return WPP_EXIT_USAGE;
	}
	if ((rc = rpt_open(&s, &p, argv[optind], &filter, "export")) != 0)
		return rc;
	if ((rc = rpt_apply_counter(&s, &p, cost, &filter, "export", cost_line,
				    sizeof(cost_line))) != 0) {
		rpt_close(&s, &p);
		return rc;
	}
	rc = rpt_export_pprof(output, &p, s.trace) < 0 ? WPP_EXIT_ERROR : s.exit_status;
	rpt_close(&s, &p);
	return rc;
}
