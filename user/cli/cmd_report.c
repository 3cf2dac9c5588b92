/* SPDX-License-Identifier: MIT */
/*
 * cmd_report.c — `wpptrace report`: path profile tables (text, JSON), the
 * HTML page, and the diff of two runs.  The work is in user/report/; this
 * file only reads the command line and opens the traces.
 */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "common/log.h"
#include "common/options.h"
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

#define STR_(x) #x
#define STR(x)	STR_(x)

static const char *const formats[] = {"text", "json", "html", NULL};
static const char *const views[] = {"path", "function", "process", NULL}; /* enum rpt_by */
static const char *const sorts[] = {"count", "cost", NULL};		  /* enum rpt_sort */

static const struct opt_command report_cmd = {
    .name = "report",
    OPT_OPERANDS("one .wpp file", 1, 1),
    .usage = "report run.wpp [options]\n"
	     "report run.wpp --html -o report.html\n"
	     "report a.wpp --diff b.wpp [--format text|json|html] [-o FILE]",
    .about = "Hot paths as the source lines they cover (branch decisions in [ ]), top\n"
	     "functions and, for system-wide traces, processes; processes of the same\n"
	     "binary are merged.  Cost = IR instructions executed.  See docs/reports.md.\n"
	     "A recording of -fwpp-mode=count code (path counts, no order) gives the same\n"
	     "report as a trace of a paths build.\n"};

static int parse_args(int argc, char **argv, struct report_args *a)
{
	int fmt = OUT_TEXT, html = 0, by = RPT_BY_PATH, sort = RPT_SORT_COUNT, first, rc;
	struct opt table[] = {
	    OPT_FORMAT(&fmt, formats),
	    OPTS_THREADS(a->filter),
	    OPT_WORD_('b', "by", "main table: one row per path, function or process", &by, views,
		      OPT_SHOW_DEFAULT),
	    OPT_WORD_('s', "sort", "by executions or by cost", &sort, sorts, OPT_SHOW_DEFAULT),
	    OPT_COST(&a->cost, "EV",
		     "cost = a counter recorded with record -e EV (docs/counters.md)"),
	    OPT_COUNT_('n', "top", "N",
		       "rows per table (default " STR(TOP_DEFAULT) "; HTML: all, paged)",
		       &a->opt.top, 0, LONG_MAX, 0),
	    OPT_FLAG_('H', "html", "one self-contained page (needs -o FILE)", &html),
	    OPT_STRING_('d', "diff", "B",
			"what changed from this run to B: paths gone, new,\n"
			"hotter, colder",
			&a->diff),
	    OPT_OUTPUT(&a->output, "write there instead of stdout"),
	    OPT_END_,
	};

	*a = (struct report_args){.opt = {RPT_BY_PATH, RPT_SORT_COUNT, TOP_UNSET},
				  .filter = THREAD_FILTER_ANY};
	if ((rc = opts_parse(&report_cmd, table, argc, argv, &first)) != 0)
		return rc;
	a->fmt = html ? OUT_HTML : (enum report_format)fmt;
	a->opt.by = (enum rpt_by)by;
	a->opt.sort = (enum rpt_sort)sort;
	if (a->fmt == OUT_HTML && !a->output) {
		wpp_err("report: --html needs -o FILE");
		return -1;
	}
	if (a->opt.top == TOP_UNSET)
		a->opt.top = a->fmt == OUT_HTML ? -1 : TOP_DEFAULT;
	a->file = argv[first];
	return 0;
}

int cmd_report(int argc, char **argv)
{
	struct session s, sb;
	struct rpt_profile p, pb;
	struct report_args a;
	FILE *out = stdout;
	int rc;

	if ((rc = parse_args(argc, argv, &a)) != 0)
		return rc > 0 ? WPP_EXIT_OK : WPP_EXIT_USAGE;
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
	}
done:
	if (a.diff)
		rpt_close(&sb, &pb);
	rpt_close(&s, &p);
	return rc;
}
