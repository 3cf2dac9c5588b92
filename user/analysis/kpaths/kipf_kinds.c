/* SPDX-License-Identifier: MIT */
/*
 * kipf_kinds.c — cached path start/end kinds (see kipf_kinds.h).
 */
#include "analysis/kpaths/kipf_kinds.h"

#include <stdlib.h>

#include "analysis/kpaths/kslab_act.h"
#include "analysis/kpaths/kslab_map.h"
#include "decode/path_regen.h"

static int grow(struct kipf_kinds *c)
{
	size_t ncap = c->cap ? c->cap * 2 : 256;
	struct kipf_kinds_slot *ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -1;
	for (size_t i = 0; i < c->cap; i++) {
		struct kipf_kinds_slot *o = &c->slots[i];
		if (!o->fid)
			continue;
		size_t j = kslab_label_hash(o->fid, o->value) & (ncap - 1);
		while (ns[j].fid)
			j = (j + 1) & (ncap - 1);
		ns[j] = *o;
	}
	free(c->slots);
	c->slots = ns;
	c->cap = ncap;
	return 0;
}

/* Regenerate the path to read its ENTRY and EXIT edge kinds. */
static int compute(struct kipf_kinds *c, const struct wpp_fn *fn, uint64_t id)
{
	struct wpp_path p;
	uint32_t need = fn->nblocks + 1;
	unsigned flags = 0;

	if (need > c->blocks_cap) {
		uint32_t *nb = realloc(c->blocks, (size_t)need * sizeof(*nb));
		if (!nb)
			return -1;
		c->blocks = nb;
		c->blocks_cap = need;
	}
	if (wpp_path_expand(fn, id, c->blocks, need, &p) < 0)
		return KACT_UNKNOWN;
	if (p.start == WPP_START_ENTRY)
		flags |= KACT_ENTRY;
	if (p.end == WPP_END_RETURN)
		flags |= KACT_RETURN;
	return (int)flags;
}

int kipf_kinds_find(const struct kipf_kinds *c, uint32_t fid, uint64_t id)
{
	if (c->cap)
		for (size_t i = kslab_label_hash(fid, id) & (c->cap - 1); c->slots[i].fid;
		     i = (i + 1) & (c->cap - 1))
			if (c->slots[i].fid == fid && c->slots[i].value == id)
				return (int)c->slots[i].flags;
	return -1;
}

int kipf_kinds_of(struct kipf_kinds *c, const struct wpp_fn *fn, uint32_t fid, uint64_t id)
{
	size_t i;
	int flags = kipf_kinds_find(c, fid, id);

	if (flags >= 0)
		return flags;
	flags = compute(c, fn, id);
	if (flags < 0)
		return -1;
	if ((c->n + 1) * 2 > c->cap && grow(c) < 0)
		return -1;
	for (i = kslab_label_hash(fid, id) & (c->cap - 1); c->slots[i].fid;
	     i = (i + 1) & (c->cap - 1))
		;
	c->slots[i] = (struct kipf_kinds_slot){.value = id, .fid = fid, .flags = (uint32_t)flags};
	c->n++;
	return flags;
}

void kipf_kinds_free(struct kipf_kinds *c)
{
	free(c->slots);
	free(c->blocks);
	*c = (struct kipf_kinds){0};
}
