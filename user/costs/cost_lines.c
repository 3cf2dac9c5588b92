/* SPDX-License-Identifier: MIT */
/*
 * cost_lines.c — samples -> (function, path, line) by their ip.  Samples
 * repeat ips (a loop's faulting store), so each (function, module, ip) is
 * symbolized once through a small open-addressing cache; the per-sample
 * results are then sorted and merged.
 */
#include "costs/cost_lines.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/dwarf_lookup.h"
#include "common/log.h"

#define LINE_UNKNOWN UINT32_MAX
#define LINE_PENDING (UINT32_MAX - 1) /* not symbolized yet */

struct ip_slot {
	const struct wpp_fn *fn; /* NULL = empty */
	const struct wpp_module_rec *mod;
	uint64_t ip;
	uint32_t line;
};

struct ip_cache {
	struct ip_slot *slots;
	size_t cap, n;
};

static size_t ip_hash(const struct wpp_fn *fn, const struct wpp_module_rec *mod, uint64_t ip,
		      size_t cap)
{
	uint64_t h =
	    ip * 0x9e3779b97f4a7c15u ^ (uint64_t)(uintptr_t)fn ^ ((uint64_t)(uintptr_t)mod << 17);
	h ^= h >> 29;
	return (size_t)(h * 0xbf58476d1ce4e5b9u >> 7) & (cap - 1);
}

static struct ip_slot *ip_find(struct ip_cache *c, const struct wpp_fn *fn,
			       const struct wpp_module_rec *mod, uint64_t ip)
{
	size_t i;

	if ((c->n + 1) * 2 > c->cap) {
		struct ip_cache g = {.cap = c->cap ? 2 * c->cap : 1024};
		if (!(g.slots = calloc(g.cap, sizeof(*g.slots))))
			return NULL;
		for (size_t k = 0; k < c->cap; k++) {
			struct ip_slot *s = &c->slots[k];
			if (!s->fn)
				continue;
			for (i = ip_hash(s->fn, s->mod, s->ip, g.cap); g.slots[i].fn;
			     i = (i + 1) & (g.cap - 1))
				;
			g.slots[i] = *s;
			g.n++;
		}
		free(c->slots);
		*c = g;
	}
	for (i = ip_hash(fn, mod, ip, c->cap); c->slots[i].fn; i = (i + 1) & (c->cap - 1))
		if (c->slots[i].fn == fn && c->slots[i].mod == mod && c->slots[i].ip == ip)
			return &c->slots[i];
	c->slots[i] = (struct ip_slot){fn, mod, ip, LINE_PENDING};
	c->n++;
	return &c->slots[i];
}

/* The line of ip in fn's own file, 0 when the ip is in another function,
 * LINE_UNKNOWN when it cannot be symbolized. */
static uint32_t ip_line(struct wpp_dwarf *d, const struct wpp_fn *fn,
			const struct wpp_module_rec *m, uint64_t ip)
{
	struct wpp_src_frame fr[16];
	char err[256];
	int n = wpp_dwarf_frames(d, m->path, m->build_id, m->build_id_len, m->load_bias, ip, fr, 16,
				 err, sizeof(err));
	const struct wpp_src_frame *outer;

	if (n <= 0)
		return n < 0 ? LINE_UNKNOWN : 0;
	outer = &fr[n - 1];
	if (!outer->function || strcmp(outer->function, fn->name) != 0)
		return 0;
	/* GNU basename (string.h): the name after the last '/', as the report
	 * tables show files; DWARF and the metadata may spell directories apart. */
	if (!outer->file || !outer->line || strcmp(basename(outer->file), basename(fn->file)) != 0)
		return LINE_UNKNOWN;
	return outer->line;
}

static int cost_order(const void *x, const void *y)
{
	const struct line_cost *a = x, *b = y;

	if (a->fn != b->fn)
		return (uintptr_t)a->fn < (uintptr_t)b->fn ? -1 : 1;
	if (a->is_block != b->is_block)
		return a->is_block - b->is_block;
	if (a->path != b->path)
		return a->path < b->path ? -1 : 1;
	return a->line < b->line ? -1 : a->line > b->line;
}

int line_costs_build(struct wpp_modules *mods, const struct cost_attribution *a,
		     struct line_costs *out)
{
	struct wpp_dwarf *d = wpp_dwarf_new();
	struct ip_cache cache = {0};
	size_t n = 0;

	*out = (struct line_costs){0};
	if (!d || !(out->v = malloc((a->nhits + 1) * sizeof(*out->v))))
		goto oom;
	for (size_t i = 0; i < a->nhits; i++) {
		const struct cost_hit *h = &a->hits[i];
		const struct wpp_image_map *im;
		const struct wpp_fid_range *range = NULL;
		const struct wpp_fn *fn = NULL;
		struct ip_slot *slot;
		if (!h->fn)
			continue;
		im = wpp_modules_image(mods, h->pid, h->gen);
		if (wpp_image_resolve(im, h->fid, &fn, &range) != WPP_RESOLVED || fn != h->fn) {
			out->unknown_samples++;
			out->unknown_weight += h->weight;
			continue;
		}
		if (!(slot = ip_find(&cache, fn, range->module, h->ip)))
			goto oom;
		if (slot->line == LINE_PENDING)
			slot->line = ip_line(d, fn, range->module, h->ip);
		if (slot->line == LINE_UNKNOWN) {
			out->unknown_samples++;
			out->unknown_weight += h->weight;
			continue;
		}
		out->v[n++] =
		    (struct line_cost){fn, h->is_block, h->value, slot->line, h->weight, 1};
	}
	qsort(out->v, n, sizeof(*out->v), cost_order);
	for (size_t i = 0; i < n; i++) {
		struct line_cost *last = out->n ? &out->v[out->n - 1] : NULL;
		if (last && !cost_order(last, &out->v[i])) {
			last->weight += out->v[i].weight;
			last->samples += out->v[i].samples;
		} else {
			out->v[out->n++] = out->v[i];
		}
	}
	free(cache.slots);
	wpp_dwarf_free(d);
	return 0;
oom:
	free(cache.slots);
	wpp_dwarf_free(d);
	line_costs_free(out);
	wpp_err("out of memory");
	return -1;
}

void line_costs_free(struct line_costs *lc)
{
	free(lc->v);
	*lc = (struct line_costs){0};
}

uint64_t line_cost_of(const struct line_costs *lc, const struct wpp_fn *fn, long long path,
		      int is_block, uint32_t line, uint64_t *samples)
{
	uint64_t w = 0, s = 0;

	for (size_t i = 0; lc && i < lc->n; i++) {
		const struct line_cost *c = &lc->v[i];
		if (c->fn != fn || c->line != line ||
		    (path >= 0 && (c->path != (uint64_t)path || c->is_block != is_block)))
			continue;
		w += c->weight;
		s += c->samples;
	}
	if (samples)
		*samples = s;
	return w;
}
