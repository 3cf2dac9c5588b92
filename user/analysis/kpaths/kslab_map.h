/* SPDX-License-Identifier: MIT */
/*
 * kslab_map.h — the root table of the k-slab and k-IPF forests: a map from a
 * path label (fid, value) to a node index (non-zero uint32_t).
 *
 * Open addressing with linear probing and backward-shift deletion (no
 * tombstones, so a table that sees many prune/re-create cycles never
 * degrades).  The table does not know the nodes: callers pass a label
 * reader so one map serves both forests.
 */
#ifndef WPP_KSLAB_MAP_H
#define WPP_KSLAB_MAP_H

#include <stddef.h>
#include <stdint.h>

/* Reads the label of node idx from the caller's node pool. */
typedef void (*kslab_label_fn)(const void *pool, uint32_t idx, uint32_t *fid, uint64_t *value);

struct kslab_map {
	uint32_t *slots; /* node index, 0 = empty */
	size_t cap;	 /* power of two (0 before the first insert) */
	size_t n;
	kslab_label_fn label;
	uint64_t lookups; /* statistics: find() calls */
};

static inline uint64_t kslab_label_hash(uint32_t fid, uint64_t value)
{
	uint64_t h = value * 0x9e3779b97f4a7c15u ^ ((uint64_t)fid * 0xc2b2ae3d27d4eb4fu);
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93u;
	return h ^ (h >> 32);
}

/* Node index of the label, or 0. */
uint32_t kslab_map_find(struct kslab_map *m, const void *pool, uint32_t fid, uint64_t value);
/* Insert idx (its label must not be present).  0, or -1 on allocation failure. */
int kslab_map_insert(struct kslab_map *m, const void *pool, uint32_t idx);
/* Remove idx (present).  */
void kslab_map_remove(struct kslab_map *m, const void *pool, uint32_t idx);
void kslab_map_free(struct kslab_map *m);

#endif
