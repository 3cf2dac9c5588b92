/* SPDX-License-Identifier: MIT */
/*
 * map_walk.h — visiting every entry of a BPF hash map keyed by a u32 (a
 * tid or a pid) from user space.
 *
 * Why: the collector walks three such tables at the end of collection and
 * on back-pressure (positions, threads, paused), each the same way.  The
 * walk follows bpf_map_get_next_key, which starts again from the first key
 * when the one it is given is gone: a table the probes change under the
 * walk may show an entry twice, or not show one added meanwhile.  Every
 * caller copes with both (a second visit finds its work done).
 */
#ifndef WPP_BC_MAP_WALK_H
#define WPP_BC_MAP_WALK_H

#include <stdint.h>

/* Called with each entry's key and its value, read into the walk's buffer. */
typedef void (*map_walk_fn)(void *ctx, uint32_t key, const void *value);

/* fn(ctx, key, value) for every entry of the map at fd whose value could be
 * read into `value` (the map's value size); an entry deleted between the
 * key and the read is skipped.  The number of entries visited. */
unsigned map_walk_u32(int fd, void *value, map_walk_fn fn, void *ctx);

#endif
