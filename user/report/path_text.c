/* SPDX-License-Identifier: MIT */
#include "report/path_text.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costs/cost_lines.h"
#include "report/inline_names.h"
#include "common/log.h"
#include "report/table_fmt.h"

void sb_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *s;
		while (b->len + (size_t)n + 1 > cap)
			cap *= 2;
		if (!(s = realloc(b->s, cap)))
			wpp_die("out of memory");
		b->s = s;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sb_free(struct strbuf *b)
{
	free(b->s);
	*b = (struct strbuf){0};
}

uint32_t rpt_cfg_succ(const struct wpp_fn *fn, uint32_t u, uint32_t *succ, uint32_t cap)
{
	uint32_t n = 0;

	for (uint32_t e = fn->out_first[u]; e < fn->out_first[u + 1]; e++) {
		uint32_t v = fn->edges[e].cfg_dst, k;
		if (v >= fn->nblocks)
			continue;
		for (k = 0; k < n && succ[k] != v; k++)
			;
		if (k == n && n < cap)
			succ[n++] = v;
	}
	return n;
}

uint32_t rpt_path_exit_target(const struct rpt_path *r)
{
	uint32_t v;

	if (r->is_block || r->end == WPP_END_RETURN || r->end == WPP_END_NORETURN)
		return UINT32_MAX;
	v = r->fn->edges[r->exit_edge].cfg_dst;
	return v < r->fn->nblocks ? v : UINT32_MAX;
}

/* Position p of fn: "12" for the function's own file, else "file:12". */
static void pos_label(const struct wpp_fn *fn, const struct wpp_meta_line *l, struct strbuf *b)
{
	const char *file = wpp_tu_str(fn->tu, l->file_str);

	if (file[0] && strcmp(file, fn->file) != 0) {
		const char *base = strrchr(file, '/');
		sb_printf(b, "%s:", base ? base + 1 : file);
	}
	sb_printf(b, "%" PRIu32, l->line);
}

void rpt_block_label(const struct wpp_fn *fn, uint32_t block, struct strbuf *b)
{
	const struct wpp_meta_line *l = wpp_fn_block_line(fn, block);

	if (l && l->line)
		pos_label(fn, l, b);
	else
		sb_printf(b, "b%" PRIu32, block);
}

/* Emits line tokens, merging runs of consecutive lines into ranges. */
struct line_run {
	struct strbuf *b;
	const struct wpp_fn *fn;
	const struct wpp_meta_line *first, *last; /* open run, or NULL */
	int tokens;				  /* anything written yet */
	const char *inlined;			  /* inline label of the open group, or NULL */
};

static void run_flush(struct line_run *lr)
{
	if (!lr->first)
		return;
	sb_printf(lr->b, "%s", lr->tokens++ ? " " : "");
	pos_label(lr->fn, lr->first, lr->b);
	if (lr->last->line != lr->first->line)
		sb_printf(lr->b, "-%" PRIu32, lr->last->line);
	lr->first = lr->last = NULL;
}

static void run_add(struct line_run *lr, const struct wpp_meta_line *l)
{
	if (lr->last && lr->last->file_str == l->file_str) {
		if (l->line == lr->last->line)
			return; /* the next block starts on the line the last one ended on */
		if (l->line == lr->last->line + 1) {
			lr->last = l;
			return;
		}
	}
	run_flush(lr);
	lr->first = lr->last = l;
}

static void run_text(struct line_run *lr, const char *fmt, const char *s)
{
	run_flush(lr);
	sb_printf(lr->b, lr->tokens++ ? " " : "");
	sb_printf(lr->b, fmt, s);
}

/* Lines of one inlined function form a group, "(in f, inlined into g: 23 24)". */
static void group_close(struct line_run *lr)
{
	if (!lr->inlined)
		return;
	run_flush(lr);
	sb_printf(lr->b, ")");
	lr->inlined = NULL;
}

