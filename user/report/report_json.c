/* SPDX-License-Identifier: MIT */
/*
 * report_json.c — `wpptrace report --format json`: the tables of the text
 * report, every row with full identities and unrounded numbers.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "common/json_out.h"
#include "report/report_out.h"

static size_t shown_rows(const struct rpt_options *o, size_t n)
{
	return o->top >= 0 && (size_t)o->top < n ? (size_t)o->top : n;
}

static void json_rows(FILE *out, const struct rpt_profile *p, enum rpt_by by,
		      const struct rpt_options *o)
{
	struct rpt_row *rows;
	size_t n = rpt_rows(p, by, o->sort, &rows), shown = shown_rows(o, n);

	static const char *const plural[] = {"paths", "functions", "processes"};

	fprintf(out, "\"%s\":[", plural[by]);
	for (size_t i = 0; i < shown; i++) {
		const struct rpt_row *r = &rows[i];
		fputs(i ? ",\n{" : "\n{", out);
		switch (by) {
		case RPT_BY_PATH:
			rpt_json_path_fields(out, r->path);
			fprintf(out, ",\"processes\":%" PRIu32, r->nimages);
			break;
		case RPT_BY_FUNCTION:
			rpt_json_fn_fields(out, r->fn, r->object);
			fprintf(out,
				",\"line\":%" PRIu32 ",\"stable_id\":\"%016" PRIx64
				"\",\"paths\":%" PRIu64,
				r->fn->line, r->fn->stable_id, r->distinct);
			break;
		case RPT_BY_PROCESS:
			fprintf(out,
				"\"pid\":%" PRIu32 ",\"gen\":%" PRIu32 ",\"exe\":", r->image->pid,
				r->image->gen);
			json_str(out, r->image->exe);
			fprintf(out,
				",\"threads\":%" PRIu32 ",\"paths\":%" PRIu64
				",\"hottest_function\":",
				r->image->nthreads, r->distinct);
			if (r->image->hottest)
				json_str(out, r->image->hottest->name);
			else
				fputs("null", out);
			break;
		}
		fprintf(out, ",\"count\":%" PRIu64 ",\"cost\":%" PRIu64 "}", r->count, r->cost);
	}
	fprintf(out, "\n],\"%s_total\":%zu", plural[by], n);
	free(rows);
}

void rpt_print_json(FILE *out, const struct rpt_profile *p, const struct rpt_options *o)
{
	fputs("{\"file\":", out);
	json_str(out, p->file);
	fprintf(out, ",\"by\":\"%s\",\"sort\":\"%s\",\"cost_unit\":\"%s\",\"cost_estimated\":%s,",
		rpt_by_name(o->by), rpt_sort_name(o->sort), p->cost_unit,
		p->cost_estimated ? "true" : "false");
	if (p->has_cost_tally) {
		fputs("\"cost_samples\":", out);
		cost_tally_json(out, &p->cost_tally);
		fputc(',', out);
	}
	if (o->by == RPT_BY_PATH) {
		json_rows(out, p, RPT_BY_PATH, o);
		fputc(',', out);
	}
	if (o->by != RPT_BY_PROCESS) {
		json_rows(out, p, RPT_BY_FUNCTION, o);
		fputc(',', out);
	}
	json_rows(out, p, RPT_BY_PROCESS, o);
	fputc(',', out);
	rpt_json_totals(out, p);
	fputs("}\n", out);
}
