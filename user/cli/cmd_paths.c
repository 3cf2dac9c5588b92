/* SPDX-License-Identifier: MIT */
/*
 * cmd_paths.c — `wpptrace paths`: the acyclic path profile.
 *
 * Counting happens on raw (function, path id) pairs straight off the decoder
 * (no expansion per execution); each distinct path is expanded once
 * afterwards for its static facts.  An id that does not expand is counted as
 * corrupt, weighted by how often it occurred.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "json_out.h"
#include "log.h"
#include "session.h"
#include "table_fmt.h"

struct path_row {
	const struct wpp_fn *fn;
	uint64_t id;      /* path id, or block index in blocks mode */
	int is_block;
	uint64_t count;
	/* filled by describe() */
	uint32_t nblocks;
	uint64_t insns;   /* static: sum of the blocks' ninsns */
	uint32_t line_min, line_max;
	enum wpp_path_start start;
	enum wpp_path_end end;
};

struct fn_row {
	const struct wpp_fn *fn;
	uint64_t count, distinct, dyn_insns;
};

/* Open-addressing table of path_row keyed by (fn, id, is_block). */
struct table {
	struct path_row *rows;
	size_t cap, n;
};

static uint64_t key_hash(const struct wpp_fn *fn, uint64_t id, int is_block)
{
	uint64_t h = (uint64_t)(uintptr_t)fn * 0x9e3779b97f4a7c15u ^ (id + (uint64_t)is_block);
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9u;
	return h ^ (h >> 29);
}

static void table_grow(struct table *t);

static void table_add(struct table *t, const struct wpp_fn *fn, uint64_t id, int is_block)
{
	size_t i;

	if ((t->n + 1) * 2 > t->cap)
		table_grow(t);
	for (i = key_hash(fn, id, is_block) & (t->cap - 1); t->rows[i].fn; i = (i + 1) & (t->cap - 1)) {
		struct path_row *r = &t->rows[i];
		if (r->fn == fn && r->id == id && r->is_block == is_block) {
			r->count++;
			return;
		}
	}
	t->rows[i] = (struct path_row){.fn = fn, .id = id, .is_block = is_block, .count = 1};
	t->n++;
}

static void table_grow(struct table *t)
{
	struct table n = {.cap = t->cap ? t->cap * 2 : 1024};

	n.rows = calloc(n.cap, sizeof(*n.rows));
	if (!n.rows)
		wpp_die("out of memory");
	for (size_t i = 0; i < t->cap; i++) {
		const struct path_row *r = &t->rows[i];
		size_t k;
		if (!r->fn)
			continue;
		for (k = key_hash(r->fn, r->id, r->is_block) & (n.cap - 1); n.rows[k].fn;
		     k = (k + 1) & (n.cap - 1))
			;
		n.rows[k] = *r;
		n.n++;
	}
	free(t->rows);
	*t = n;
}

/* Static facts of one distinct path; -1 if its id does not expand. */
static int describe(struct path_row *r, uint32_t *scratch)
{
	struct wpp_path p;
	uint32_t single;

	if (r->is_block) {
		single = (uint32_t)r->id;
		p = (struct wpp_path){.nblocks = 1, .blocks = &single};
	} else if (wpp_path_expand(r->fn, r->id, scratch, r->fn->nblocks + 1, &p) < 0) {
		return -1;
	}
	r->start = p.start;
	r->end = p.end;
	r->nblocks = p.nblocks;
	r->insns = 0;
	r->line_min = UINT32_MAX;
	r->line_max = 0;
	for (uint32_t i = 0; i < p.nblocks; i++) {
		const struct wpp_meta_block *b = &r->fn->blocks[p.blocks[i]];
		r->insns += b->ninsns;
		for (uint32_t k = 0; k < b->nlines; k++) {
			uint32_t line = r->fn->tu->lines[b->first_line + k].line;
			if (line == 0)
				continue;
			if (line < r->line_min)
				r->line_min = line;
			if (line > r->line_max)
				r->line_max = line;
		}
	}
	if (r->line_min == UINT32_MAX)
		r->line_min = 0;
	return 0;
}

static int row_cmp(const void *a, const void *b)
{
	const struct path_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->fn != y->fn) {
		int c = strcmp(x->fn->name, y->fn->name);
		if (c)
			return c;
	}
	return x->id < y->id ? -1 : x->id > y->id;
}

static int fn_cmp(const void *a, const void *b)
{
	const struct fn_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->fn->name, y->fn->name);
}

/* Short kind names so the text table fits 100 columns (docs/cli.md lists them). */
static const char *short_start(const struct path_row *r)
{
	static const char *const names[] = {"entry", "loop", "call", "cut"};
	return names[r->start];
}

static const char *short_end(const struct path_row *r)
{
	static const char *const names[] = {"ret", "loop", "call", "cut", "noret"};
	return names[r->end];
}

