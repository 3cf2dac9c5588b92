/* SPDX-License-Identifier: MIT */
/* report_common.c — pieces shared by the text, JSON, HTML and diff renderings. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "json_out.h"
#include "path_text.h"
#include "report_out.h"
#include "table_fmt.h"

const char *rpt_by_name(enum rpt_by by)
{
	return by == RPT_BY_FUNCTION ? "function" : by == RPT_BY_PROCESS ? "process" : "path";
}

const char *rpt_sort_name(enum rpt_sort s)
{
	return s == RPT_SORT_COST ? "cost" : "count";
}

const char *rpt_kinds(const struct rpt_path *r, char *buf, size_t len)
{
	static const char *const starts[] = {"entry", "loop", "call", "cut"};
	static const char *const ends[] = {"ret", "loop", "call", "cut", "noret"};

	if (r->is_block)
		snprintf(buf, len, "block");
	else
		snprintf(buf, len, "%s>%s", starts[r->start], ends[r->end]);
	return buf;
}

const char *rpt_span(const struct rpt_path *r, char *buf, size_t len)
{
	const char *file = r->fn->file[0] ? fmt_basename(r->fn->file) : "?";

	if (!r->line_min)
		snprintf(buf, len, "%s", file);
	else if (r->line_min == r->line_max)
		snprintf(buf, len, "%s:%" PRIu32, file, r->line_min);
	else
		snprintf(buf, len, "%s:%" PRIu32 "-%" PRIu32, file, r->line_min, r->line_max);
	return buf;
}

void rpt_json_fn_fields(FILE *out, const struct wpp_fn *fn, const char *object)
{
	fputs("\"function\":", out);
	json_str(out, fn->name);
	fputs(",\"object\":", out);
	json_str(out, object);
	fputs(",\"file\":", out);
	json_str(out, fn->file);
}

void rpt_json_path_fields(FILE *out, const struct rpt_path *r)
{
	struct strbuf text = {0};
	char kinds[16];

	rpt_json_fn_fields(out, r->fn, r->object);
	fprintf(out, ",\"stable_id\":\"%016" PRIx64 "\",\"%s\":%" PRIu64 ",\"blocks\":%" PRIu32
		     ",\"insns\":%" PRIu64 ",\"line_min\":%" PRIu32 ",\"line_max\":%" PRIu32
		     ",\"kind\":\"%s\",\"source\":",
		r->fn->stable_id, r->is_block ? "block" : "path", r->id, r->nblocks, r->insns, r->line_min,
		r->line_max, rpt_kinds(r, kinds, sizeof(kinds)));
	rpt_path_text(r, &text);
	json_str(out, text.s ? text.s : "");
	sb_free(&text);
}

const char *rpt_cost_label(const struct rpt_profile *p)
{
	static char label[16];
	if (!p->cost_estimated)
		return "insns";
	snprintf(label, sizeof(label), "~%.7s", p->cost_unit);
	return label;
}
