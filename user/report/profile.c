/* SPDX-License-Identifier: MIT */
/*
 * profile.c — count (image, function, path) triples off the decoder in an
 * open-addressing table, then expand each distinct path once.
 */
#include "report/profile.h"

#include <stdlib.h>
#include <string.h>

#include "costs/cost_lines.h"
#include "costs/costs.h"
#include "report/inline_names.h"
#include "common/log.h"

struct key_table {
	struct rpt_path *slots;
	size_t cap, n;
};

static uint64_t mix(uint64_t h)
{
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9u;
	return h ^ (h >> 29);
}

static uint64_t key_hash(uint32_t pid, uint32_t gen, const struct wpp_fn *fn, uint64_t id,
			 int is_block)
{
	uint64_t h = (uint64_t)(uintptr_t)fn * 0x9e3779b97f4a7c15u;
	h = mix(h ^ id ^ ((uint64_t)is_block << 63));
	return mix(h ^ ((uint64_t)pid << 32 | gen));
}

static int same_key(const struct rpt_path *r, uint32_t pid, uint32_t gen, const struct wpp_fn *fn,
		    uint64_t id, int is_block)
{
	return r->fn == fn && r->id == id && r->is_block == is_block && r->pid == pid &&
	       r->gen == gen;
}

static int table_grow(struct key_table *t)
{
	struct key_table n = {.cap = t->cap ? t->cap * 2 : 1024};

	n.slots = calloc(n.cap, sizeof(*n.slots));
	if (!n.slots)
		return -1;
	for (size_t i = 0; i < t->cap; i++) {
		const struct rpt_path *r = &t->slots[i];
		size_t k;
		if (!r->fn)
			continue;
		for (k = key_hash(r->pid, r->gen, r->fn, r->id, r->is_block) & (n.cap - 1);
		     n.slots[k].fn; k = (k + 1) & (n.cap - 1))
			;
		n.slots[k] = *r;
		n.n++;
	}
	free(t->slots);
	*t = n;
	return 0;
}

static int table_add(struct key_table *t, uint32_t pid, uint32_t gen, const struct wpp_fn *fn,
		     uint64_t id, int is_block, uint64_t times)
{
	size_t i;

	if ((t->n + 1) * 2 > t->cap && table_grow(t) < 0)
		return -1;
	for (i = key_hash(pid, gen, fn, id, is_block) & (t->cap - 1); t->slots[i].fn;
	     i = (i + 1) & (t->cap - 1)) {
		if (same_key(&t->slots[i], pid, gen, fn, id, is_block)) {
			t->slots[i].count += times;
			return 0;
		}
	}
	t->slots[i] = (struct rpt_path){
	    .pid = pid, .gen = gen, .fn = fn, .id = id, .is_block = is_block, .count = times};
	t->n++;
	return 0;
}

/* Blocks and static facts of one distinct path; -1 if the id does not expand. */
static int describe(struct rpt_path *r)
{
	struct wpp_path p;
	uint32_t *blocks = malloc(((size_t)r->fn->nblocks + 1) * sizeof(*blocks));

	if (!blocks)
		return -2;
	if (r->is_block) {
		if (r->id >= r->fn->nblocks) {
			free(blocks);
			return -1;
		}
		blocks[0] = (uint32_t)r->id;
		p = (struct wpp_path){.nblocks = 1, .blocks = blocks};
	} else if (wpp_path_expand(r->fn, r->id, blocks, r->fn->nblocks + 1, &p) < 0) {
		free(blocks);
		return -1;
	}
	r->blocks = blocks;
	r->nblocks = p.nblocks;
	r->start = p.start;
	r->end = p.end;
	r->entry_edge = p.entry_edge;
	r->exit_edge = p.exit_edge;
	r->insns = 0;
	r->line_min = UINT32_MAX;
	r->line_max = 0;
	for (uint32_t i = 0; i < p.nblocks; i++) {
		const struct wpp_meta_block *b = &r->fn->blocks[p.blocks[i]];
		r->insns += b->ninsns;
		for (uint32_t k = 0; k < b->nlines; k++) {
			const struct wpp_meta_line *l = &r->fn->tu->lines[b->first_line + k];
			uint32_t line = l->line;
			if (!rpt_in_own_file(r->fn, l))
				continue;
			if (line && line < r->line_min)
				r->line_min = line;
			if (line > r->line_max)
				r->line_max = line;
		}
	}
	if (r->line_min == UINT32_MAX)
		r->line_min = 0;
	return 0;
}

