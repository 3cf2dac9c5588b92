/* SPDX-License-Identifier: MIT */
/*
 * kslab.c — streaming k-SF construction (see kslab.h; the paper's Figure 6).
 */
#include "analysis/kpaths/kslab_internal.h"

#include <stdlib.h>

void kslab_node_label(const void *pool, uint32_t idx, uint32_t *fid, uint64_t *value)
{
	const struct kslab_node *n = (const struct kslab_node *)pool + idx;
	*fid = n->fid;
	*value = n->value;
}

struct kslab *kslab_new(unsigned k, uint64_t max_nodes)
{
	struct kslab *s;

	if (k < 1 || k > KSLAB_MAX_K || (max_nodes && max_nodes < 8u * k) ||
	    max_nodes > UINT32_MAX / 2)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->k = k;
	s->slab = (k < 2 ? 2 : k) - 1;
	s->max_nodes = max_nodes;
	s->prune_at = max_nodes;
	s->roots.label = kslab_node_label;
	s->used = 1; /* index 0 is "none" */
	return s;
}

void kslab_free(struct kslab *s)
{
	if (!s)
		return;
	kslab_map_free(&s->roots);
	free(s->saved);
	free(s->nodes);
	free(s);
}

unsigned kslab_k(const struct kslab *s)
{
	return s->k;
}
int kslab_failed(const struct kslab *s)
{
	return s->failed;
}

const struct kslab_stats *kslab_stats(const struct kslab *s)
{
	return &s->st;
}

/* A fresh node, or 0 when memory ran out (s->failed is set). */
static uint32_t new_node(struct kslab *s, uint32_t fid, uint64_t value)
{
	uint32_t idx;

	if (s->free_list) {
		idx = s->free_list;
		s->free_list = s->nodes[idx].sibling;
	} else {
		if (s->used >= s->cap) {
			uint32_t ncap = s->cap ? s->cap * 2 : 1024;
			struct kslab_node *nn;
			if (ncap <= s->cap ||
			    !(nn = realloc(s->nodes, (size_t)ncap * sizeof(*nn)))) {
				s->failed = 1;
				return 0;
			}
			s->nodes = nn;
			s->cap = ncap;
		}
		idx = s->used++;
	}
	s->nodes[idx] = (struct kslab_node){.fid = fid, .value = value};
	if (++s->st.nodes > s->st.peak_nodes)
		s->st.peak_nodes = s->st.nodes;
	return idx;
}

/* The child of parent labelled (fid, value), created if missing.  A found
 * child moves to the front of the sibling list: hot successors are found
 * after one comparison, which is what keeps the per-item cost near O(1). */
static uint32_t child(struct kslab *s, uint32_t parent, uint32_t fid, uint64_t value)
{
	struct kslab_node *p = &s->nodes[parent];
	uint32_t prev = 0, c;

	for (c = p->child; c; prev = c, c = s->nodes[c].sibling) {
		struct kslab_node *n = &s->nodes[c];
		if (n->value == value && n->fid == fid) {
			if (prev) {
				s->nodes[prev].sibling = n->sibling;
				n->sibling = p->child;
				p->child = c;
			}
			return c;
		}
	}
	c = new_node(s, fid, value);
	if (!c)
		return 0;
	/* new_node may have moved the array. */
	s->nodes[c].sibling = s->nodes[parent].child;
	s->nodes[parent].child = c;
	return c;
}

static uint32_t root(struct kslab *s, uint32_t fid, uint64_t value)
{
	uint32_t r = kslab_map_find(&s->roots, s->nodes, fid, value);

	s->st.root_lookups++;
	if (r)
		return r;
	r = new_node(s, fid, value);
	if (r && kslab_map_insert(&s->roots, s->nodes, r) < 0) {
		s->failed = 1;
		return 0;
	}
	return r;
}

void kslab_mark(struct kslab *s)
{
	s->cur = (struct kslab_cursor){.stream = ++s->streams};
	s->st.marks++;
}

