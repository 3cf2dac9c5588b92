/* SPDX-License-Identifier: MIT */
#include "report/annotate.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "costs/cost_lines.h"
#include "report/fn_flow.h"
#include "common/in_file.h"
#include "common/json_out.h"
#include "common/log.h"
#include "report/path_text.h"
#include "report/report_out.h"
#include "report/table_fmt.h"

#define WIDTH 100

struct source {
	char *text;
	char **lines; /* lines[i] = line i + 1 */
	size_t n;
};

/* The path comes from debug info: a FIFO or device there must not hang
 * or feed us (in_file.h); such a file is as good as missing. */
static int source_load(struct source *s, const char *path)
{
	struct stat st;
	int fd = in_file_open(path, NULL, &st);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	size_t len = 0;

	*s = (struct source){0};
	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (getdelim(&s->text, &len, '\0', f) < 0) {
		fclose(f);
		free(s->text);
		s->text = strdup("");
		return s->text ? 0 : -1;
	}
	fclose(f);
	for (char *p = s->text; p && *p;) {
		char *nl = strchr(p, '\n');
		if (!(s->lines = realloc(s->lines, (s->n + 1) * sizeof(*s->lines))))
			wpp_die("out of memory");
		s->lines[s->n++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	return 0;
}

static const char *source_line(const struct source *s, uint32_t line)
{
	return line >= 1 && line <= s->n ? s->lines[line - 1] : NULL;
}

/* Tabs expanded to 8 columns, cut to width. */
static void print_source(FILE *out, const char *text, int width)
{
	int col = 0;

	for (const char *p = text; *p && col < width; p++) {
		if (*p == '\t') {
			do
				fputc(' ', out);
			while (++col % 8 && col < width);
		} else if ((unsigned char)*p >= 0x20 || *p < 0) {
			fputc(*p, out);
			col++;
		}
	}
	fputc('\n', out);
}

struct line_info {
	uint64_t count;
	int covered;
	char hot[ANNOTATE_HOT_PATHS + 1];
	uint32_t nbranches; /* blocks whose decision is shown on this line */
};

static int in_fn_file(const struct wpp_fn *fn, const struct wpp_meta_line *l)
{
	const char *file = wpp_tu_str(fn->tu, l->file_str);
	return l->line && (!file[0] || strcmp(file, fn->file) == 0);
}

/* The line on which block b's decision is shown: its last line in the function's file. */
static uint32_t branch_line(const struct wpp_fn *fn, uint32_t b)
{
	const struct wpp_meta_block *bl = &fn->blocks[b];
	uint32_t line = 0;

	for (uint32_t k = 0; k < bl->nlines; k++)
		if (in_fn_file(fn, &fn->tu->lines[bl->first_line + k]))
			line = fn->tu->lines[bl->first_line + k].line;
	return line;
}

static void line_range(const struct wpp_fn *fn, uint32_t *lo, uint32_t *hi)
{
	*lo = fn->line ? fn->line : UINT32_MAX;
	*hi = fn->line;
	for (uint32_t b = 0; b < fn->nblocks; b++)
		for (uint32_t k = 0; k < fn->blocks[b].nlines; k++) {
			const struct wpp_meta_line *l =
			    &fn->tu->lines[fn->blocks[b].first_line + k];
			if (!in_fn_file(fn, l))
				continue;
			if (l->line < *lo)
				*lo = l->line;
			if (l->line > *hi)
				*hi = l->line;
		}
	if (*lo == UINT32_MAX)
		*lo = *hi = 0;
}

static struct line_info *line_infos(const struct fn_flow *f, uint32_t lo, uint32_t hi)
{
	const struct wpp_fn *fn = f->fn;
	struct line_info *li = calloc((size_t)(hi - lo) + 2, sizeof(*li));

	if (!li)
		wpp_die("out of memory");
	for (uint32_t b = 0; b < fn->nblocks; b++) {
		uint32_t bl;
		for (uint32_t k = 0; k < fn->blocks[b].nlines; k++) {
			const struct wpp_meta_line *l =
			    &fn->tu->lines[fn->blocks[b].first_line + k];
			if (!in_fn_file(fn, l) || l->line < lo || l->line > hi)
				continue;
			li[l->line - lo].covered = 1;
			if (f->block_count[b] > li[l->line - lo].count)
				li[l->line - lo].count = f->block_count[b];
		}
		if (f->nsucc[b] > 1 && (bl = branch_line(fn, b)) >= lo && bl <= hi && bl)
			li[bl - lo].nbranches++;
	}
	for (size_t h = 0; h < f->npaths && h < ANNOTATE_HOT_PATHS; h++) {
		const struct rpt_path *r = f->paths[h].path;
		for (uint32_t i = 0; i < r->nblocks; i++) {
			const struct wpp_meta_block *bl = &fn->blocks[r->blocks[i]];
			for (uint32_t k = 0; k < bl->nlines; k++) {
				const struct wpp_meta_line *l = &fn->tu->lines[bl->first_line + k];
				struct line_info *x;
				if (!in_fn_file(fn, l) || l->line < lo || l->line > hi)
					continue;
				x = &li[l->line - lo];
				if (!strchr(x->hot, 'A' + (int)h))
					x->hot[strlen(x->hot)] = (char)('A' + h);
			}
		}
	}
	return li;
}

static void print_branches(FILE *out, const struct fn_flow *f, uint32_t line)
{
	const struct wpp_fn *fn = f->fn;
	char c[FMT_NUM_LEN], pc[FMT_NUM_LEN];

	for (uint32_t b = 0; b < fn->nblocks; b++) {
		struct strbuf s = {0};
		if (f->nsucc[b] < 2 || branch_line(fn, b) != line)
			continue;
		sb_printf(&s, "branch:");
		for (uint32_t k = 0; k < f->nsucc[b]; k++) {
			uint64_t n = f->edge_count[(size_t)b * FN_FLOW_MAX_SUCC + k];
			sb_printf(&s, "  ->");
			rpt_block_label(fn, f->succ[(size_t)b * FN_FLOW_MAX_SUCC + k], &s);
			sb_printf(&s, " %s (%s)", fmt_count(c, n),
				  fmt_pct(pc, n, f->block_count[b]));
		}
		fmt_wrap(out, 29, WIDTH, s.s);
		sb_free(&s);
	}
}

/* "~page-fa": a counter's column heading, at most 9 wide. */
static const char *cost_heading(const char *counter)
{
	static char h[10];
	snprintf(h, sizeof(h), "~%.8s", counter);
	return h;
}

/* counter: the counter a sampled cost came from (hot paths then show the
 * estimated events they incurred), NULL for the exact instruction cost. */
static void annotate_text(FILE *out, const struct fn_flow *f, const struct source *src,
			  int have_src, const char *counter, const struct line_costs *lc)
{
	const struct wpp_fn *fn = f->fn;
	char c[FMT_NUM_LEN], pc[FMT_NUM_LEN], span[64];
	uint32_t lo, hi;
	struct line_info *li;

	line_range(fn, &lo, &hi);
	fprintf(out,
		"Annotated source of %s (%s:%" PRIu32 "): %s path executions, %zu distinct paths\n",
		fn->name, fn->file[0] ? fmt_basename(fn->file) : "?", fn->line,
		fmt_count(c, f->total), f->npaths);
	for (size_t h = 0; h < f->npaths && h < ANNOTATE_HOT_PATHS; h++) {
		const struct rpt_path *r = f->paths[h].path;
		struct strbuf s = {0};
		sb_printf(&s, "%c = path #%" PRIu64 " (%s, %s, %s): ", (char)('A' + h), r->id,
			  fmt_count(c, f->paths[h].count), fmt_pct(pc, f->paths[h].count, f->total),
			  rpt_kinds(r, span, sizeof(span)));
		if (counter)
			sb_printf(&s, "~%s %s: ", fmt_count(c, f->paths[h].cost), counter);
		rpt_path_text(r, &s);
		if (counter) {
			/* where in the function the samples' ips were, by line */
			struct strbuf t = {0};
			rpt_path_line_costs(&t, lc, f->paths[h].path);
			if (t.len)
				sb_printf(&s, "; by line %s", t.s);
			sb_free(&t);
		}
		fmt_wrap(out, 2, WIDTH, s.s);
		sb_free(&s);
	}
	if (lc) {
		uint64_t ns, w = line_cost_of(lc, fn, -1, 0, 0, &ns);
		fprintf(out,
			"~%s %s from %" PRIu64
			" samples whose ip was outside %s's own code (callees)\n",
			fmt_count(c, w), counter, ns, fn->name);
	}
	if (lc)
		fprintf(out, "\n%6s %9s %6s %9s %-3s  %s\n", "line", "count", "%",
			cost_heading(counter), "hot", "source");
	else
		fprintf(out, "\n%6s %9s %6s %-3s  %s\n", "line", "count", "%", "hot", "source");
	li = line_infos(f, lo, hi);
	for (uint32_t line = lo; line && line <= hi; line++) {
		const struct line_info *x = &li[line - lo];
		const char *text = source_line(src, line);
		if (x->covered)
			fprintf(out, "%6" PRIu32 " %9s %6s ", line, fmt_count(c, x->count),
				fmt_pct(pc, x->count, f->total));
		else
			fprintf(out, "%6" PRIu32 " %9s %6s ", line, "", "");
		if (lc) {
			uint64_t w = line_cost_of(lc, fn, -1, 0, line, NULL);
			fprintf(out, "%9s ", w ? fmt_count(c, w) : "");
		}
		fprintf(out, "%-3s  ", x->covered ? x->hot : "");
		print_source(out, text ? text : (have_src ? "" : "?"), WIDTH - (lc ? 39 : 29));
		if (x->nbranches)
			print_branches(out, f, line);
	}
	free(li);
}

static void json_path_line_costs(struct json_out *j, const struct line_costs *lc,
				 const struct rpt_path *r)
{
	json_array(j, "cost_by_line");
	for (size_t i = 0; i < lc->n; i++) {
		const struct line_cost *x = &lc->v[i];
		if (x->fn != r->fn || x->path != r->id || x->is_block != r->is_block)
			continue;
		json_object(j, NULL);
		json_u64(j, "line", x->line);
		json_u64(j, "cost", x->weight);
		json_u64(j, "samples", x->samples);
		json_close(j);
	}
	json_close(j);
}

static void annotate_json(struct json_out *j, const struct fn_flow *f, const struct source *src,
			  const struct line_costs *lc)
{
	const struct wpp_fn *fn = f->fn;
	uint32_t lo, hi;
	struct line_info *li;
	char mark[2] = "A";

	line_range(fn, &lo, &hi);
	li = line_infos(f, lo, hi);
	json_object(j, NULL);
	json_string(j, "function", fn->name);
	json_string(j, "object", f->paths[0].object);
	json_string(j, "file", fn->file);
	json_u64(j, "line", fn->line);
	json_u64(j, "count", f->total);
	if (lc) {
		uint64_t ns, w = line_cost_of(lc, fn, -1, 0, 0, &ns);
		json_u64(j, "cost_elsewhere", w);
		json_u64(j, "samples_elsewhere", ns);
	}
	json_array(j, "hot_paths");
	for (size_t h = 0; h < f->npaths && h < ANNOTATE_HOT_PATHS; h++) {
		json_object(j, NULL);
		mark[0] = (char)('A' + h);
		json_string(j, "mark", mark);
		rpt_json_path_fields(j, f->paths[h].path);
		json_u64(j, "count", f->paths[h].count);
		json_u64(j, "cost", f->paths[h].cost);
		if (lc)
			json_path_line_costs(j, lc, f->paths[h].path);
		json_close(j);
	}
	json_close(j);

	json_array_lines(j, "lines", ",", "\n");
	for (uint32_t line = lo; line && line <= hi; line++) {
		const struct line_info *x = &li[line - lo];
		json_object(j, NULL);
		json_u64(j, "line", line);
		if (x->covered)
			json_u64(j, "count", x->count);
		else
			json_null(j, "count");
		if (lc) {
			uint64_t ns, w = line_cost_of(lc, fn, -1, 0, line, &ns);
			json_u64(j, "cost", w);
			json_u64(j, "samples", ns);
		}
		json_string(j, "hot", x->hot);
		json_string(j, "source", source_line(src, line));
		json_close(j);
	}
	json_raw(j, "\n");
	json_close(j);
	json_array_lines(j, "edges", ",", "\n");
	for (uint32_t b = 0; b < fn->nblocks; b++)
		for (uint32_t k = 0; k < f->nsucc[b]; k++) {
			uint32_t v = f->succ[(size_t)b * FN_FLOW_MAX_SUCC + k];
			const struct wpp_meta_line *lu = wpp_fn_block_line(fn, b),
						   *lv = wpp_fn_block_line(fn, v);
			json_object(j, NULL);
			json_u64(j, "from_block", b);
			json_u64(j, "to_block", v);
			json_u64(j, "from_line", lu ? lu->line : 0);
			json_u64(j, "to_line", lv ? lv->line : 0);
			json_bool(j, "branch", f->nsucc[b] > 1);
			json_u64(j, "count", f->edge_count[(size_t)b * FN_FLOW_MAX_SUCC + k]);
			json_close(j);
		}
	json_raw(j, "\n");
	json_close(j);
	json_close(j);
	free(li);
}

int rpt_annotate(FILE *out, const struct rpt_profile *p, const char *name, int json,
		 enum rpt_sort sort)
{
	const struct wpp_fn **fns;
	size_t n = fn_flow_find(p, name, &fns);

	if (n == 0) {
		wpp_err("annotate: function '%s' has no recorded paths in %s", name, p->file);
		free(fns);
		return -1;
	}
	struct json_out j;

	json_init(&j, out, 0);
	if (json) {
		json_object(&j, NULL);
		if (p->has_cost_tally) {
			cost_tally_json(&j, "cost_samples", &p->cost_tally);
		}
		json_array_lines(&j, "functions", ",", "\n");
	}
	for (size_t i = 0; i < n; i++) {
		struct fn_flow f;
		struct source src;
		int have_src;
		fn_flow_build(&f, p, fns[i], sort);
		have_src = fns[i]->file[0] && source_load(&src, fns[i]->file) == 0;
		if (!have_src) {
			src = (struct source){0};
			wpp_warn("annotate: source %s of %s not readable; counts only",
				 fns[i]->file[0] ? fns[i]->file : "(no debug info)", name);
		}
		if (json) {
			annotate_json(&j, &f, &src, p->line_costs);
		} else {
			if (i)
				fputc('\n', out);
			if (n > 1)
				fprintf(out, "[%s]\n", f.paths[0].object);
			annotate_text(out, &f, &src, have_src,
				      p->cost_estimated ? p->cost_unit : NULL,
				      p->cost_estimated ? p->line_costs : NULL);
		}
		free(src.lines);
		free(src.text);
		fn_flow_free(&f);
	}
	if (json) {
		json_raw(&j, "\n");
		json_close(&j);
		json_close(&j);
		json_raw(&j, "\n");
	}
	free(fns);
	return 0;
}
