/* SPDX-License-Identifier: MIT */
/*
 * report_text.c — `wpptrace report` as text tables that fit 100 columns.
 * A system-wide trace gets the merged table first (processes of the same
 * binary added up), then one row per process.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "costs/cost_lines.h"
#include "report/path_text.h"
#include "report/report_out.h"
#include "report/table_fmt.h"

#define WIDTH 100

static size_t shown_rows(const struct rpt_options *o, size_t n)
{
	return o->top >= 0 && (size_t)o->top < n ? (size_t)o->top : n;
}

static void more_line(FILE *out, size_t shown, size_t n, const char *what)
{
	if (shown < n)
		fprintf(out, "... %zu more %s (--top N shows more)\n", n - shown, what);
}

/* count, share, cost, share: 8+1+6+1+8+1+6 = 31 columns */
static void numbers(FILE *out, const struct rpt_profile *p, uint64_t count, uint64_t cost)
{
	char a[FMT_NUM_LEN], b[FMT_NUM_LEN], c[FMT_NUM_LEN], d[FMT_NUM_LEN];

	fprintf(out, "%8s %6s %8s %6s", fmt_count(a, count), fmt_pct(b, count, p->total_count),
		fmt_count(c, cost), fmt_pct(d, cost, p->total_cost));
}

/* The file:lines column takes what the row leaves of the 100 columns. */
#define PATH_ROW_FIXED 74
static void path_table(FILE *out, const struct rpt_profile *p, const struct rpt_options *o)
{
	struct rpt_row *rows;
	size_t n = rpt_rows(p, RPT_BY_PATH, o->sort, &rows), shown = shown_rows(o, n);
	char name[32], fspan[WIDTH], kinds[16], id[24];

	fprintf(out, "Hot paths (by %s)\n", rpt_sort_name(o->sort));
	/* 31 + 2+20 + 1+7 + 1+11 + 1 = 74, then file:lines */
	fprintf(out, "%8s %6s %8s %6s  %-20s %7s %-11s %s\n", "execs", "%", rpt_cost_label(p), "%",
		"function", "path", "start>end", "file:lines");
	for (size_t i = 0; i < shown; i++) {
		const struct rpt_path *r = rows[i].path;
		struct strbuf text = {0}, spans = {0};
		numbers(out, p, rows[i].count, rows[i].cost);
		snprintf(id, sizeof(id), "%s%" PRIu64, r->is_block ? "b" : "#", r->id);
		rpt_spans(r, WIDTH - PATH_ROW_FIXED, &spans);
		fprintf(out, "  %-20s %7s %-11s %s\n", fmt_fit_mid(name, 20, r->fn->name), id,
			rpt_kinds(r, kinds, sizeof(kinds)),
			fmt_fit_left(fspan, WIDTH - PATH_ROW_FIXED, spans.s ? spans.s : ""));
		sb_free(&spans);
		if (p->line_costs && p->line_costs->n) {
			/* the row's counter events by line of the sampled ip */
			rpt_path_line_costs(&text, p->line_costs, r);
			if (text.len)
				sb_printf(&text, " ");
		}
		rpt_path_text(r, &text);
		fmt_wrap(out, 10, WIDTH, text.s ? text.s : "");
		sb_free(&text);
	}
	more_line(out, shown, n, "paths");
	free(rows);
}

static void function_table(FILE *out, const struct rpt_profile *p, const struct rpt_options *o)
{
	struct rpt_row *rows;
	size_t n = rpt_rows(p, RPT_BY_FUNCTION, o->sort, &rows), shown = shown_rows(o, n);
	char name[40], where[64], fwhere[32], d[FMT_NUM_LEN];

	fprintf(out, "Functions (by %s)\n", rpt_sort_name(o->sort));
	/* 31 + 1+6 + 2+36 + 1+22 = 99 */
	fprintf(out, "%8s %6s %8s %6s %6s  %-36s %s\n", "execs", "%", rpt_cost_label(p), "%",
		"paths", "function", "defined at");
	for (size_t i = 0; i < shown; i++) {
		const struct wpp_fn *fn = rows[i].fn;
		numbers(out, p, rows[i].count, rows[i].cost);
		snprintf(where, sizeof(where), "%s:%" PRIu32,
			 fn->file[0] ? fmt_basename(fn->file) : "?", fn->line);
		fprintf(out, " %6s  %-36s %s\n", fmt_count(d, rows[i].distinct),
			fmt_fit_mid(name, 36, fn->name), fmt_fit_left(fwhere, 22, where));
	}
	more_line(out, shown, n, "functions");
	free(rows);
}