static void group_enter(struct line_run *lr, const char *label)
{
	if (lr->inlined == label || (lr->inlined && label && !strcmp(lr->inlined, label)))
		return;
	group_close(lr);
	run_flush(lr);
	if (label) {
		sb_printf(lr->b, "%s(in %s:", lr->tokens++ ? " " : "", label);
		lr->inlined = label;
	}
}

/* "[->7, not 8 9]" after a block with several successors. */
static void decision(struct line_run *lr, uint32_t u, uint32_t taken)
{
	uint32_t succ[16], n = rpt_cfg_succ(lr->fn, u, succ, 16);
	struct strbuf d = {0};
	int others = 0;

	if (n < 2 || taken == UINT32_MAX)
		return;
	sb_printf(&d, "[->");
	rpt_block_label(lr->fn, taken, &d);
	for (uint32_t i = 0; i < n; i++) {
		if (succ[i] == taken)
			continue;
		sb_printf(&d, others++ ? " " : ", not ");
		rpt_block_label(lr->fn, succ[i], &d);
	}
	sb_printf(&d, "]");
	run_text(lr, "%s", d.s);
	sb_free(&d);
}

void rpt_path_text(const struct rpt_path *r, struct strbuf *b)
{
	static const char *const starts[] = {"", "loop:", "after call:", "cut:"};
	struct line_run lr = {.b = b, .fn = r->fn};
	const struct wpp_fn *fn = r->fn;
	uint32_t target = rpt_path_exit_target(r);

	if (!r->is_block && r->start != WPP_START_ENTRY)
		run_text(&lr, "%s", starts[r->start]);
	for (uint32_t i = 0; i < r->nblocks; i++) {
		const struct wpp_meta_block *bl = &fn->blocks[r->blocks[i]];
		int any = 0;
		for (uint32_t k = 0; k < bl->nlines; k++) {
			const struct wpp_meta_line *l = &fn->tu->lines[bl->first_line + k];
			if (l->line) {
				group_enter(&lr, rpt_inline_label(r->inlines, fn, r->object, l));
				run_add(&lr, l);
				any = 1;
			}
		}
		if (!any) {
			char name[24];
			snprintf(name, sizeof(name), "b%" PRIu32, r->blocks[i]);
			run_text(&lr, "%s", name);
		}
		if (i + 1 < r->nblocks)
			decision(&lr, r->blocks[i], r->blocks[i + 1]);
		else if (!r->is_block)
			decision(&lr, r->blocks[i], target);
	}
	group_close(&lr);
	if (r->is_block) {
		run_flush(&lr);
		return;
	}
	switch (r->end) {
	case WPP_END_RETURN:
		run_text(&lr, "%s", "ret");
		break;
	case WPP_END_NORETURN:
		run_text(&lr, "%s", "noret");
		break;
	case WPP_END_CALL:
		run_text(&lr, "%s", "call");
		break;
	case WPP_END_CUT:
		run_text(&lr, "%s", "cut");
		break;
	case WPP_END_BACK_EDGE: {
		struct strbuf t = {0};
		sb_printf(&t, "loop->");
		if (target != UINT32_MAX)
			rpt_block_label(fn, target, &t);
		else
			sb_printf(&t, "?");
		run_text(&lr, "%s", t.s);
		sb_free(&t);
		break;
	}
	}
	run_flush(&lr);
}

void rpt_path_line_costs(struct strbuf *s, const struct line_costs *lc, const struct rpt_path *r)
{
	char c[FMT_NUM_LEN];
	int n = 0;

	for (size_t i = 0; lc && i < lc->n; i++) {
		const struct line_cost *x = &lc->v[i];
		if (x->fn != r->fn || x->path != r->id || x->is_block != r->is_block)
			continue;
		if (x->line)
			sb_printf(s, "%s%" PRIu32 ": %s", n++ ? ", " : "[", x->line,
				  fmt_count(c, x->weight));
		else
			sb_printf(s, "%selsewhere: %s", n++ ? ", " : "[", fmt_count(c, x->weight));
	}
	if (n)
		sb_printf(s, "]");
}