static void print_text(FILE *out, const char *file, struct path_row *rows, size_t nrows,
		       size_t shown, struct fn_row *fns, size_t nfns, uint64_t total, uint64_t total_insns,
		       const struct wpp_decode_stats *st, uint64_t corrupt_paths)
{
	char name[64], lines[32], kinds[16];

	fprintf(out, "Acyclic path profile of %s\n", file);
	fprintf(out, "%" PRIu64 " path executions, %zu distinct paths in %zu functions, %" PRIu64
		     " dynamic IR instructions\n\n",
		total, nrows, nfns, total_insns);
	/* 9+1+5+1+22+1+11+1+4+1+6+1+12+1+11+1+11 = 99 columns at most */
	fprintf(out, "%9s %5s %-22s %11s %4s %6s %12s %-11s %s\n", "count", "%", "function", "path",
		"blks", "insns", "count*insns", "lines", "start>end");
	for (size_t i = 0; i < shown; i++) {
		const struct path_row *r = &rows[i];
		fmt_fit(name, 22, r->fn->name);
		if (r->line_min)
			snprintf(lines, sizeof(lines), "%" PRIu32 "-%" PRIu32, r->line_min, r->line_max);
		else
			snprintf(lines, sizeof(lines), "?");
		if (r->is_block)
			snprintf(kinds, sizeof(kinds), "(block)");
		else
			snprintf(kinds, sizeof(kinds), "%s>%s", short_start(r), short_end(r));
		fprintf(out, "%9" PRIu64 " %5.1f %-22s %s%10" PRIu64 " %4" PRIu32 " %6" PRIu64
			     " %12" PRIu64 " %-11s %s\n",
			r->count, total ? 100.0 * (double)r->count / (double)total : 0.0, name,
			r->is_block ? "b" : " ", r->id, r->nblocks, r->insns, r->count * r->insns, lines,
			kinds);
	}
	if (shown < nrows)
		fprintf(out, "... %zu more paths (use --top)\n", nrows - shown);

	fprintf(out, "\n%10s %8s %13s  %s\n", "count", "distinct", "dyn insns", "function (definition)");
	for (size_t i = 0; i < nfns; i++) {
		const struct wpp_fn *fn = fns[i].fn;
		fprintf(out, "%10" PRIu64 " %8" PRIu64 " %13" PRIu64 "  %.40s (%.30s:%" PRIu32 ")\n",
			fns[i].count, fns[i].distinct, fns[i].dyn_insns, fn->name,
			fn->file[0] ? fn->file : "?", fn->line);
	}
	fprintf(out, "\ntotal: %" PRIu64 " executions, %zu distinct paths, %" PRIu64
		     " dynamic IR instructions\n",
		total, nrows, total_insns);
	if (st->unattributed || st->corrupt || corrupt_paths || st->gaps)
		fprintf(out, "not counted: %" PRIu64 " unattributed, %" PRIu64
			     " corrupt records; %" PRIu64 " gaps (%" PRIu64 " words lost)\n",
			st->unattributed, st->corrupt + corrupt_paths, st->gaps, st->lost_words);
}

static void print_json(FILE *out, const char *file, struct path_row *rows, size_t nrows, size_t shown,
		       struct fn_row *fns, size_t nfns, uint64_t total, uint64_t total_insns,
		       const struct wpp_decode_stats *st, uint64_t corrupt_paths)
{
	fputs("{\"file\":", out);
	json_str(out, file);
	fputs(",\"paths\":[", out);
	for (size_t i = 0; i < shown; i++) {
		const struct path_row *r = &rows[i];
		fputs(i ? ",\n{\"function\":" : "\n{\"function\":", out);
		json_str(out, r->fn->name);
		fprintf(out, ",\"stable_id\":\"%016" PRIx64 "\",\"%s\":%" PRIu64 ",\"count\":%" PRIu64
			     ",\"blocks\":%" PRIu32 ",\"insns\":%" PRIu64 ",\"count_insns\":%" PRIu64
			     ",\"line_min\":%" PRIu32 ",\"line_max\":%" PRIu32,
			r->fn->stable_id, r->is_block ? "block" : "path", r->id, r->count, r->nblocks,
			r->insns, r->count * r->insns, r->line_min, r->line_max);
		if (!r->is_block)
			fprintf(out, ",\"start\":\"%s\",\"end\":\"%s\"", wpp_path_start_name(r->start),
				wpp_path_end_name(r->end));
		fputc('}', out);
	}
	fputs("\n],\"functions\":[", out);
	for (size_t i = 0; i < nfns; i++) {
		fputs(i ? ",\n{\"function\":" : "\n{\"function\":", out);
		json_str(out, fns[i].fn->name);
		fputs(",\"file\":", out);
		json_str(out, fns[i].fn->file);
		fprintf(out, ",\"line\":%" PRIu32 ",\"count\":%" PRIu64 ",\"distinct\":%" PRIu64
			     ",\"dyn_insns\":%" PRIu64 "}",
			fns[i].fn->line, fns[i].count, fns[i].distinct, fns[i].dyn_insns);
	}
	fprintf(out, "\n],\"totals\":{\"executions\":%" PRIu64 ",\"distinct\":%zu,\"dyn_insns\":%" PRIu64
		     ",\"unattributed\":%" PRIu64 ",\"corrupt\":%" PRIu64 ",\"gaps\":%" PRIu64
		     ",\"lost_words\":%" PRIu64 "}}\n",
		total, nrows, total_insns, st->unattributed, st->corrupt + corrupt_paths, st->gaps,
		st->lost_words);
}