static void process_table(FILE *out, const struct rpt_profile *p, const struct rpt_options *o)
{
	struct rpt_row *rows;
	size_t n = rpt_rows(p, RPT_BY_PROCESS, o->sort, &rows), shown = shown_rows(o, n);
	char exe[32], hot[24], d[FMT_NUM_LEN], pid[24];

	fprintf(out, "Processes (by %s)\n", rpt_sort_name(o->sort));
	/* 9 + 1+31 + 1+6 + 1+3 + 2+24 + 1+20 = 99 */
	fprintf(out, "%-9s %8s %6s %8s %6s %6s %3s  %-24s %s\n", "pid", "execs", "%",
		rpt_cost_label(p), "%", "paths", "thr", "program", "hottest function");
	for (size_t i = 0; i < shown; i++) {
		const struct rpt_image *im = rows[i].image;
		if (im->gen)
			snprintf(pid, sizeof(pid), "%" PRIu32 "/%" PRIu32, im->pid, im->gen);
		else
			snprintf(pid, sizeof(pid), "%" PRIu32, im->pid);
		fprintf(out, "%-9s ", pid);
		numbers(out, p, rows[i].count, rows[i].cost);
		fprintf(out, " %6s %3" PRIu32 "  %-24s %s\n", fmt_count(d, rows[i].distinct),
			im->nthreads,
			fmt_fit_left(exe, 24, im->exe[0] ? fmt_basename(im->exe) : "?"),
			im->hottest ? fmt_fit_mid(hot, 20, im->hottest->name) : "-");
	}
	more_line(out, shown, n, "processes");
	free(rows);
}

void rpt_print_text(FILE *out, const struct rpt_profile *p, const struct rpt_options *o)
{
	char a[FMT_NUM_LEN], b[FMT_NUM_LEN];
	const struct wpp_decode_stats *st = &p->stats;
	size_t nthreads = 0;

	for (size_t i = 0; i < p->nimages; i++)
		nthreads += p->images[i].nthreads;
	fprintf(out, "Report of %s: %zu process%s, %zu thread%s\n", fmt_basename(p->file),
		p->nimages, p->nimages == 1 ? "" : "es", nthreads, nthreads == 1 ? "" : "s");
	if (p->cost_estimated)
		fprintf(out,
			"%s path executions, ~%s %s (estimated from %" PRIu64
			" samples on paths)%s\n\n",
			fmt_count(a, p->total_count), fmt_count(b, p->total_cost), p->cost_unit,
			p->total_samples, p->nimages > 1 ? "; merged across processes" : "");
	else
		fprintf(out,
			"%s path executions, %s IR instructions executed (insns = execs x path "
			"length)%s\n\n",
			fmt_count(a, p->total_count), fmt_count(b, p->total_cost),
			p->nimages > 1 ? "; merged across processes" : "");
	switch (o->by) {
	case RPT_BY_PATH:
		path_table(out, p, o);
		fputc('\n', out);
		function_table(out, p, o);
		break;
	case RPT_BY_FUNCTION:
		function_table(out, p, o);
		break;
	case RPT_BY_PROCESS:
		break;
	}
	if (o->by == RPT_BY_PROCESS || p->nimages > 1) {
		if (o->by != RPT_BY_PROCESS)
			fputc('\n', out);
		process_table(out, p, o);
	}
	if (st->unattributed || st->corrupt || p->corrupt_paths || st->gaps)
		fprintf(out,
			"\nnot counted: %" PRIu64 " unattributed, %" PRIu64
			" corrupt records; %" PRIu64 " gaps (%" PRIu64 " words lost)\n",
			st->unattributed, st->corrupt + p->corrupt_paths, st->gaps, st->lost_words);
}
