/* SPDX-License-Identifier: MIT */
/*
 * cmd_report.c — `wpptrace report`: path profile tables (text, JSON), the
 * HTML page, and the diff of two runs.  The work is in user/report/; this
 * file only reads the command line and opens the traces.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/log.h"
#include "common/out_file.h"
#include "report/profile.h"
#include "report/report_html.h"
#include "report/report_out.h"
#include "report/report_session.h"

enum report_format { OUT_TEXT, OUT_JSON, OUT_HTML };

/* Tables show 20 rows unless --top says otherwise; the HTML page pages through all. */
#define TOP_UNSET   (-2)
#define TOP_DEFAULT 20

struct report_args {
	struct rpt_options opt;
	struct thread_filter filter;
	enum report_format fmt;
	const char *output; /* -o, or NULL for stdout */
	const char *diff;   /* --diff B.wpp */
	const char *file;
	const char *cost; /* --cost COUNTER (default: IR instructions) */
};

static int parse_args(int argc, char **argv, struct report_args *a)
{
	static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
					     {"pid", required_argument, NULL, 'p'},
					     {"tid", required_argument, NULL, 't'},
					     {"by", required_argument, NULL, 'b'},
					     {"sort", required_argument, NULL, 's'},
					     {"top", required_argument, NULL, 'n'},
					     {"html", no_argument, NULL, 'H'},
					     {"diff", required_argument, NULL, 'd'},
					     {"output", required_argument, NULL, 'o'},
					     {"cost", required_argument, NULL, 'c'},
					     {NULL, 0, NULL, 0}};
	int c;

	*a = (struct report_args){.opt = {RPT_BY_PATH, RPT_SORT_COUNT, TOP_UNSET},
				  .filter = THREAD_FILTER_ANY};
	optind = 1;
	opterr = 0; /* bad_option says it in one line */
	while ((c = getopt_long(argc, argv, ":f:p:t:b:s:n:Hd:o:c:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "text"))
				a->fmt = OUT_TEXT;
			else if (!strcmp(optarg, "json"))
				a->fmt = OUT_JSON;
			else if (!strcmp(optarg, "html"))
				a->fmt = OUT_HTML;
			else {
				wpp_err("report: unknown format '%s' (text, json or html)", optarg);
				return -1;
			}
			break;
		case 'H':
			a->fmt = OUT_HTML;
			break;
		case 'b':
			if (!strcmp(optarg, "path"))
				a->opt.by = RPT_BY_PATH;
			else if (!strcmp(optarg, "function"))
				a->opt.by = RPT_BY_FUNCTION;
			else if (!strcmp(optarg, "process"))
				a->opt.by = RPT_BY_PROCESS;
			else {
				wpp_err("report: --by takes function, path or process, not '%s'",
					optarg);
				return -1;
			}
			break;
		case 's':
			if (!strcmp(optarg, "count") || !strcmp(optarg, "cost")) {
				a->opt.sort =
				    !strcmp(optarg, "cost") ? RPT_SORT_COST : RPT_SORT_COUNT;
				break;
			}
			wpp_err("report: --sort takes count or cost, not '%s'", optarg);
			return -1;
		case 'p':
		case 't':
		case 'n':
			if (parse_count_opt("report",
					    c == 'p'   ? "pid"
					    : c == 't' ? "tid"
						       : "top",
					    optarg,
					    c == 'p'   ? &a->filter.pid
					    : c == 't' ? &a->filter.tid
						       : &a->opt.top))
				return -1;
			break;
		case 'd':
			a->diff = optarg;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'c':
			a->cost = optarg;
			break;
		default: /* '?' or ':' */
			bad_option("report", c, argv, opts);
			return -1;
		}
	}
	if (optind != argc - 1) {
		wpp_err("report: expected one .wpp file (try wpptrace help report)");
		return -1;
	}
	if (a->fmt == OUT_HTML && !a->output) {
		wpp_err("report: --html needs -o FILE");
		return -1;
	}
	if (a->opt.top == TOP_UNSET)
		a->opt.top = a->fmt == OUT_HTML ? -1 : TOP_DEFAULT;
	a->file = argv[optind];
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct session s, sb;
	struct rpt_profile p, pb;
	struct report_args a;
	FILE *out = stdout;
	int rc;

	if (parse_args(argc, argv, &a) < 0)
		return WPP_EXIT_USAGE;
	char cost_line[512];
	if ((rc = rpt_open(&s, &p, a.file, &a.filter, "report")) != 0)
		return rc;
	if ((rc = rpt_apply_counter(&s, &p, a.cost, &a.filter, "report", cost_line,
				    sizeof(cost_line))) != 0) {
		rpt_close(&s, &p);
		return rc;
	}

	if (a.diff && (rc = rpt_open(&sb, &pb, a.diff, &a.filter, "report")) != 0) {
		rpt_close(&s, &p);
		return rc;
	}
	if (a.diff && (rc = rpt_apply_counter(&sb, &pb, a.cost, &a.filter, "report", cost_line,
					      sizeof(cost_line))) != 0) {
		rpt_close(&s, &p);
		rpt_close(&sb, &pb);
		return rc;
	}
	struct out_file of = {.fd = -1};
	if (a.output && (out_file_create(&of, a.output, "report") < 0 ||
			 !(out = out_file_stdio(&of, "report")))) {
		out_file_discard(&of);
		rc = WPP_EXIT_ERROR;
		goto done;
	}
	/* Estimates say so, with their sample counts and what was not attributed. */
	if (cost_line[0] && a.fmt == OUT_TEXT)
		fprintf(out, "%s\n", cost_line);
	if (a.diff && a.fmt == OUT_JSON)
		rpt_print_diff_json(out, &p, &pb, &a.opt);
	else if (a.diff && a.fmt == OUT_HTML)
		rpt_print_diff_html(out, &p, &pb, &a.opt);
	else if (a.diff)
		rpt_print_diff_text(out, &p, &pb, &a.opt);
	else if (a.fmt == OUT_HTML)
		rpt_print_html(out, &p, &a.opt);
	else if (a.fmt == OUT_JSON)
		rpt_print_json(out, &p, &a.opt);
	else
		rpt_print_text(out, &p, &a.opt);
	rc = s.exit_status ? s.exit_status : a.diff ? sb.exit_status : 0;
	if (out != stdout) {
		if (out_file_commit(&of, "report") < 0)
			rc = WPP_EXIT_ERROR;
	} else if (fflush(out) != 0 || ferror(out)) {
		wpp_err("report: writing the output failed");
		rc = WPP_EXIT_ERROR;
	}
done:
	if (a.diff)
		rpt_close(&sb, &pb);
	rpt_close(&s, &p);
	return rc;
}
