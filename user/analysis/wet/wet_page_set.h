/* SPDX-License-Identifier: MIT */
/*
 * wet_page_set.h — a set of shadow pages (WET_SHADOW_PAGE-sized address
 * ranges): the pages other threads of a process store to.  Both the
 * cross-thread order (wet_xorder.c) and the commands that collect those
 * stores (cli/wet_obtain.c) ask "does another thread touch this page?"
 * once per load, so it is an open-addressing table of page + 1 (0 empty),
 * at most half full, rehashed on growth.
 */
#ifndef WPP_WET_PAGE_SET_H
#define WPP_WET_PAGE_SET_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

struct wet_page_set {
	uint64_t *v; /* page + 1, 0 empty; cap a power of two */
	size_t cap, n;
};

static inline int wet_page_set_has(const struct wet_page_set *s, uint64_t page)
{
	if (!s->cap)
		return 0;
	for (size_t j = (page * UINT64_C(0x9e3779b97f4a7c15)) & (s->cap - 1); s->v[j];
	     j = (j + 1) & (s->cap - 1))
		if (s->v[j] == page + 1)
			return 1;
	return 0;
}

/* Adds page: 0, or -1 out of memory (the set as it was). */
static inline int wet_page_set_add(struct wet_page_set *s, uint64_t page)
{
	if (wet_page_set_has(s, page))
		return 0;
	if ((s->n + 1) * 2 > s->cap) {
		struct wet_page_set g = {.cap = s->cap ? 2 * s->cap : 1024};
		g.v = calloc(g.cap, sizeof(*g.v));
		if (!g.v)
			return -1;
		for (size_t j = 0; j < s->cap; j++)
			if (s->v[j])
				wet_page_set_add(&g, s->v[j] - 1); /* half full: no growth */
		free(s->v);
		*s = g;
	}
	size_t j = (page * UINT64_C(0x9e3779b97f4a7c15)) & (s->cap - 1);
	while (s->v[j])
		j = (j + 1) & (s->cap - 1);
	s->v[j] = page + 1;
	s->n++;
	return 0;
}

static inline void wet_page_set_free(struct wet_page_set *s)
{
	free(s->v);
	*s = (struct wet_page_set){0};
}

#endif
