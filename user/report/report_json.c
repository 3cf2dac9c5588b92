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

static void json_rows(struct json_out *j, const struct rpt_profile *p, enum rpt_by by,
		      const struct rpt_options *o)
{
	struct rpt_row *rows;
	size_t n = rpt_rows(p, by, o->sort, &rows), shown = shown_rows(o, n);
	char key[32], id[24];

	static const char *const plural[] = {"paths", "functions", "processes"};

	json_array_lines(j, plural[by], ",", "\n");
	for (size_t i = 0; i < shown; i++) {
		const struct rpt_row *r = &rows[i];
		json_object(j, NULL);
		switch (by) {
		case RPT_BY_PATH:
			rpt_json_path_fields(j, r->path);
			json_u64(j, "processes", r->nimages);
			break;
		case RPT_BY_FUNCTION:
			rpt_json_fn_fields(j, r->fn, r->object);
			json_u64(j, "line", r->fn->line);
			snprintf(id, sizeof(id), "%016" PRIx64, r->fn->stable_id);
			json_string(j, "stable_id", id);
			json_u64(j, "paths", r->distinct);
			break;
		case RPT_BY_PROCESS:
			json_u64(j, "pid", r->image->pid);
			json_u64(j, "gen", r->image->gen);
			json_string(j, "exe", r->image->exe);
			json_u64(j, "threads", r->image->nthreads);
			json_u64(j, "paths", r->distinct);
			json_string(j, "hottest_function",
				    r->image->hottest ? r->image->hottest->name : NULL);
			break;
		}
		json_u64(j, "count", r->count);
		json_u64(j, "cost", r->cost);
		json_close(j);
	}
	json_raw(j, "\n");
	json_close(j);
	snprintf(key, sizeof(key), "%s_total", plural[by]);
	json_u64(j, key, n);
	free(rows);
}

void rpt_print_json(FILE *out, const struct rpt_profile *p, const struct rpt_options *o)
{
	struct json_out j;

	json_init(&j, out, 0);
	json_object(&j, NULL);
	json_string(&j, "file", p->file);
	json_string(&j, "by", rpt_by_name(o->by));
	json_string(&j, "sort", rpt_sort_name(o->sort));
	json_string(&j, "cost_unit", p->cost_unit);
	json_bool(&j, "cost_estimated", p->cost_estimated);
	if (p->has_cost_tally) {
		cost_tally_json(&j, "cost_samples", &p->cost_tally);
	}
	if (o->by == RPT_BY_PATH)
		json_rows(&j, p, RPT_BY_PATH, o);
	if (o->by != RPT_BY_PROCESS)
		json_rows(&j, p, RPT_BY_FUNCTION, o);
	json_rows(&j, p, RPT_BY_PROCESS, o);
	rpt_json_totals(&j, p);
	json_close(&j);
	json_raw(&j, "\n");
}
