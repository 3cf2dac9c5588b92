/* SPDX-License-Identifier: MIT */
/*
 * inline_names.c — per function, the DWARF positions sorted by (line,
 * column, file base name); a metadata position is matched exactly, or, when
 * its column is not in the line table, by a line whose rows all agree.
 * Files are compared by base name: the metadata and the line table spell
 * directories differently.
 */
#include "report/inline_names.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/dwarf_lookup.h"
#include "report/table_fmt.h"

struct fn_inlines {
	const struct wpp_fn *fn;
	struct wpp_inline_pos *pos; /* NULL: no names for this function */
	long npos;
};

struct rpt_inlines {
	struct wpp_dwarf *dwarf;
	struct fn_inlines *slots; /* open addressing by fn pointer */
	size_t cap, n;
};

struct rpt_inlines *rpt_inlines_new(void)
{
	struct rpt_inlines *in = calloc(1, sizeof(*in));

	if (in && !(in->dwarf = wpp_dwarf_new())) {
		free(in);
		return NULL;
	}
	return in;
}

void rpt_inlines_free(struct rpt_inlines *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->cap; i++)
		free(in->slots[i].pos);
	free(in->slots);
	wpp_dwarf_free(in->dwarf);
	free(in);
}

static size_t slot_of(const struct rpt_inlines *in, const struct wpp_fn *fn)
{
	size_t i = (size_t)(((uintptr_t)fn >> 4) * 0x9e3779b97f4a7c15u) & (in->cap - 1);
	while (in->slots[i].fn && in->slots[i].fn != fn)
		i = (i + 1) & (in->cap - 1);
	return i;
}

static int grow(struct rpt_inlines *in)
{
	struct rpt_inlines n = {.cap = in->cap ? 2 * in->cap : 64};

	if (!(n.slots = calloc(n.cap, sizeof(*n.slots))))
		return -1;
	for (size_t i = 0; i < in->cap; i++)
		if (in->slots[i].fn)
			n.slots[slot_of(&n, in->slots[i].fn)] = in->slots[i];
	free(in->slots);
	in->slots = n.slots;
	in->cap = n.cap;
	return 0;
}

static int pos_cmp(uint32_t line, uint32_t col, const char *file, const struct wpp_inline_pos *p)
{
	int c;
	if (line != p->line)
		return line < p->line ? -1 : 1;
	if (col != p->column)
		return col < p->column ? -1 : 1;
	c = strcmp(file, fmt_basename(p->file));
	return c < 0 ? -1 : c > 0;
}

static int pos_order(const void *x, const void *y)
{
	const struct wpp_inline_pos *a = x, *b = y;
	return pos_cmp(a->line, a->column, fmt_basename(a->file), b);
}

static const struct fn_inlines *fn_entry(struct rpt_inlines *in, const struct wpp_fn *fn,
					 const char *object)
{
	struct fn_inlines *e;
	char err[256];

	if (in->cap == 0 || (in->n + 1) * 2 > in->cap) {
		if (grow(in) < 0)
			return NULL;
	}
	e = &in->slots[slot_of(in, fn)];
	if (e->fn)
		return e;
	*e = (struct fn_inlines){.fn = fn};
	in->n++;
	if (object && object[0])
		e->npos = wpp_dwarf_fn_inlines(in->dwarf, object, NULL, 0, fn->tu->source, fn->name,
					       &e->pos, err, sizeof(err));
	if (e->npos <= 0) {
		free(e->pos);
		e->pos = NULL;
		e->npos = 0;
	} else {
		qsort(e->pos, (size_t)e->npos, sizeof(*e->pos), pos_order);
	}
	return e;
}

/* First position at or after (line, col, file) in the sorted array. */
static long lower_bound(const struct fn_inlines *e, uint32_t line, uint32_t col, const char *file)
{
	long lo = 0, hi = e->npos;
	while (lo < hi) {
		long mid = (lo + hi) / 2;
		if (pos_cmp(line, col, file, &e->pos[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int same_label(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The label of positions [lo, hi): the full chain when all agree, else the
 * brief one when all agree on that, else none. */
static const char *agreed(const struct fn_inlines *e, long lo, long hi, const char *file)
{
	const char *label = NULL, *brief = NULL;
	int seen = 0, full = 1, part = 1;

	for (long i = lo; i < hi; i++) {
		if (strcmp(file, fmt_basename(e->pos[i].file)) != 0)
			continue;
		if (!seen++) {
			label = e->pos[i].label;
			brief = e->pos[i].brief;
			continue;
		}
		full &= same_label(label, e->pos[i].label);
		part &= same_label(brief, e->pos[i].brief);
	}
	return full ? label : part ? brief : NULL;
}

const char *rpt_inline_label(struct rpt_inlines *in, const struct wpp_fn *fn, const char *object,
			     const struct wpp_meta_line *l)
{
	const struct fn_inlines *e;
	const char *file;
	long lo, hi;

	if (!in || !l->line || !(e = fn_entry(in, fn, object)) || !e->npos)
		return NULL;
	file = fmt_basename(wpp_tu_str(fn->tu, l->file_str));
	lo = lower_bound(e, l->line, l->column, file);
	for (hi = lo; hi < e->npos && !pos_cmp(l->line, l->column, file, &e->pos[hi]); hi++)
		;
	if (hi > lo)
		return agreed(e, lo, hi, file);
	/* No row at that column: the rows of the whole line decide. */
	lo = lower_bound(e, l->line, 0, "");
	for (hi = lo; hi < e->npos && e->pos[hi].line == l->line; hi++)
		;
	return agreed(e, lo, hi, file);
}
