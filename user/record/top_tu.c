/* SPDX-License-Identifier: MIT */
/* top_tu.c — interned TUs and their metadata (see top_tu.h). */
#include "record/top_tu.h"

#include <stdlib.h>
#include <string.h>

#include "symbolizer/meta_model.h"
#include "common/array_grow.h"

struct top_tus {
	struct top_tu **v;
	size_t n, cap;
};

struct top_tus *top_tus_new(void)
{
	return calloc(1, sizeof(struct top_tus));
}

void top_tus_free(struct top_tus *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free((char *)t->v[i]->path);
		free(t->v[i]);
	}
	free(t->v);
	free(t);
}

static int same(const struct top_tu *a, const struct top_tu *b)
{
	return a->fid_base == b->fid_base && a->nfuncs == b->nfuncs && a->tu_hash == b->tu_hash &&
	       a->build_id_len == b->build_id_len &&
	       memcmp(a->build_id, b->build_id, a->build_id_len) == 0 &&
	       strcmp(a->path, b->path) == 0;
}

const struct top_tu *top_tus_intern(struct top_tus *t, const struct top_tu *tu)
{
	for (size_t i = t->n; i-- > 0;) /* the newest first: a process's TUs come together */
		if (same(t->v[i], tu))
			return t->v[i];
	if (ARRAY_GROW(t->v, t->cap, t->n + 1, 32))
		return NULL;
	struct top_tu *copy = malloc(sizeof(*copy));
	char *path = strdup(tu->path);
	if (!copy || !path) {
		free(copy);
		free(path);
		return NULL;
	}
	*copy = *tu;
	copy->build_id_len = tu->build_id_len > 20 ? 20 : tu->build_id_len;
	copy->path = path;
	t->v[t->n++] = copy;
	return copy;
}

static const struct wpp_tu *model(struct wpp_symbolizer *sym, struct top_tu_cache *cache,
				  const struct top_tu *tu)
{
	if (cache && cache->tu == tu)
		return cache->model;
	const struct wpp_tu *m =
	    tu->path[0] ? wpp_sym_tu(sym, tu->path, tu->build_id, tu->build_id_len, tu->tu_hash)
			: NULL;
	if (cache)
		*cache = (struct top_tu_cache){tu, m};
	return m;
}

const struct wpp_fn *top_tu_fn(struct wpp_symbolizer *sym, struct top_tu_cache *cache,
			       const struct top_tu *tu, uint32_t fid)
{
	if (fid < tu->fid_base || fid - tu->fid_base >= tu->nfuncs)
		return NULL;
	const struct wpp_tu *m = model(sym, cache, tu);
	if (!m || fid - tu->fid_base >= m->nfuncs)
		return NULL;
	return m->by_local[fid - tu->fid_base];
}

int top_tu_mode(struct wpp_symbolizer *sym, struct top_tu_cache *cache, const struct top_tu *tu)
{
	const struct wpp_tu *m = model(sym, cache, tu);
	return m ? (int)m->mode : 0;
}

int top_tu_binary_cmp(const struct top_tu *a, const struct top_tu *b)
{
	/* TUs with a build-id first, by build-id; the others by path */
	if (!a->build_id_len != !b->build_id_len)
		return a->build_id_len ? -1 : 1;
	int c = a->build_id_len ? (a->build_id_len != b->build_id_len
				       ? (a->build_id_len < b->build_id_len ? -1 : 1)
				       : memcmp(a->build_id, b->build_id, a->build_id_len))
				: strcmp(a->path, b->path);
	if (c)
		return c;
	return (a->tu_hash > b->tu_hash) - (a->tu_hash < b->tu_hash);
}
