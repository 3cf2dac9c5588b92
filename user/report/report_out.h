/* SPDX-License-Identifier: MIT */
/*
 * report_out.h — the renderings of a profile.  Each writes one complete
 * document to out; text fits 100 columns, JSON carries every number
 * unrounded.  docs/reports.md describes the layouts.
 */
#ifndef WPP_REPORT_REPORT_OUT_H
#define WPP_REPORT_REPORT_OUT_H

#include <stdio.h>

#include "report/profile.h"

struct rpt_options {
	enum rpt_by by;
	enum rpt_sort sort;
	long top; /* rows per table; negative = all */
};

void rpt_print_text(FILE *out, const struct rpt_profile *p, const struct rpt_options *o);
void rpt_print_json(FILE *out, const struct rpt_profile *p, const struct rpt_options *o);

/* One self-contained HTML page (no external assets): top functions, hot
 * paths, processes; every table paginated in plain JS. */
void rpt_print_html(FILE *out, const struct rpt_profile *p, const struct rpt_options *o);

/* What changed from a to b: paths gone, new, hotter, colder. */
void rpt_print_diff_text(FILE *out, const struct rpt_profile *a, const struct rpt_profile *b,
			 const struct rpt_options *o);
void rpt_print_diff_json(FILE *out, const struct rpt_profile *a, const struct rpt_profile *b,
			 const struct rpt_options *o);

/* Shared pieces of the renderings. */
/* Column heading of the cost: "insns", or the counter's name (at most 8
 * characters, "~" first: sampled costs are estimates). */
const char *rpt_cost_label(const struct rpt_profile *p);
const char *rpt_by_name(enum rpt_by by);
const char *rpt_sort_name(enum rpt_sort s);
/* "loop>ret"-style short kinds of a path ("block" for blocks mode). */
const char *rpt_kinds(const struct rpt_path *r, char *buf, size_t len);
/* "t.c:4-14" (base name of the function's file, line span of the path in
 * that file; lines of inlined header code are not in it). */
const char *rpt_span(const struct rpt_path *r, char *buf, size_t len);
/* Append every file's span: "wordfreq.c:84-86 + ctype.h:209" (own file
 * first).  Wider than width (0 = no limit): "wordfreq.c:84-86 +1 file". */
struct strbuf;
void rpt_spans(const struct rpt_path *r, size_t width, struct strbuf *b);
/* Members of the object j is writing (json_out.h). */
struct json_out;
/* "function","object","file" of a function: the identity both a path
 * object and a function object start with. */
void rpt_json_fn_fields(struct json_out *j, const struct wpp_fn *fn, const char *object);
/* The members identifying a path: "function","object","file",
 * "path"|"block", ..., "spans":[{"file","line_min","line_max"}...] (own
 * file first). */
void rpt_json_path_fields(struct json_out *j, const struct rpt_path *r);
/* "totals":{count, cost, process_paths, unattributed, corrupt, gaps,
 * lost_words}: the JSON report's and the HTML page's. */
void rpt_json_totals(struct json_out *j, const struct rpt_profile *p);

#endif
