/* SPDX-License-Identifier: MIT */
/*
 * report_diff.c — `wpptrace report A --diff B`: paths matched across two
 * runs by function identity (name, file, stable id: the same source built
 * the same way) and path id, summed over processes.  A function whose CFG
 * changed gets a new stable id, so its old paths show as gone and its new
 * ones as new — path ids of different CFGs are not comparable.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "common/json_out.h"
#include "common/log.h"
#include "report/path_text.h"
#include "report/report_html.h"
#include "report/report_out.h"
#include "report/table_fmt.h"

enum change { CH_GONE, CH_NEW, CH_HOTTER, CH_COLDER, CH_SAME };
static const char *const change_names[] = {"gone", "new", "hotter", "colder", "same"};
static const char *const change_titles[] = {"Paths gone (in the first run only)",
					    "New paths (in the second run only)", "Hotter paths",
					    "Colder paths"};

struct diff_row {
	const struct rpt_path *path; /* from b if present there, else from a */
	uint64_t count_a, count_b, cost_a, cost_b;
	enum change change;
};

static int identity_cmp(const struct rpt_path *a, const struct rpt_path *b)
{
	int c = rpt_fn_cmp(a->fn, b->fn);

	if (c)
		return c;
	if (a->is_block != b->is_block)
		return a->is_block - b->is_block;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int row_identity_order(const void *x, const void *y)
{
	return identity_cmp(((const struct rpt_row *)x)->path, ((const struct rpt_row *)y)->path);
}

/* Path rows of p summed by identity (objects merged), sorted by identity. */
static size_t identity_rows(const struct rpt_profile *p, struct rpt_row **out)
{
	struct rpt_row *rows;
	size_t n = rpt_rows(p, RPT_BY_PATH, RPT_SORT_COUNT, &rows), k = 0;

	if (n)
		qsort(rows, n, sizeof(*rows), row_identity_order);
	for (size_t i = 0; i < n; i++) {
		if (k && identity_cmp(rows[k - 1].path, rows[i].path) == 0) {
			rows[k - 1].count += rows[i].count;
			rows[k - 1].cost += rows[i].cost;
		} else {
			rows[k++] = rows[i];
		}
	}
	*out = rows;
	return k;
}

static enum rpt_sort order_sort;

static uint64_t magnitude(const struct diff_row *r)
{
	uint64_t a = order_sort == RPT_SORT_COST ? r->cost_a : r->count_a;
	uint64_t b = order_sort == RPT_SORT_COST ? r->cost_b : r->count_b;
	return a > b ? a - b : b - a;
}

static int diff_order(const void *x, const void *y)
{
	const struct diff_row *a = x, *b = y;
	uint64_t ma, mb;

	if (a->change != b->change)
		return a->change < b->change ? -1 : 1;
	ma = magnitude(a);
	mb = magnitude(b);
	if (ma != mb)
		return ma > mb ? -1 : 1;
	return identity_cmp(a->path, b->path);
}

static size_t diff_rows(const struct rpt_profile *pa, const struct rpt_profile *pb,
			enum rpt_sort sort, struct diff_row **out)
{
	struct rpt_row *ra, *rb;
	size_t na = identity_rows(pa, &ra), nb = identity_rows(pb, &rb), i = 0, j = 0, n = 0;
	struct diff_row *d = calloc(na + nb + 1, sizeof(*d));

	if (!d)
		abort();
	while (i < na || j < nb) {
		int c = i == na ? 1 : j == nb ? -1 : identity_cmp(ra[i].path, rb[j].path);
		struct diff_row *r = &d[n++];
		if (c < 0) {
			*r = (struct diff_row){ra[i].path, ra[i].count, 0, ra[i].cost, 0, CH_GONE};
			i++;
		} else if (c > 0) {
			*r = (struct diff_row){rb[j].path, 0, rb[j].count, 0, rb[j].cost, CH_NEW};
			j++;
		} else {
			uint64_t a = sort == RPT_SORT_COST ? ra[i].cost : ra[i].count;
			uint64_t b = sort == RPT_SORT_COST ? rb[j].cost : rb[j].count;
			*r = (struct diff_row){
			    rb[j].path,	 ra[i].count,
			    rb[j].count, ra[i].cost,
			    rb[j].cost,	 b > a ? CH_HOTTER : b < a ? CH_COLDER : CH_SAME};
			i++;
			j++;
		}
	}
	free(ra);
	free(rb);
	order_sort = sort;
	if (n)
		qsort(d, n, sizeof(*d), diff_order);
	*out = d;
	return n;
}

void rpt_print_diff_text(FILE *out, const struct rpt_profile *a, const struct rpt_profile *b,
			 const struct rpt_options *o)
{
	struct diff_row *d;
	size_t n = diff_rows(a, b, o->sort, &d), per[5] = {0};
	char x[FMT_NUM_LEN], y[FMT_NUM_LEN], z[FMT_NUM_LEN], name[32], span[64], fspan[24], id[24];
	int any = 0;

	for (size_t i = 0; i < n; i++)
		per[d[i].change]++;
	fprintf(out, "Diff of %s -> %s\n", fmt_basename(a->file), fmt_basename(b->file));
	fprintf(out, "path executions %s -> %s (%s), ", fmt_count(x, a->total_count),
		fmt_count(y, b->total_count), fmt_change(z, a->total_count, b->total_count));
	fprintf(out, "IR instructions %s -> %s (%s)\n", fmt_count(x, a->total_cost),
		fmt_count(y, b->total_cost), fmt_change(z, a->total_cost, b->total_cost));
	fprintf(out, "paths: %zu gone, %zu new, %zu hotter, %zu colder, %zu unchanged (by %s)\n",
		per[CH_GONE], per[CH_NEW], per[CH_HOTTER], per[CH_COLDER], per[CH_SAME],
		rpt_sort_name(o->sort));
	for (enum change c = CH_GONE; c < CH_SAME; c++) {
		size_t shown = 0;
		if (!per[c])
			continue;
		any = 1;
		fprintf(out, "\n%s\n", change_titles[c]);
		/* 9+1+9+1+8 + 2+24 + 1+22 + 1+8 + 1+10 = 97 */
		fprintf(out, "%9s %9s %8s  %-24s %-22s %8s %s\n", "before", "after", "change",
			"function", "file:lines", "path", "start>end");
		for (size_t i = 0; i < n; i++) {
			const struct diff_row *r = &d[i];
			struct strbuf text = {0};
			uint64_t va = o->sort == RPT_SORT_COST ? r->cost_a : r->count_a;
			uint64_t vb = o->sort == RPT_SORT_COST ? r->cost_b : r->count_b;
			if (r->change != c)
				continue;
			if (o->top >= 0 && shown >= (size_t)o->top) {
				fprintf(out, "... %zu more (--top N shows more)\n", per[c] - shown);
				break;
			}
			shown++;
			snprintf(id, sizeof(id), "%s%" PRIu64, r->path->is_block ? "b" : "#",
				 r->path->id);
			fprintf(out, "%9s %9s %8s  %-24s %-22s %8s %s\n", fmt_count(x, va),
				fmt_count(y, vb), fmt_change(z, va, vb),
				fmt_fit(name, 24, r->path->fn->name),
				fmt_fit_left(fspan, 22, rpt_span(r->path, span, sizeof(span))), id,
				rpt_kinds(r->path, span, sizeof(span)));
			rpt_path_text(r->path, &text);
			fmt_wrap(out, 10, 100, text.s ? text.s : "");
			sb_free(&text);
		}
	}
	if (!any)
		fprintf(out, "\nno path changed\n");
	free(d);
}

void rpt_print_diff_json(FILE *out, const struct rpt_profile *a, const struct rpt_profile *b,
			 const struct rpt_options *o)
{
	struct diff_row *d;
	size_t n = diff_rows(a, b, o->sort, &d), shown[5] = {0};
	struct json_out j;

	json_init(&j, out, 0);
	json_object(&j, NULL);
	json_string(&j, "a", a->file);
	json_string(&j, "b", b->file);
	if (a->has_cost_tally && b->has_cost_tally) {
		cost_tally_json(&j, "cost_samples_a", &a->cost_tally);
		cost_tally_json(&j, "cost_samples_b", &b->cost_tally);
	}
	json_string(&j, "sort", rpt_sort_name(o->sort));
	json_object(&j, "totals");
	json_u64(&j, "count_a", a->total_count);
	json_u64(&j, "count_b", b->total_count);
	json_u64(&j, "cost_a", a->total_cost);
	json_u64(&j, "cost_b", b->total_cost);
	json_close(&j);
	json_array_lines(&j, "paths", ",", "\n");
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *r = &d[i];
		if (r->change == CH_SAME || (o->top >= 0 && shown[r->change] >= (size_t)o->top))
			continue;
		shown[r->change]++;
		json_object(&j, NULL);
		rpt_json_path_fields(&j, r->path);
		json_string(&j, "change", change_names[r->change]);
		json_u64(&j, "count_a", r->count_a);
		json_u64(&j, "count_b", r->count_b);
		json_u64(&j, "cost_a", r->cost_a);
		json_u64(&j, "cost_b", r->cost_b);
		json_close(&j);
	}
	json_raw(&j, "\n");
	json_close(&j);
	json_close(&j);
	json_raw(&j, "\n");
	free(d);
}

