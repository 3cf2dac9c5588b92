/* SPDX-License-Identifier: MIT */
/*
 * map_walk.c — every entry of a u32-keyed BPF hash map (map_walk.h).
 */
#include <bpf/bpf.h>

#include "bpfcollect/map_walk.h"

unsigned map_walk_u32(int fd, void *value, map_walk_fn fn, void *ctx)
{
	uint32_t key, next, *prev = NULL;
	unsigned visited = 0;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, value) == 0) {
			fn(ctx, key, value);
			visited++;
		}
	}
	return visited;
}