int rpt_in_own_file(const struct wpp_fn *fn, const struct wpp_meta_line *l)
{
	const char *file = wpp_tu_str(fn->tu, l->file_str);
	return !file[0] || !strcmp(file, fn->file);
}

int rpt_fn_cmp(const struct wpp_fn *a, const struct wpp_fn *b)
{
	int c;

	if (a == b)
		return 0;
	if ((c = strcmp(a->name, b->name)) != 0 || (c = strcmp(a->file, b->file)) != 0)
		return c;
	return a->stable_id < b->stable_id ? -1 : a->stable_id > b->stable_id;
}

static int path_order(const void *x, const void *y)
{
	const struct rpt_path *a = x, *b = y;
	int c;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->gen != b->gen)
		return a->gen < b->gen ? -1 : 1;
	if ((c = rpt_fn_cmp(a->fn, b->fn)) != 0 || (c = strcmp(a->object, b->object)) != 0)
		return c;
	if (a->is_block != b->is_block)
		return a->is_block - b->is_block;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* The object file of every TU the trace's images use. */
struct tu_object {
	const struct wpp_tu *tu;
	const char *path;
};

static const char *object_of(const struct tu_object *map, size_t n, const struct wpp_tu *tu)
{
	for (size_t i = 0; i < n; i++)
		if (map[i].tu == tu)
			return map[i].path;
	return "";
}

static struct rpt_image *image_get(struct rpt_profile *p, const struct wpp_trace *t, uint32_t pid,
				   uint32_t gen)
{
	const struct wpp_process_rec *pr;
	struct rpt_image *im;

	for (size_t i = 0; i < p->nimages; i++)
		if (p->images[i].pid == pid && p->images[i].gen == gen)
			return &p->images[i];
	im = realloc(p->images, (p->nimages + 1) * sizeof(*im));
	if (!im)
		return NULL;
	p->images = im;
	im = &p->images[p->nimages++];
	pr = wpp_trace_process(t, pid, gen);
	*im = (struct rpt_image){.pid = pid, .gen = gen, .exe = pr && pr->exe ? pr->exe : ""};
	return im;
}

static int image_order(const void *x, const void *y)
{
	const struct rpt_image *a = x, *b = y;

	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->gen < b->gen ? -1 : a->gen > b->gen;
}

