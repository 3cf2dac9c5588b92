/* SPDX-License-Identifier: MIT */
/*
 * kipf_kinds_live.c — path kinds from the modules registered so far (see
 * kipf_kinds_live.h).  Images and their modules are few: plain arrays,
 * searched linearly, and only when the per-image cache misses.
 */
#include "collect/kipf_kinds_live.h"

#include <stdlib.h>

#include "analysis/kpaths/kipf_kinds.h"
#include "analysis/kpaths/kslab_act.h"
#include "symbolizer/symbolizer.h"

/* Inheritance chains longer than this are treated as cycles (module_map.c). */
#define MAX_FORK_DEPTH 64

struct live_range {
	uint32_t base, n;
	const struct wpp_tu *tu; /* NULL: no usable metadata */
};

struct live_image {
	uint32_t pid, generation;
	int forked;
	uint32_t ppid, pgen;
	struct live_range *ranges; /* in arrival order: the first one wins */
	size_t nranges, cap;
	struct kipf_kinds cache; /* resolved paths only */
};

struct kinds_live {
	struct wpp_symbolizer *sym;
	struct live_image **images;
	size_t n, cap;
	struct live_image *last;      /* most records come from one image in a row */
	const struct wpp_tu *counted; /* the first -fwpp-mode=count unit told */
};

static void quiet(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

struct kinds_live *kinds_live_new(void)
{
	struct kinds_live *kl = calloc(1, sizeof(*kl));

	if (!kl || !(kl->sym = wpp_sym_new())) {
		free(kl);
		return NULL;
	}
	wpp_sym_set_reporter(kl->sym, quiet, NULL);
	return kl;
}

void kinds_live_free(struct kinds_live *kl)
{
	if (!kl)
		return;
	for (size_t i = 0; i < kl->n; i++) {
		free(kl->images[i]->ranges);
		kipf_kinds_free(&kl->images[i]->cache);
		free(kl->images[i]);
	}
	free(kl->images);
	wpp_sym_free(kl->sym);
	free(kl);
}

static struct live_image *find_image(const struct kinds_live *kl, uint32_t pid, uint32_t gen)
{
	for (size_t i = 0; i < kl->n; i++)
		if (kl->images[i]->pid == pid && kl->images[i]->generation == gen)
			return kl->images[i];
	return NULL;
}

static struct live_image *image(struct kinds_live *kl, uint32_t pid, uint32_t gen)
{
	struct live_image *im = find_image(kl, pid, gen);

	if (im)
		return im;
	if (kl->n == kl->cap) {
		size_t cap = kl->cap ? kl->cap * 2 : 8;
		struct live_image **bigger = realloc(kl->images, cap * sizeof(*bigger));
		if (!bigger)
			return NULL;
		kl->images = bigger;
		kl->cap = cap;
	}
	im = calloc(1, sizeof(*im));
	if (!im)
		return NULL;
	im->pid = pid;
	im->generation = gen;
	kl->images[kl->n++] = im;
	return im;
}

int kinds_live_module(struct kinds_live *kl, const struct wpp_chunk_module *m, const char *path)
{
	struct live_image *im = image(kl, m->pid, m->generation);

	if (!im)
		return -1;
	if (m->nfuncs == 0)
		return 0;
	/* A range overlapping one already kept is dropped (module_map.c). */
	for (size_t i = 0; i < im->nranges; i++)
		if ((uint64_t)m->fid_base < (uint64_t)im->ranges[i].base + im->ranges[i].n &&
		    (uint64_t)im->ranges[i].base < (uint64_t)m->fid_base + m->nfuncs)
			return 0;
	if (im->nranges == im->cap) {
		size_t cap = im->cap ? im->cap * 2 : 8;
		struct live_range *bigger = realloc(im->ranges, cap * sizeof(*bigger));
		if (!bigger)
			return -1;
		im->ranges = bigger;
		im->cap = cap;
	}
	im->ranges[im->nranges++] = (struct live_range){
	    .base = m->fid_base,
	    .n = m->nfuncs,
	    .tu = wpp_sym_tu(kl->sym, path, m->build_id,
			     m->build_id_len > sizeof(m->build_id) ? 0 : m->build_id_len,
			     m->tu_hash)};
	const struct wpp_tu *tu = im->ranges[im->nranges - 1].tu;
	if (!kl->counted && tu && wpp_meta_mode_counts(tu->mode))
		kl->counted = tu;
	return 0;
}

const char *kinds_live_first_counted(const struct kinds_live *kl)
{
	if (!kl || !kl->counted)
		return NULL;
	return kl->counted->source && *kl->counted->source ? kl->counted->source : "a unit";
}

int kinds_live_process(struct kinds_live *kl, const struct wpp_chunk_process *p)
{
	const struct live_image *parent = NULL;
	struct live_image *im;

	/* The latest image of the parent pid seen so far is the one that forked. */
	for (size_t i = 0; i < kl->n; i++)
		if (kl->images[i]->pid == p->ppid)
			parent = kl->images[i];
	im = image(kl, p->pid, p->generation);
	if (!im)
		return -1;
	im->forked = (p->flags & WPP_PROC_FORKED) && parent;
	if (im->forked) {
		im->ppid = parent->pid;
		im->pgen = parent->generation;
	}
	return 0;
}

/* The function fid names in im (or the images it was forked from). */
static const struct wpp_fn *resolve(const struct kinds_live *kl, const struct live_image *im,
				    uint32_t fid)
{
	for (int depth = 0; im && depth < MAX_FORK_DEPTH; depth++) {
		for (size_t i = 0; i < im->nranges; i++) {
			const struct live_range *r = &im->ranges[i];
			uint32_t local = fid - r->base;
			if (fid < r->base || local >= r->n)
				continue;
			if (!r->tu || local >= r->tu->nfuncs)
				return NULL;
			return r->tu->by_local[local];
		}
		im = im->forked ? find_image(kl, im->ppid, im->pgen) : NULL;
	}
	return NULL;
}

int kinds_live_kinds(struct kinds_live *kl, uint32_t pid, uint32_t generation, uint32_t fid,
		     uint64_t id)
{
	struct live_image *im = kl->last;
	const struct wpp_fn *fn;
	int flags;

	if (!im || im->pid != pid || im->generation != generation) {
		im = find_image(kl, pid, generation);
		if (!im)
			return KACT_UNKNOWN;
		kl->last = im;
	}
	flags = kipf_kinds_find(&im->cache, fid, id);
	if (flags >= 0)
		return flags;
	fn = resolve(kl, im, fid);
	/* Blocks-mode records name blocks, not paths (offline: BLOCK events). */
	if (!fn || fn->tu->mode == WPP_MODE_BLOCKS)
		return KACT_UNKNOWN;
	return kipf_kinds_of(&im->cache, fn, fid, id);
}

static int source_kinds(void *ctx, const struct wpp_thread_key *key, uint32_t fid, uint64_t id)
{
	return kinds_live_kinds(ctx, key->pid, key->generation, fid, id);
}

struct kslab_kinds_source kinds_live_source(struct kinds_live *kl)
{
	return (struct kslab_kinds_source){.kinds = source_kinds, .ctx = kl};
}
