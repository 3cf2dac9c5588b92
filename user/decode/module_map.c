/* SPDX-License-Identifier: MIT */
/*
 * module_map.c — see module_map.h.  Images are few, so the image list is a
 * plain array; lookups inside an image are binary searches.
 */
#include "decode/module_map.h"

#include <stdlib.h>

#include "common/log.h"

/* Inheritance chains longer than this are treated as corrupt (cycles). */
#define MAX_FORK_DEPTH 64

struct wpp_modules {
	const struct wpp_trace *trace;
	struct wpp_symbolizer *sym;
	struct wpp_image_map **images; /* pointers stay valid while the array grows */
	size_t nimages, cap;
};

struct wpp_modules *wpp_modules_new(const struct wpp_trace *t, struct wpp_symbolizer *sym)
{
	struct wpp_modules *m = calloc(1, sizeof(*m));

	if (!m)
		wpp_die("out of memory");
	m->trace = t;
	m->sym = sym;
	return m;
}

void wpp_modules_free(struct wpp_modules *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nimages; i++) {
		free(m->images[i]->ranges);
		free(m->images[i]);
	}
	free(m->images);
	free(m);
}

static int overlaps(const struct wpp_fid_range *a, const struct wpp_fid_range *b)
{
	return (uint64_t)a->base < (uint64_t)b->base + b->n &&
	       (uint64_t)b->base < (uint64_t)a->base + a->n;
}

/* Add the ranges of image (pid, gen) that do not collide with ones already kept. */
static void collect(struct wpp_modules *m, struct wpp_image_map *im, size_t *cap, uint32_t pid,
		    uint32_t gen, int depth)
{
	const struct wpp_trace *t = m->trace;
	const struct wpp_process_rec *pr;

	for (size_t i = 0; i < t->nmodules; i++) {
		const struct wpp_module_rec *mod = &t->modules[i];
		struct wpp_fid_range r;
		int clash = 0;

		if (mod->pid != pid || mod->generation != gen || mod->nfuncs == 0)
			continue;
		r = (struct wpp_fid_range){mod->fid_base, mod->nfuncs, mod, NULL};
		for (size_t k = 0; k < im->nranges && !clash; k++)
			clash = overlaps(&r, &im->ranges[k]);
		if (clash)
			continue;
		r.tu =
		    wpp_sym_tu(m->sym, mod->path, mod->build_id, mod->build_id_len, mod->tu_hash);
		if (r.tu && r.tu->nfuncs != mod->nfuncs)
			wpp_warn("%s: module registered %u functions but its metadata has %u",
				 mod->path, mod->nfuncs, r.tu->nfuncs);
		if (im->nranges == *cap) {
			*cap = *cap ? *cap * 2 : 8;
			im->ranges = realloc(im->ranges, *cap * sizeof(*im->ranges));
			if (!im->ranges)
				wpp_die("out of memory");
		}
		im->ranges[im->nranges++] = r;
	}
	pr = wpp_trace_process(t, pid, gen);
	if (pr && (pr->flags & WPP_PROC_FORKED) && depth < MAX_FORK_DEPTH)
		collect(m, im, cap, pr->ppid, pr->parent_generation, depth + 1);
}

static int range_cmp(const void *a, const void *b)
{
	const struct wpp_fid_range *x = a, *y = b;
	return x->base < y->base ? -1 : x->base > y->base;
}

const struct wpp_image_map *wpp_modules_image(struct wpp_modules *m, uint32_t pid,
					      uint32_t generation)
{
	struct wpp_image_map *im;
	size_t cap = 0;

	for (size_t i = 0; i < m->nimages; i++)
		if (m->images[i]->pid == pid && m->images[i]->generation == generation)
			return m->images[i];
	if (m->nimages == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 8;
		m->images = realloc(m->images, m->cap * sizeof(*m->images));
		if (!m->images)
			wpp_die("out of memory");
	}
	im = calloc(1, sizeof(*im));
	if (!im)
		wpp_die("out of memory");
	m->images[m->nimages++] = im;
	im->pid = pid;
	im->generation = generation;
	collect(m, im, &cap, pid, generation, 0);
	if (im->nranges)
		qsort(im->ranges, im->nranges, sizeof(*im->ranges), range_cmp);
	return im;
}

enum wpp_resolve wpp_image_resolve(const struct wpp_image_map *im, uint32_t fid,
				   const struct wpp_fn **fn, const struct wpp_fid_range **range)
{
	size_t lo = 0, hi = im->nranges;
	const struct wpp_fid_range *r;
	uint32_t local;

	*fn = NULL;
	*range = NULL;
	while (lo < hi) { /* first range with base > fid */
		size_t mid = lo + (hi - lo) / 2;
		if (im->ranges[mid].base <= fid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return WPP_NO_MODULE;
	r = &im->ranges[lo - 1];
	local = fid - r->base;
	if (local >= r->n)
		return WPP_NO_MODULE;
	*range = r;
	if (!r->tu)
		return WPP_NO_METADATA;
	if (local >= r->tu->nfuncs)
		return WPP_NO_FUNCTION;
	*fn = r->tu->by_local[local];
	return WPP_RESOLVED;
}

const char *wpp_resolve_reason(enum wpp_resolve r)
{
	switch (r) {
	case WPP_RESOLVED:
		return "resolved";
	case WPP_NO_MODULE:
		return "no module registered for this fid";
	case WPP_NO_METADATA:
		return "module has no usable metadata";
	case WPP_NO_FUNCTION:
		return "fid beyond the module's functions";
	}
	return "?";
}