static int count_threads(struct rpt_profile *p, const struct wpp_trace *t, struct wpp_modules *mods,
			 long pid, long tid, long gen, struct key_table *tab,
			 struct tu_object **map, size_t *nmap)
{
	for (size_t i = 0; i < t->nthreads; i++) {
		const struct wpp_thread_trace *th = &t->threads[i];
		const struct wpp_image_map *im;
		struct wpp_decoder *d;
		struct wpp_event ev;
		struct rpt_image *img;

		if ((pid >= 0 && (uint32_t)pid != th->pid) ||
		    (tid >= 0 && (uint32_t)tid != th->tid) ||
		    (gen >= 0 && (uint32_t)gen != th->generation))
			continue;
		if (!(img = image_get(p, t, th->pid, th->generation)))
			return -1;
		img->nthreads += th->tid != WPP_TID_MEMORY_COUNTS; /* no thread's */
		im = wpp_modules_image(mods, th->pid, th->generation);
		for (size_t r = 0; r < im->nranges; r++) {
			struct tu_object *m;
			if (!im->ranges[r].tu || object_of(*map, *nmap, im->ranges[r].tu)[0])
				continue;
			if (!(m = realloc(*map, (*nmap + 1) * sizeof(**map))))
				return -1;
			*map = m;
			m[(*nmap)++] =
			    (struct tu_object){im->ranges[r].tu, im->ranges[r].module->path};
		}
		/* Runs as counts: a REPEAT word's count is added, not walked. */
		if (!(d = wpp_decoder_open(th, mods, WPP_DECODE_RUNS)))
			return -1;
		while (wpp_decoder_next(d, &ev))
			if ((ev.kind == WPP_EV_PATH || ev.kind == WPP_EV_BLOCK) &&
			    table_add(tab, th->pid, th->generation, ev.fn, ev.value,
				      ev.kind == WPP_EV_BLOCK, ev.times) < 0) {
				wpp_decoder_close(d);
				return -1;
			}
		wpp_decode_stats_add(&p->stats, wpp_decoder_stats(d));
		wpp_decoder_close(d);
	}
	return 0;
}

static int profile_totals(struct rpt_profile *p);

int rpt_profile_build(struct rpt_profile *p, const char *file, const struct wpp_trace *t,
		      struct wpp_modules *mods, long pid, long tid, long gen)
{
	struct key_table tab = {0};
	struct tu_object *map = NULL;
	size_t nmap = 0;

	*p = (struct rpt_profile){.file = file, .inlines = rpt_inlines_new()};
	if (count_threads(p, t, mods, pid, tid, gen, &tab, &map, &nmap) < 0)
		goto fail;
	p->paths = tab.slots; /* compacted in place */
	for (size_t i = 0; i < tab.cap; i++) {
		struct rpt_path r = tab.slots[i];
		int rc;
		if (!r.fn)
			continue;
		r.object = object_of(map, nmap, r.fn->tu);
		r.inlines = p->inlines;
		rc = describe(&r);
		if (rc == -2)
			goto fail;
		if (rc < 0) {
			p->corrupt_paths += r.count;
			continue;
		}
		p->paths[p->npaths++] = r;
	}
	tab.slots = NULL;
	if (p->npaths)
		qsort(p->paths, p->npaths, sizeof(*p->paths), path_order);
	if (p->nimages)
		qsort(p->images, p->nimages, sizeof(*p->images), image_order);
	p->cost_unit = "ir_instructions";
	for (size_t i = 0; i < p->npaths; i++)
		p->paths[i].cost = p->paths[i].count * p->paths[i].insns;
	if (profile_totals(p) < 0)
		goto fail;
	free(map);
	return 0;
fail:
	free(tab.slots);
	free(map);
	rpt_profile_free(p);
	wpp_err("out of memory");
	return -1;
}

/* Totals and per-image sums; the hottest function of an image is the one
 * with the largest summed cost (ties: first in name order).  Paths of one
 * function in one image are adjacent after the sort. */
static int profile_totals(struct rpt_profile *p)
{
	uint64_t *hottest_cost = calloc(p->nimages + 1, sizeof(*hottest_cost));
	if (!hottest_cost)
		return -1;
	p->total_count = p->total_cost = 0;
	for (size_t k = 0; k < p->nimages; k++) {
		p->images[k].count = p->images[k].cost = p->images[k].distinct = 0;
		p->images[k].hottest = NULL;
	}
	for (size_t i = 0, k = 0, j; i < p->npaths; i = j) {
		const struct rpt_path *r = &p->paths[i];
		uint64_t fn_cost = 0;
		struct rpt_image *im;
		while (p->images[k].pid != r->pid || p->images[k].gen != r->gen)
			k++;
		im = &p->images[k];
		for (j = i; j < p->npaths && p->paths[j].fn == r->fn && p->paths[j].pid == r->pid &&
			    p->paths[j].gen == r->gen;
		     j++) {
			uint64_t cost = p->paths[j].cost;
			fn_cost += cost;
			im->count += p->paths[j].count;
			im->cost += cost;
			im->distinct++;
		}
		if (!im->hottest || fn_cost > hottest_cost[k]) {
			im->hottest = r->fn;
			hottest_cost[k] = fn_cost;
		}
	}
	for (size_t k = 0; k < p->nimages; k++) {
		p->total_count += p->images[k].count;
		p->total_cost += p->images[k].cost;
	}
	free(hottest_cost);
	return 0;
}