int kslab_push(struct kslab *s)
{
	if (s->nsaved == s->saved_cap) {
		uint32_t ncap = s->saved_cap ? s->saved_cap * 2 : 64;
		struct kslab_cursor *ns;
		if (ncap <= s->saved_cap || !(ns = realloc(s->saved, ncap * sizeof(*ns)))) {
			s->failed = 1;
			return -1;
		}
		s->saved = ns;
		s->saved_cap = ncap;
	}
	s->saved[s->nsaved++] = s->cur;
	kslab_mark(s);
	return 0;
}

void kslab_pop(struct kslab *s)
{
	if (s->nsaved)
		s->cur = s->saved[--s->nsaved];
	else
		kslab_mark(s);
}

void kslab_drop_all(struct kslab *s)
{
	s->nsaved = 0;
	kslab_mark(s);
}

uint32_t kslab_depth(const struct kslab *s)
{
	return s->nsaved;
}

uint64_t kslab_item_stream(const struct kslab *s)
{
	return s->item_stream;
}

uint64_t kslab_suspended_stream(const struct kslab *s, uint32_t i)
{
	return s->saved[i].stream;
}

int kslab_item(struct kslab *s, uint32_t fid, uint64_t value)
{
	if (s->failed)
		return -1;
	s->item_stream = s->cur.stream;
	if (s->cur.n == 0) {
		/* A new slab: the bottom pointer continues below the slab just
		 * finished (Figure 6 lines 6-11); the top pointer restarts at a root. */
		s->cur.bottom = s->cur.top;
		s->cur.top = root(s, fid, value);
	} else {
		s->cur.top = child(s, s->cur.top, fid, value);
	}
	if (!s->cur.top)
		return -1;
	if (s->cur.bottom) {
		s->cur.bottom = child(s, s->cur.bottom, fid, value);
		if (!s->cur.bottom)
			return -1;
		s->nodes[s->cur.bottom].count++;
	} else {
		s->nodes[s->cur.top].count++;
	}
	if (++s->cur.n == s->slab)
		s->cur.n = 0;
	s->st.items++;
	if (s->max_nodes && s->st.nodes > s->prune_at)
		kslab_prune(s);
	return 0;
}

/*
 * Why whole slabs of one label x can be skipped: at a slab boundary (n == 0)
 * whose previous slab was all x, the top pointer restarts at root(x) and
 * walks the same x-chain as before, so it ends on the node it starts the
 * slab below; the bottom pointer starts below that node and walks its
 * x-chain B1..B(k-1), incrementing each once.  The cursor after the slab is
 * the cursor before it, so every further whole slab increments B1..B(k-1)
 * again and changes nothing else (no node is created, so no pruning either,
 * unless the forest already sits above its cap, when each item may prune:
 * then go item by item).
 */
int kslab_item_run(struct kslab *s, uint32_t fid, uint64_t value, uint64_t times)
{
	uint32_t chain[KSLAB_MAX_K];
	uint64_t done = 0, slabs;

	/* Item by item to a boundary that follows a whole slab of x. */
	while (done < times && !(done >= s->slab && s->cur.n == 0)) {
		if (kslab_item(s, fid, value) < 0)
			return -1;
		done++;
	}
	if (times - done < 2 * (uint64_t)s->slab || (s->max_nodes && s->st.nodes > s->prune_at)) {
		for (; done < times; done++)
			if (kslab_item(s, fid, value) < 0)
				return -1;
		return 0;
	}
	/* One slab item by item, noting B1..B(k-1) (never pruned: the last one
	 * is the bottom pointer and the others are its ancestors). */
	for (unsigned i = 0; i < s->slab; i++, done++) {
		if (kslab_item(s, fid, value) < 0)
			return -1;
		chain[i] = s->cur.bottom;
	}
	slabs = (times - done) / s->slab;
	for (unsigned i = 0; i < s->slab; i++)
		s->nodes[chain[i]].count += slabs;
	s->st.items += slabs * s->slab;
	s->st.root_lookups += slabs;
	done += slabs * s->slab;
	for (; done < times; done++)
		if (kslab_item(s, fid, value) < 0)
			return -1;
	return 0;
}
