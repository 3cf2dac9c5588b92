/* SPDX-License-Identifier: MIT */
/* report_common.c — pieces shared by the text, JSON, HTML and diff renderings. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/json_out.h"
#include "report/path_text.h"
#include "report/report_out.h"
#include "report/table_fmt.h"

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

/* Per-file line spans of a path: the function's own file first, then the
 * other files in order of first appearance, at most max of them. */
struct file_span {
	uint32_t file_str, min, max;
};

static size_t file_spans(const struct rpt_path *r, struct file_span *v, size_t max)
{
	const struct wpp_fn *fn = r->fn;
	size_t n = 1, k;

	v[0] = (struct file_span){UINT32_MAX, r->line_min, r->line_max};
	for (uint32_t i = 0; i < r->nblocks; i++) {
		const struct wpp_meta_block *b = &fn->blocks[r->blocks[i]];
		for (uint32_t j = 0; j < b->nlines; j++) {
			const struct wpp_meta_line *l = &fn->tu->lines[b->first_line + j];
			if (!l->line || rpt_in_own_file(fn, l))
				continue;
			for (k = 1; k < n && k < max && v[k].file_str != l->file_str; k++)
				;
			if (k == max)
				continue; /* more files than a row names */
			if (k == n) {
				v[n++] = (struct file_span){l->file_str, l->line, l->line};
			} else {
				v[k].min = l->line < v[k].min ? l->line : v[k].min;
				v[k].max = l->line > v[k].max ? l->line : v[k].max;
			}
		}
	}
	return n;
}

static void span_text(struct strbuf *b, const char *file, uint32_t min, uint32_t max)
{
	if (!min)
		sb_printf(b, "%s", file);
	else if (min == max)
		sb_printf(b, "%s:%" PRIu32, file, min);
	else
		sb_printf(b, "%s:%" PRIu32 "-%" PRIu32, file, min, max);
}

#define SPAN_FILES_MAX 16

void rpt_spans(const struct rpt_path *r, size_t width, struct strbuf *b)
{
	struct file_span v[SPAN_FILES_MAX];
	size_t n = file_spans(r, v, SPAN_FILES_MAX), start = b->len;
	char span[256];

	sb_printf(b, "%s", rpt_span(r, span, sizeof(span)));
	for (size_t k = 1; k < n; k++) {
		sb_printf(b, " + ");
		span_text(b, fmt_basename(wpp_tu_str(r->fn->tu, v[k].file_str)), v[k].min,
			  v[k].max);
	}
	if (width && b->len - start > width && n > 1) {
		/* Too wide: the own file's span and how many other files. */
		b->len = start;
		b->s[start] = 0;
		sb_printf(b, "%s +%zu file%s", span, n - 1, n > 2 ? "s" : "");
	}
}

static void json_spans(struct json_out *j, const struct rpt_path *r)
{
	struct file_span v[SPAN_FILES_MAX];
	size_t n = file_spans(r, v, SPAN_FILES_MAX);

	json_array(j, "spans");
	for (size_t k = 0; k < n; k++) {
		json_object(j, NULL);
		json_string(j, "file", k ? wpp_tu_str(r->fn->tu, v[k].file_str) : r->fn->file);
		json_u64(j, "line_min", v[k].min);
		json_u64(j, "line_max", v[k].max);
		json_close(j);
	}
	json_close(j);
}

void rpt_json_fn_fields(struct json_out *j, const struct wpp_fn *fn, const char *object)
{
	json_string(j, "function", fn->name);
	json_string(j, "object", object);
	json_string(j, "file", fn->file);
}

void rpt_json_path_fields(struct json_out *j, const struct rpt_path *r)
{
	struct strbuf text = {0};
	char kinds[16], id[24];

	rpt_json_fn_fields(j, r->fn, r->object);
	snprintf(id, sizeof(id), "%016" PRIx64, r->fn->stable_id);
	json_string(j, "stable_id", id);
	json_u64(j, r->is_block ? "block" : "path", r->id);
	json_u64(j, "blocks", r->nblocks);
	json_u64(j, "insns", r->insns);
	json_u64(j, "line_min", r->line_min);
	json_u64(j, "line_max", r->line_max);
	json_string(j, "kind", rpt_kinds(r, kinds, sizeof(kinds)));
	rpt_path_text(r, &text);
	json_string(j, "source", text.s ? text.s : "");
	sb_free(&text);
	json_spans(j, r);
}

const char *rpt_cost_label(const struct rpt_profile *p)
{
	static char label[16];
	if (!p->cost_estimated)
		return "insns";
	snprintf(label, sizeof(label), "~%.7s", p->cost_unit);
	return label;
}

void rpt_json_totals(struct json_out *j, const struct rpt_profile *p)
{
	const struct wpp_decode_stats *st = &p->stats;

	json_object(j, "totals");
	json_u64(j, "count", p->total_count);
	json_u64(j, "cost", p->total_cost);
	json_u64(j, "process_paths", p->npaths);
	json_u64(j, "unattributed", st->unattributed);
	json_u64(j, "corrupt", st->corrupt + p->corrupt_paths);
	json_u64(j, "gaps", st->gaps);
	json_u64(j, "lost_words", st->lost_words);
	json_close(j);
}