void rpt_profile_free(struct rpt_profile *p)
{
	for (size_t i = 0; i < p->npaths; i++)
		free(p->paths[i].blocks);
	free(p->paths);
	free(p->images);
	rpt_inlines_free(p->inlines);
	if (p->line_costs)
		line_costs_free(p->line_costs);
	free(p->line_costs);
	*p = (struct rpt_profile){0};
}

/* Paths and hits both ordered by (pid, gen, fn pointer, is_block, id), then merged. */
static int key_cmp(uint32_t pa, uint32_t ga, const void *fa, int ba, uint64_t ia, uint32_t pb,
		   uint32_t gb, const void *fb, int bb, uint64_t ib)
{
	if (pa != pb)
		return pa < pb ? -1 : 1;
	if (ga != gb)
		return ga < gb ? -1 : 1;
	if (fa != fb)
		return (uintptr_t)fa < (uintptr_t)fb ? -1 : 1;
	if (ba != bb)
		return ba < bb ? -1 : 1;
	return ia < ib ? -1 : ia > ib;
}

static int path_key_order(const void *x, const void *y)
{
	const struct rpt_path *a = *(const struct rpt_path *const *)x,
			      *b = *(const struct rpt_path *const *)y;
	return key_cmp(a->pid, a->gen, a->fn, a->is_block, a->id, b->pid, b->gen, b->fn,
		       b->is_block, b->id);
}

static int hit_key_order(const void *x, const void *y)
{
	const struct cost_hit *a = *(const struct cost_hit *const *)x,
			      *b = *(const struct cost_hit *const *)y;
	return key_cmp(a->pid, a->gen, a->fn, a->is_block, a->value, b->pid, b->gen, b->fn,
		       b->is_block, b->value);
}

int rpt_profile_apply_costs(struct rpt_profile *p, const struct cost_attribution *a,
			    const char *unit)
{
	struct rpt_path **paths = malloc((p->npaths + 1) * sizeof(*paths));
	const struct cost_hit **hits = malloc((a->nhits + 1) * sizeof(*hits));
	if (!paths || !hits) {
		free(paths);
		free(hits);
		wpp_err("out of memory");
		return -1;
	}
	for (size_t i = 0; i < p->npaths; i++) {
		paths[i] = &p->paths[i];
		paths[i]->cost = paths[i]->samples = 0;
	}
	for (size_t i = 0; i < a->nhits; i++)
		hits[i] = &a->hits[i];
	qsort(paths, p->npaths, sizeof(*paths), path_key_order);
	qsort(hits, a->nhits, sizeof(*hits), hit_key_order);
	p->total_samples = 0;
	for (size_t i = 0, k = 0; i < a->nhits; i++) {
		const struct cost_hit *h = hits[i];
		int c = -1;
		while (k < p->npaths && (c = key_cmp(paths[k]->pid, paths[k]->gen, paths[k]->fn,
						     paths[k]->is_block, paths[k]->id, h->pid,
						     h->gen, h->fn, h->is_block, h->value)) < 0)
			k++;
		if (k < p->npaths && c == 0) {
			paths[k]->cost += h->weight;
			paths[k]->samples++;
			p->total_samples++;
		}
	}
	free(paths);
	free(hits);
	p->cost_unit = unit;
	p->cost_estimated = 1;
	if (profile_totals(p) < 0) {
		wpp_err("out of memory");
		return -1;
	}
	return 0;
}
