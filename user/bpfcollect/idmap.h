/* SPDX-License-Identifier: MIT */
/*
 * idmap.h — a small open-addressing hash map from a 64-bit id (stream id,
 * pid, tid) to a pointer, for the collector's tables.  Not thread-safe: the
 * collector touches its tables only under its demux lock.
 */
#ifndef WPP_BC_IDMAP_H
#define WPP_BC_IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct idmap {
	uint64_t *keys;
	void **vals; /* NULL = empty slot */
	size_t cap;  /* power of two */
	size_t len;
};

void *idmap_get(const struct idmap *m, uint64_t key);
/* Insert or replace; 0 or -ENOMEM.  val must not be NULL. */
int idmap_put(struct idmap *m, uint64_t key, void *val);
/* Remove and return the value (NULL if absent). */
void *idmap_del(struct idmap *m, uint64_t key);
/* Visit every entry; fn may not modify the map. */
void idmap_each(const struct idmap *m, void (*fn)(uint64_t key, void *val, void *arg), void *arg);
void idmap_free(struct idmap *m);

#endif