int cmd_paths(int argc, char **argv)
{
	static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
					     {"pid", required_argument, NULL, 'p'},
					     {"top", required_argument, NULL, 'n'},
					     {NULL, 0, NULL, 0}};
	struct thread_filter filter = {-1, -1};
	struct wpp_decode_stats st = {0};
	struct table tab = {0};
	struct path_row *rows;
	struct fn_row *fns = NULL;
	uint64_t total = 0, total_insns = 0, corrupt_paths = 0;
	uint32_t *scratch = NULL, scratch_cap = 0;
	size_t nrows = 0, nfns = 0, shown;
	long top = -1;
	int json = 0, c, rc;
	struct session s;

	optind = 1;
	while ((c = getopt_long(argc, argv, "f:p:n:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (!strcmp(optarg, "text") || !strcmp(optarg, "json")) {
				json = !strcmp(optarg, "json");
				break;
			}
			wpp_err("paths: unknown format '%s' (text or json)", optarg);
			return WPP_EXIT_USAGE;
		case 'p':
		case 'n':
			if (parse_count(optarg) < 0) {
				wpp_err("paths: --%s needs a number, not '%s'", c == 'p' ? "pid" : "top",
					optarg);
				return WPP_EXIT_USAGE;
			}
			*(c == 'p' ? &filter.pid : &top) = parse_count(optarg);
			break;
		default:
			wpp_err("paths: bad arguments (try wpptrace help paths)");
			return WPP_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		wpp_err("paths: expected one .wpp file (try wpptrace help paths)");
		return WPP_EXIT_USAGE;
	}
	rc = session_open(&s, argv[optind]);
	if (rc)
		return rc;

	for (size_t i = 0; i < s.trace->nthreads; i++) {
		const struct wpp_thread_trace *th = &s.trace->threads[i];
		struct wpp_decoder *d;
		struct wpp_event ev;

		if (!thread_selected(&filter, th))
			continue;
		d = wpp_decoder_open(th, s.mods, 0);
		if (!d) {
			session_close(&s);
			return WPP_EXIT_ERROR;
		}
		while (wpp_decoder_next(d, &ev))
			if (ev.kind == WPP_EV_PATH || ev.kind == WPP_EV_BLOCK)
				table_add(&tab, ev.fn, ev.value, ev.kind == WPP_EV_BLOCK);
		wpp_decode_stats_add(&st, wpp_decoder_stats(d));
		wpp_decoder_close(d);
	}

	/* Compact, describe, drop ids that do not expand. */
	rows = tab.rows;
	for (size_t i = 0; i < tab.cap; i++) {
		struct path_row r = tab.rows[i];
		if (!r.fn)
			continue;
		if (r.fn->nblocks + 1 > scratch_cap) {
			free(scratch);
			scratch_cap = r.fn->nblocks + 1;
			scratch = malloc((size_t)scratch_cap * sizeof(*scratch));
			if (!scratch)
				wpp_die("out of memory");
		}
		if (describe(&r, scratch) < 0) {
			corrupt_paths += r.count;
			continue;
		}
		rows[nrows++] = r;
		total += r.count;
		total_insns += r.count * r.insns;
	}
	free(scratch);
	if (nrows)
		qsort(rows, nrows, sizeof(*rows), row_cmp);

	/* Per-function summaries (rows of one function are not adjacent after the sort). */
	fns = calloc(nrows ? nrows : 1, sizeof(*fns));
	if (!fns)
		wpp_die("out of memory");
	for (size_t i = 0; i < nrows; i++) {
		size_t k;
		for (k = 0; k < nfns && fns[k].fn != rows[i].fn; k++)
			;
		if (k == nfns)
			fns[nfns++].fn = rows[i].fn;
		fns[k].count += rows[i].count;
		fns[k].distinct++;
		fns[k].dyn_insns += rows[i].count * rows[i].insns;
	}
	qsort(fns, nfns, sizeof(*fns), fn_cmp);

	shown = top >= 0 && (size_t)top < nrows ? (size_t)top : nrows;
	if (json)
		print_json(stdout, argv[optind], rows, nrows, shown, fns, nfns, total, total_insns, &st,
			   corrupt_paths);
	else
		print_text(stdout, argv[optind], rows, nrows, shown, fns, nfns, total, total_insns, &st,
			   corrupt_paths);
	if (filter.pid >= 0 && total == 0)
		wpp_warn("%s: no paths for pid %ld", argv[optind], filter.pid);
	rc = s.exit_status;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		wpp_err("paths: writing the output failed");
		rc = WPP_EXIT_ERROR;
	}
	free(fns);
	free(tab.rows);
	session_close(&s);
	return rc;
}
