/* SPDX-License-Identifier: MIT */
/*
 * dwarf_inlines.c — which inlined function each source position of a
 * function belongs to (dwarf_lookup.h: wpp_dwarf_fn_inlines).
 *
 * The path metadata knows positions, not addresses, so the question is
 * answered from the other side: the function's DIE tree gives its inlined
 * instances (nested ones deeper) with their address ranges, and its CU's
 * line table gives the position of every address.  A line-table row is
 * placed in the deepest instance that holds its address.
 */
#include <dwarf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/dwarf_private.h"

/* One inlined instance inside the function (or the function itself, index 0). */
struct inl_scope {
	Dwarf_Die die;
	int parent; /* index of the enclosing instance; -1 for the function */
	int depth;
	const char *label, *brief; /* built on first use */
};

struct scope_list {
	struct inl_scope *v;
	int n, cap;
};

struct fn_search {
	const char *name;
	Dwarf_Die found;
	int ok;
};

static int has_code(Dwarf_Die *die)
{
	Dwarf_Addr base, lo, hi;
	return dwarf_ranges(die, 0, &base, &lo, &hi) > 0;
}

static int match_fn(Dwarf_Die *die, void *arg)
{
	struct fn_search *s = arg;
	Dwarf_Attribute attr;
	const char *name = dwarf_diename(die), *linkage = NULL;

	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &attr))
		linkage = dwarf_formstring(&attr);
	if (((name && !strcmp(name, s->name)) || (linkage && !strcmp(linkage, s->name))) &&
	    has_code(die)) {
		s->found = *die;
		s->ok = 1;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

/* Does the CU's name end like source (both may carry different directories)? */
static int cu_matches(Dwarf_Die *cu, const char *source)
{
	const char *name = dwarf_diename(cu), *a, *b;

	if (!name || !source[0])
		return 0;
	a = strrchr(name, '/');
	b = strrchr(source, '/');
	return !strcmp(a ? a + 1 : name, b ? b + 1 : source);
}

/* The function's DIE and its CU: first among CUs matching cu_source, then anywhere. */
static int find_fn(Dwfl_Module *mod, const char *cu_source, const char *function, Dwarf_Die *fn,
		   Dwarf_Die *cu_out, Dwarf_Addr *bias)
{
	for (int pass = 0; pass < 2; pass++) {
		Dwarf_Die *cu;
		for (cu = dwfl_module_nextcu(mod, NULL, bias); cu;
		     cu = dwfl_module_nextcu(mod, cu, bias)) {
			struct fn_search s = {.name = function};
			if (pass == 0 && !cu_matches(cu, cu_source))
				continue;
			dwarf_getfuncs(cu, match_fn, &s, 0);
			if (s.ok) {
				*fn = s.found;
				*cu_out = *cu;
				return 1;
			}
		}
	}
	return 0;
}

static int scope_add(struct scope_list *l, Dwarf_Die *die, int parent)
{
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 16;
		struct inl_scope *v = realloc(l->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n] =
	    (struct inl_scope){*die, parent, parent < 0 ? 0 : l->v[parent].depth + 1, NULL, NULL};
	return l->n++;
}

/* Inlined instances below die (lexical blocks are looked through). */
static int collect(struct scope_list *l, Dwarf_Die *die, int parent)
{
	Dwarf_Die child;

	if (dwarf_child(die, &child) != 0)
		return 0;
	do {
		int tag = dwarf_tag(&child), me = parent;
		if (tag == DW_TAG_subprogram)
			continue; /* a nested function is a function of its own */
		if (tag == DW_TAG_inlined_subroutine && (me = scope_add(l, &child, parent)) < 0)
			return -1;
		if (collect(l, &child, me) < 0)
			return -1;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

static int scope_holds(Dwarf_Die *die, Dwarf_Addr a)
{
	return dwarf_haspc(die, a) > 0;
}

/* "inner, inlined into outer, inlined into function"; brief: only the
 * innermost and the function (index 0). */
static const char *label_of(struct wpp_dwarf *d, struct scope_list *l, int k, int brief)
{
	const char **slot = brief ? &l->v[k].brief : &l->v[k].label;
	size_t len = 0;
	char *s;

	if (*slot)
		return *slot;
	for (int i = k; i >= 0; i = l->v[i].parent)
		len += strlen(wpp_dwarf_scope_name(&l->v[i].die)) + sizeof(", inlined into ");
	if (!(s = malloc(len + 1)))
		return NULL;
	s[0] = 0;
	for (int i = k; i >= 0; i = l->v[i].parent) {
		if (brief && i != k && i != 0)
			continue;
		if (i != k)
			strcat(s, ", inlined into ");
		strcat(s, wpp_dwarf_scope_name(&l->v[i].die));
	}
	*slot = wpp_dwarf_keep(d, s);
	free(s);
	return *slot;
}

long wpp_dwarf_fn_inlines(struct wpp_dwarf *d, const char *path, const uint8_t *build_id,
			  uint32_t build_id_len, const char *cu_source, const char *function,
			  struct wpp_inline_pos **out, char *err, size_t errlen)
{
	Dwfl_Module *mod = wpp_dwarf_module(d, path, build_id, build_id_len, err, errlen);
	struct scope_list l = {0};
	struct wpp_inline_pos *v = NULL;
	Dwarf_Die fn, cu;
	Dwarf_Addr bias = 0;
	Dwarf_Lines *lines;
	size_t nlines;
	long n = 0;

	*out = NULL;
	if (!mod)
		return -1;
	if (!find_fn(mod, cu_source, function, &fn, &cu, &bias) ||
	    dwarf_getsrclines(&cu, &lines, &nlines) != 0)
		return 0;
	if (scope_add(&l, &fn, -1) < 0 || collect(&l, &fn, 0) < 0 ||
	    !(v = calloc(nlines + 1, sizeof(*v))))
		goto oom;
	for (size_t i = 0; i < nlines; i++) {
		Dwarf_Line *row = dwarf_onesrcline(lines, i);
		Dwarf_Addr a;
		bool end = false;
		int line = 0, col = 0, best = -1;
		if (!row || dwarf_lineaddr(row, &a) != 0 || dwarf_lineendsequence(row, &end) != 0 ||
		    end || !scope_holds(&fn, a))
			continue;
		for (int k = 0; k < l.n; k++)
			if ((best < 0 || l.v[k].depth > l.v[best].depth) &&
			    scope_holds(&l.v[k].die, a))
				best = k;
		dwarf_lineno(row, &line);
		dwarf_linecol(row, &col);
		v[n] = (struct wpp_inline_pos){dwarf_linesrc(row, NULL, NULL), (uint32_t)line,
					       (uint32_t)col, NULL, NULL};
		if (best > 0 && (!(v[n].label = label_of(d, &l, best, 0)) ||
				 !(v[n].brief = label_of(d, &l, best, 1))))
			goto oom;
		if (v[n].file && line > 0)
			n++;
	}
	free(l.v);
	*out = v;
	return n;
oom:
	free(l.v);
	free(v);
	snprintf(err, errlen, "out of memory");
	return -1;
}
