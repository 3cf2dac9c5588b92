/* SPDX-License-Identifier: MIT */
/* top_rows.c — an interval's rows: merge, order, print (see top_rows.h). */
#include "record/top_rows.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/json_out.h"
#include "symbolizer/meta_model.h"
#include "decode/path_regen.h"
#include "common/array_grow.h"

int top_rows_add(struct top_rows *r, const struct top_row *row)
{
	if (ARRAY_GROW(r->v, r->cap, r->n + 1, 256))
		return -1;
	r->v[r->n++] = *row;
	r->total += row->count;
	return 0;
}

int top_rows_saw(struct top_rows *r, pid_t pid)
{
	if (ARRAY_GROW(r->pids, r->pids_cap, r->npids + 1, 64))
		return -1;
	r->pids[r->npids++] = pid;
	return 0;
}

static int by_pid(const void *x, const void *y)
{
	pid_t a = *(const pid_t *)x, b = *(const pid_t *)y;
	return (a > b) - (a < b);
}

unsigned top_rows_processes(struct top_rows *r)
{
	unsigned n = 0;
	qsort(r->pids, r->npids, sizeof(*r->pids), by_pid);
	for (size_t i = 0; i < r->npids; i++)
		n += !i || r->pids[i] != r->pids[i - 1];
	return n;
}

void top_rows_free(struct top_rows *r)
{
	free(r->v);
	free(r->pids);
	*r = (struct top_rows){0};
}

/* Rows that can merge (a TU function) before those that cannot; the first
 * by binary, function and path, the others by process; pid last. */
static int by_binary(const void *x, const void *y)
{
	const struct top_row *a = x, *b = y;
	int c;
	if (!a->fn != !b->fn)
		return a->fn ? -1 : 1;
	if (a->fn) {
		if ((c = top_tu_binary_cmp(a->tu, b->tu)))
			return c;
		if (a->fn->local_index != b->fn->local_index)
			return a->fn->local_index < b->fn->local_index ? -1 : 1;
	} else {
		if (a->pid != b->pid)
			return a->pid < b->pid ? -1 : 1;
		if (a->fid != b->fid)
			return a->fid < b->fid ? -1 : 1;
	}
	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return (a->pid > b->pid) - (a->pid < b->pid);
}

void top_rows_merge(struct top_rows *r)
{
	size_t out = 0;
	if (!r->n)
		return;
	qsort(r->v, r->n, sizeof(*r->v), by_binary);
	for (size_t i = 1; i < r->n; i++) {
		struct top_row *m = &r->v[out];
		const struct top_row *x = &r->v[i];
		if (m->fn && x->fn && m->id == x->id && m->fn->local_index == x->fn->local_index &&
		    top_tu_binary_cmp(m->tu, x->tu) == 0) {
			m->count += x->count;
			m->nprocs += x->pid != r->v[i - 1].pid; /* sorted by pid within */
		} else {
			r->v[++out] = *x;
		}
	}
	r->n = out + 1;
}

static int by_count(const void *x, const void *y)
{
	const struct top_row *a = x, *b = y;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->fid != b->fid)
		return a->fid < b->fid ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

/* The source line span of the path's blocks (0, 0 if none). */
static void line_span(struct top_row *r)
{
	struct wpp_path path;
	uint32_t *blocks;
	r->line_min = r->line_max = 0;
	if (!r->fn || !(blocks = malloc(((size_t)r->fn->nblocks + 1) * sizeof(*blocks))))
		return;
	if (wpp_path_expand(r->fn, r->id, blocks, r->fn->nblocks + 1, &path) == 0)
		for (uint32_t i = 0; i < path.nblocks; i++) {
			const struct wpp_meta_line *l = wpp_fn_block_line(r->fn, path.blocks[i]);
			if (!l || !l->line)
				continue;
			if (!r->line_min || l->line < r->line_min)
				r->line_min = l->line;
			if (l->line > r->line_max)
				r->line_max = l->line;
		}
	free(blocks);
}

void top_rows_sort(struct top_rows *r, size_t shown)
{
	if (r->n)
		qsort(r->v, r->n, sizeof(*r->v), by_count);
	for (size_t i = 0; i < r->n && (!shown || i < shown); i++)
		line_span(&r->v[i]);
}

static void print_json(const struct top_rows *r, const struct top_header *h, size_t shown,
		       int merged)
{
	struct json_out j;

	json_init(&j, stdout, 0);
	json_object(&j, NULL);
	json_i64(&j, "interval", h->interval);
	json_double(&j, "seconds", "%.3f", h->seconds);
	json_u64(&j, "processes", h->processes);
	json_u64(&j, "total", r->total);
	json_u64(&j, "lost", h->lost);
	json_u64(&j, "skipped", h->skipped);
	json_u64(&j, "untraced", h->untraced);
	json_bool(&j, "merged", merged);
	json_array(&j, "paths");
	for (size_t i = 0; i < shown; i++) {
		const struct top_row *w = &r->v[i];
		json_object(&j, NULL);
		if (merged && w->fn)
			json_u64(&j, "processes", w->nprocs);
		else
			json_i64(&j, "pid", (int)w->pid);
		json_string(&j, "object", w->tu ? w->tu->path : "");
		json_string(&j, "function", w->fn ? w->fn->name : "?");
		json_u64(&j, "fid", w->fid);
		json_u64(&j, "path", w->id);
		json_u64(&j, "count", w->count);
		json_double(&j, "share", "%.4f",
			    r->total ? (double)w->count / (double)r->total : 0);
		json_string(&j, "file", w->fn && w->fn->file ? w->fn->file : "");
		json_u64(&j, "line_min", w->line_min);
		json_u64(&j, "line_max", w->line_max);
		json_close(&j);
	}
	json_close(&j);
	json_close(&j);
	json_raw(&j, "\n");
}

static void print_text(const struct top_rows *r, const struct top_header *h, size_t shown,
		       int merged)
{
	printf("top: interval %ld (%.2f s): %" PRIu64 " path executions in %u process%s",
	       h->interval, h->seconds, r->total, h->processes, h->processes == 1 ? "" : "es");
	if (h->tracing)
		printf(", %" PRIu64 " events lost", h->lost);
	if (h->skipped)
		printf(", %u process%s skipped (cannot read %s)", h->skipped,
		       h->skipped == 1 ? "" : "es", h->skipped == 1 ? "it" : "them");
	if (h->untraced)
		printf(", %u tracing build%s not watched (needs root)", h->untraced,
		       h->untraced == 1 ? "" : "s");
	printf("\n%12s %6s %8s %-28s %10s %s\n", "count", "%", merged ? "procs" : "pid", "function",
	       "path", "lines");
	for (size_t i = 0; i < shown; i++) {
		const struct top_row *w = &r->v[i];
		char lines[32] = "?";
		if (w->line_min)
			snprintf(lines, sizeof(lines), "%" PRIu32 "-%" PRIu32, w->line_min,
				 w->line_max);
		printf("%12" PRIu64 " %6.2f %8d %-28.28s %10" PRIu64 " %s\n", w->count,
		       r->total ? 100.0 * (double)w->count / (double)r->total : 0.0,
		       merged ? (int)w->nprocs : (int)w->pid, w->fn ? w->fn->name : "?", w->id,
		       lines);
	}
	printf("\n");
}

void top_rows_print(const struct top_rows *r, const struct top_header *h, size_t shown, int json,
		    int merged)
{
	if (!shown || shown > r->n)
		shown = r->n;
	if (json)
		print_json(r, h, shown, merged);
	else
		print_text(r, h, shown, merged);
	fflush(stdout);
}
