/* SPDX-License-Identifier: MIT */
/* paths_table.c — the path and function tables of `paths` (see paths_table.h). */
#include "cli/paths_table.h"

#include <inttypes.h>

#include "common/json_out.h"
#include "report/table_fmt.h"

/* Short kind names so the text table fits 100 columns (docs/cli.md lists them). */
static const char *short_start(const struct rpt_path *r)
{
	static const char *const names[] = {"entry", "loop", "call", "cut"};
	return names[r->start];
}

static const char *short_end(const struct rpt_path *r)
{
	static const char *const names[] = {"ret", "loop", "call", "cut", "noret"};
	return names[r->end];
}

void paths_table_text(FILE *out, const struct paths_table *t)
{
	char name[64], lines[32], kinds[16];

	/* 9+1+5+1+22+1+11+1+4+1+6+1+12+1+11+1+11 = 99 columns at most */
	fprintf(out, "%9s %5s %-22s %11s %4s %6s %12s %-11s %s\n", "count", "%", "function", "path",
		"blks", "insns", "count*insns", "lines", "start>end");
	for (size_t i = 0; i < t->shown; i++) {
		const struct rpt_row *row = &t->paths[i];
		const struct rpt_path *r = row->path;
		fmt_fit_mid(name, 22, r->fn->name);
		if (r->line_min)
			snprintf(lines, sizeof(lines), "%" PRIu32 "-%" PRIu32, r->line_min,
				 r->line_max);
		else
			snprintf(lines, sizeof(lines), "?");
		if (r->is_block)
			snprintf(kinds, sizeof(kinds), "(block)");
		else
			snprintf(kinds, sizeof(kinds), "%s>%s", short_start(r), short_end(r));
		fprintf(out,
			"%9" PRIu64 " %5.1f %-22s %s%10" PRIu64 " %4" PRIu32 " %6" PRIu64
			" %12" PRIu64 " %-11s %s\n",
			row->count,
			t->share_of ? 100.0 * (double)row->count / (double)t->share_of : 0.0, name,
			r->is_block ? "b" : " ", r->id, r->nblocks, r->insns, row->cost, lines,
			kinds);
	}
	if (t->shown < t->npaths)
		fprintf(out, "... %zu more paths (use --top)\n", t->npaths - t->shown);

	fprintf(out, "\n%10s %8s %13s  %s\n", "count", "distinct", "dyn insns",
		"function (definition)");
	for (size_t i = 0; i < t->nfns; i++) {
		const struct wpp_fn *fn = t->fns[i].fn;
		char fname[41], file[31];
		/* Cut names in the middle and files from the left: a file's end
		 * (its base name) is what identifies it. */
		fmt_fit_mid(fname, 40, fn->name);
		fmt_fit_left(file, 30, fn->file[0] ? fn->file : "?");
		fprintf(out, "%10" PRIu64 " %8" PRIu64 " %13" PRIu64 "  %s (%s:%" PRIu32 ")\n",
			t->fns[i].count, t->fns[i].distinct, t->fns[i].cost, fname, file, fn->line);
	}
}

static void table_json(struct json_out *j, const struct paths_table *t)
{
	char id[24];

	json_array_lines(j, "paths", ",", "\n");
	for (size_t i = 0; i < t->shown; i++) {
		const struct rpt_row *row = &t->paths[i];
		const struct rpt_path *r = row->path;
		json_object(j, NULL);
		json_string(j, "function", r->fn->name);
		snprintf(id, sizeof(id), "%016" PRIx64, r->fn->stable_id);
		json_string(j, "stable_id", id);
		json_u64(j, r->is_block ? "block" : "path", r->id);
		json_u64(j, "count", row->count);
		json_u64(j, "blocks", r->nblocks);
		json_u64(j, "insns", r->insns);
		json_u64(j, "count_insns", row->cost);
		json_u64(j, "line_min", r->line_min);
		json_u64(j, "line_max", r->line_max);
		if (!r->is_block) {
			json_string(j, "start", wpp_path_start_name(r->start));
			json_string(j, "end", wpp_path_end_name(r->end));
		}
		json_close(j);
	}
	json_raw(j, "\n");
	json_close(j);
	json_array_lines(j, "functions", ",", "\n");
	for (size_t i = 0; i < t->nfns; i++) {
		const struct wpp_fn *fn = t->fns[i].fn;
		json_object(j, NULL);
		json_string(j, "function", fn->name);
		json_string(j, "file", fn->file);
		json_u64(j, "line", fn->line);
		json_u64(j, "count", t->fns[i].count);
		json_u64(j, "distinct", t->fns[i].distinct);
		json_u64(j, "dyn_insns", t->fns[i].cost);
		json_close(j);
	}
	json_raw(j, "\n");
	json_close(j);
}

void paths_table_json(FILE *out, const char *file, const struct paths_table *t,
		      void (*totals)(struct json_out *j, const void *ctx), const void *ctx)
{
	struct json_out j;

	json_init(&j, out, 0);
	json_object(&j, NULL);
	json_string(&j, "file", file);
	table_json(&j, t);
	json_object(&j, "totals");
	totals(&j, ctx);
	json_close(&j);
	json_close(&j);
	json_raw(&j, "\n");
}