/* The page's diff rows: [change, count_a, count_b, cost_a, cost_b, function,
 * spans, line_min, line_max, id, kind, text, is_block] (report_page.html). */
void rpt_print_diff_html(FILE *out, const struct rpt_profile *a, const struct rpt_profile *b,
			 const struct rpt_options *o)
{
	struct diff_row *d;
	size_t n = diff_rows(a, b, o->sort, &d), shown[5] = {0}, blen = 0;
	struct html_strtab st = {0};
	char *body = NULL, kinds[16];
	FILE *mem = open_memstream(&body, &blen);
	struct json_out j;

	if (!mem)
		wpp_die("out of memory");
	json_init(&j, mem, 0);
	json_object_continued(&j); /* after the head's members (html_emit_page) */
	json_string(&j, "a", a->file);
	json_string(&j, "b", b->file);
	json_string(&j, "sort", rpt_sort_name(o->sort));
	json_string(&j, "cost_unit", b->cost_unit);
	json_bool(&j, "cost_estimated", b->cost_estimated);
	json_object(&j, "totals");
	json_u64(&j, "count_a", a->total_count);
	json_u64(&j, "count_b", b->total_count);
	json_u64(&j, "cost_a", a->total_cost);
	json_u64(&j, "cost_b", b->total_cost);
	json_close(&j);
	json_array_lines(&j, "paths", ",", "\n");
	for (size_t i = 0; i < n; i++) {
		const struct diff_row *r = &d[i];
		const struct rpt_path *q = r->path;
		if (r->change == CH_SAME || (o->top >= 0 && shown[r->change] >= (size_t)o->top))
			continue;
		shown[r->change]++;
		json_array(&j, NULL);
		json_i64(&j, NULL, (int)r->change);
		json_u64(&j, NULL, r->count_a);
		json_u64(&j, NULL, r->count_b);
		json_u64(&j, NULL, r->cost_a);
		json_u64(&j, NULL, r->cost_b);
		json_u64(&j, NULL, html_str(&st, q->fn->name));
		json_u64(&j, NULL, html_path_text(&st, q, 1));
		json_u64(&j, NULL, q->line_min);
		json_u64(&j, NULL, q->line_max);
		json_u64(&j, NULL, q->id);
		json_u64(&j, NULL, html_str(&st, rpt_kinds(q, kinds, sizeof(kinds))));
		json_u64(&j, NULL, html_path_text(&st, q, 0));
		json_i64(&j, NULL, q->is_block);
		json_close(&j);
	}
	for (size_t i = 0; i < n; i++)
		shown[CH_SAME] += d[i].change == CH_SAME;
	json_raw(&j, "\n");
	json_close(&j);
	json_u64(&j, "unchanged", shown[CH_SAME]);
	json_close(&j);
	if (fclose(mem) != 0)
		wpp_die("out of memory");
	html_emit_page(out, "diff", b->file, &st, body, blen);
	free(body);
	free(d);
	html_strtab_free(&st);
}
