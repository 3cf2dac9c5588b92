/* SPDX-License-Identifier: MIT */
/*
 * kslab_map.c — label -> node index table (see kslab_map.h).
 */
#include "analysis/kpaths/kslab_map.h"

#include <stdlib.h>

static size_t home(const struct kslab_map *m, const void *pool, uint32_t idx)
{
	uint32_t fid;
	uint64_t value;

	m->label(pool, idx, &fid, &value);
	return (size_t)kslab_label_hash(fid, value) & (m->cap - 1);
}

uint32_t kslab_map_find(struct kslab_map *m, const void *pool, uint32_t fid, uint64_t value)
{
	m->lookups++;
	if (!m->cap)
		return 0;
	for (size_t i = (size_t)kslab_label_hash(fid, value) & (m->cap - 1);;
	     i = (i + 1) & (m->cap - 1)) {
		uint32_t idx = m->slots[i], f;
		uint64_t v;
		if (!idx)
			return 0;
		m->label(pool, idx, &f, &v);
		if (f == fid && v == value)
			return idx;
	}
}

static void place(struct kslab_map *m, const void *pool, uint32_t idx)
{
	size_t i = home(m, pool, idx);

	while (m->slots[i])
		i = (i + 1) & (m->cap - 1);
	m->slots[i] = idx;
}

static int grow(struct kslab_map *m, const void *pool)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	uint32_t *old = m->slots;
	size_t ocap = m->cap;

	m->slots = calloc(ncap, sizeof(*m->slots));
	if (!m->slots) {
		m->slots = old;
		return -1;
	}
	m->cap = ncap;
	for (size_t i = 0; i < ocap; i++)
		if (old[i])
			place(m, pool, old[i]);
	free(old);
	return 0;
}

int kslab_map_insert(struct kslab_map *m, const void *pool, uint32_t idx)
{
	/* Load at most 1/2: probes stay short on the every-(k-1)-items path. */
	if ((m->n + 1) * 2 > m->cap && grow(m, pool) < 0)
		return -1;
	place(m, pool, idx);
	m->n++;
	return 0;
}

void kslab_map_remove(struct kslab_map *m, const void *pool, uint32_t idx)
{
	size_t i = home(m, pool, idx), j;

	while (m->slots[i] != idx)
		i = (i + 1) & (m->cap - 1);
	/* Backward shift: pull later entries of the cluster into the hole when
	 * their home position does not lie cyclically in (hole, their slot]. */
	for (j = i;;) {
		size_t h;
		j = (j + 1) & (m->cap - 1);
		if (!m->slots[j])
			break;
		h = home(m, pool, m->slots[j]);
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		m->slots[i] = m->slots[j];
		i = j;
	}
	m->slots[i] = 0;
	m->n--;
}

void kslab_map_free(struct kslab_map *m)
{
	free(m->slots);
	*m = (struct kslab_map){.label = m->label};
}
