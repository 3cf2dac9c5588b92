/* SPDX-License-Identifier: MIT */
/*
 * cmd_cfg.c — `wpptrace cfg run.wpp FUNCTION [-o f.svg|f.dot]`: the CFG with
 * counts and the hottest paths drawn (user/report/cfg_dot.c).  Without -o,
 * or with a name not ending in .svg, the dot text is written.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "report/cfg_dot.h"
#include "cli/commands.h"
#include "common/log.h"
#include "common/out_file.h"
#include "report/report_session.h"

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcmp(s + n - k, suffix) == 0;
}

int cmd_cfg(int argc, char **argv)
{
	static const struct option opts[] = {{"pid", required_argument, NULL, 'p'},
					     {"tid", required_argument, NULL, 't'},
					     {"sort", required_argument, NULL, 's'},
					     {"output", required_argument, NULL, 'o'},
					     {NULL, 0, NULL, 0}};
	struct thread_filter filter = THREAD_FILTER_ANY;
	enum rpt_sort sort = RPT_SORT_COUNT;
	const char *output = NULL;
	struct rpt_profile p;
	struct session s;
	FILE *out = stdout;
	int c, rc;

	optind = 1;
	opterr = 0; /* bad_option says it in one line */
	while ((c = getopt_long(argc, argv, ":p:t:s:o:", opts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 's':
			if (strcmp(optarg, "count") && strcmp(optarg, "cost")) {
				wpp_err("cfg: --sort takes count or cost, not '%s'", optarg);
				return WPP_EXIT_USAGE;
			}
			sort = !strcmp(optarg, "cost") ? RPT_SORT_COST : RPT_SORT_COUNT;
			break;
		case 'p':
		case 't':
			if (parse_count_opt("cfg", c == 'p' ? "pid" : "tid", optarg,
					    c == 'p' ? &filter.pid : &filter.tid))
				return WPP_EXIT_USAGE;
			break;
		default: /* '?' or ':' */
			return bad_option("cfg", c, argv, opts);
		}
	}
	if (optind != argc - 2) {
		wpp_err("cfg: expected a .wpp file and a function name (try wpptrace help cfg)");
		return WPP_EXIT_USAGE;
	}
	if ((rc = rpt_open(&s, &p, argv[optind], &filter, "cfg")) != 0)
		return rc;
	struct out_file of = {.fd = -1};
	if (output && out_file_create(&of, output, "cfg") < 0) {
		rc = WPP_EXIT_ERROR;
	} else if (output && ends_with(output, ".svg")) {
		/* dot writes into our file (its stdout), never opening a name. */
		rc = rpt_cfg_svg(of.fd, output, &p, argv[optind + 1], sort) < 0 ? WPP_EXIT_ERROR
										: s.exit_status;
		if (rc == WPP_EXIT_ERROR)
			out_file_discard(&of);
		else if (out_file_commit(&of, "cfg") < 0)
			rc = WPP_EXIT_ERROR;
	} else if (output && !(out = out_file_stdio(&of, "cfg"))) {
		out_file_discard(&of);
		rc = WPP_EXIT_ERROR;
	} else {
		rc = rpt_cfg_dot(out, &p, argv[optind + 1], sort) < 0 ? WPP_EXIT_ERROR
								      : s.exit_status;
		if (out == stdout && (fflush(out) != 0 || ferror(out))) {
			wpp_err("cfg: writing the output failed");
			rc = WPP_EXIT_ERROR;
		}
		if (out != stdout && rc == WPP_EXIT_ERROR)
			out_file_discard(&of);
		else if (out != stdout && out_file_commit(&of, "cfg") < 0)
			rc = WPP_EXIT_ERROR;
	}
	rpt_close(&s, &p);
	return rc;
}
