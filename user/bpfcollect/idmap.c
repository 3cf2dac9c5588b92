/* SPDX-License-Identifier: MIT */
/* idmap.c — linear probing with backward-shift deletion (no tombstones, so
 * tables that churn through many short-lived threads stay fast). */
#include "bpfcollect/idmap.h"

#include <errno.h>
#include <stdlib.h>

static size_t slot_of(const struct idmap *m, uint64_t key)
{
	uint64_t h = key * UINT64_C(0x9e3779b97f4a7c15);
	return (size_t)(h >> 32) & (m->cap - 1);
}

void *idmap_get(const struct idmap *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = slot_of(m, key);; i = (i + 1) & (m->cap - 1)) {
		if (!m->vals[i])
			return NULL;
		if (m->keys[i] == key)
			return m->vals[i];
	}
}

static int grow(struct idmap *m)
{
	struct idmap bigger = {.cap = m->cap ? m->cap * 2 : 64};
	bigger.keys = calloc(bigger.cap, sizeof(*bigger.keys));
	bigger.vals = calloc(bigger.cap, sizeof(*bigger.vals));
	if (!bigger.keys || !bigger.vals) {
		free(bigger.keys);
		free(bigger.vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i])
			idmap_put(&bigger, m->keys[i], m->vals[i]);
	free(m->keys);
	free(m->vals);
	*m = bigger;
	return 0;
}

int idmap_put(struct idmap *m, uint64_t key, void *val)
{
	if ((m->len + 1) * 4 > m->cap * 3) {
		int err = grow(m);
		if (err)
			return err;
	}
	size_t i = slot_of(m, key);
	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	if (!m->vals[i])
		m->len++;
	m->keys[i] = key;
	m->vals[i] = val;
	return 0;
}

void *idmap_del(struct idmap *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	size_t i = slot_of(m, key);
	while (m->vals[i] && m->keys[i] != key)
		i = (i + 1) & (m->cap - 1);
	void *val = m->vals[i];
	if (!val)
		return NULL;
	m->vals[i] = NULL;
	m->len--;
	/* Shift later members of the probe run back so lookups never stop
	 * early at the hole. */
	for (size_t j = (i + 1) & (m->cap - 1); m->vals[j]; j = (j + 1) & (m->cap - 1)) {
		size_t home = slot_of(m, m->keys[j]);
		int between = i <= j ? (i < home && home <= j) : (i < home || home <= j);
		if (between)
			continue;
		m->keys[i] = m->keys[j];
		m->vals[i] = m->vals[j];
		m->vals[j] = NULL;
		i = j;
	}
	return val;
}

void idmap_each(const struct idmap *m, void (*fn)(uint64_t key, void *val, void *arg), void *arg)
{
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i])
			fn(m->keys[i], m->vals[i], arg);
}

void idmap_free(struct idmap *m)
{
	free(m->keys);
	free(m->vals);
	m->keys = NULL;
	m->vals = NULL;
	m->cap = m->len = 0;
}
