/* SPDX-License-Identifier: MIT */
/*
 * cmd_export.c — `wpptrace export run.wpp --format pprof -o run.pb.gz`
 * (user/report/pprof_export.c).
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/log.h"
#include "common/options.h"
#include "report/pprof_export.h"
#include "report/report_session.h"

static const char *const formats[] = {"pprof", NULL};

static const struct opt_command export_cmd = {
    .name = "export",
    .usage = "export run.wpp --format pprof -o run.pb.gz [options]",
    .about = "A pprof profile (profile.proto, gzip-compressed): one sample per path and\n"
	     "process, its locations the path's blocks (function, file:line), its values\n"
	     "the executions and the IR instructions executed (--cost EV: a recorded\n"
	     "counter's events instead).  A recording of -fwpp-mode=count code gives the\n"
	     "same samples as a trace.\n"};

int cmd_export(int argc, char **argv)
{
	struct thread_filter filter = THREAD_FILTER_ANY;
	const char *output = NULL;
	int format = 0;
	const char *cost =
	    NULL; /* --cost COUNTER: the second sample value (default: IR instructions) */
	char cost_line[512];
	struct rpt_profile p;
	struct session s;
	int rc, first;
	struct opt table[] = {
	    OPT_WORD_('f', "format", "the export format (needed)", &format, formats, 0),
	    OPTS_THREADS(filter),
	    OPT_OUTPUT(&output, "the file to write (needed)"),
	    OPT_COST(&cost, "EV", "the second value: a counter recorded with record -e EV"),
	    OPT_END_,
	};

	if ((rc = opts_parse(&export_cmd, table, argc, argv, &first)) != 0)
		return rc > 0 ? WPP_EXIT_OK : WPP_EXIT_USAGE;
	if (!opt_given(table, "format")) {
		wpp_err("export: --format pprof is the one export format");
		return WPP_EXIT_USAGE;
	}
	if (!output || first != argc - 1) {
		wpp_err("export: expected one .wpp file and -o FILE (try wpptrace help export)");
		return WPP_EXIT_USAGE;
	}
	if ((rc = rpt_open(&s, &p, argv[first], &filter, "export")) != 0)
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
