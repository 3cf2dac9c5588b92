/* SPDX-License-Identifier: MIT */
/* ppp_compact.c — pull preferential ids down into holes (see ppp_compact.h). */
#include "instrument/ppp_compact.h"

#include <stdlib.h>

#include "instrument/dag.h"

/* How many landings one edge may try for the top path. */
#define TRIES_PER_EDGE 65536

/* Ids held, id -> path: linear probing, deletion by backward shift. */
struct id_table {
	int64_t *id;
	uint32_t *path; /* WPP_NONE: empty */
	uint32_t mask;
};

static uint32_t slot_of(const struct id_table *t, int64_t id)
{
	uint64_t h = (uint64_t)id * UINT64_C(0x9e3779b97f4a7c15);
	return (uint32_t)(h >> 32) & t->mask;
}

static uint32_t lookup(const struct id_table *t, int64_t id)
{
	for (uint32_t s = slot_of(t, id);; s = (s + 1) & t->mask)
		if (t->path[s] == WPP_NONE || t->id[s] == id)
			return t->path[s];
}

static void insert(struct id_table *t, int64_t id, uint32_t path)
{
	uint32_t s = slot_of(t, id);
	while (t->path[s] != WPP_NONE)
		s = (s + 1) & t->mask;
	t->id[s] = id, t->path[s] = path;
}

static void erase(struct id_table *t, int64_t id)
{
	uint32_t s = slot_of(t, id);
	while (t->id[s] != id || t->path[s] == WPP_NONE)
		s = (s + 1) & t->mask;
	t->path[s] = WPP_NONE;
	/* move later entries of the run back so every lookup still finds them */
	for (uint32_t j = (s + 1) & t->mask; t->path[j] != WPP_NONE; j = (j + 1) & t->mask) {
		uint32_t home = slot_of(t, t->id[j]);
		/* j's entry may fill s unless its home lies cyclically in (s, j] */
		if (((j - home) & t->mask) >= ((j - s) & t->mask)) {
			t->id[s] = t->id[j], t->path[s] = t->path[j];
			t->path[j] = WPP_NONE;
			s = j;
		}
	}
}

struct compact_work {
	const struct wpp_ppp_compact_in *in;
	int64_t *pid;
	struct id_table t;
	uint32_t *pstart, *pedges; /* edges of path p: pedges[pstart[p] .. pstart[p + 1]) */
	uint32_t *mark, stamp;	   /* mark[p] == stamp: p moves with the edge tried */
	int64_t *budget;
};

/* The lowest shift (< 0) that lands all of e's paths on free ids >= 0,
 * or 0; stops early once it cannot beat `beat`. */
static int64_t lowest_shift(struct compact_work *c, uint32_t e, int64_t beat)
{
	const struct wpp_ppp_compact_in *in = c->in;
	const uint32_t *s = in->epaths + in->estart[e];
	uint32_t n = in->estart[e + 1] - in->estart[e];
	int64_t min = INT64_MAX;

	c->stamp++;
	for (uint32_t k = 0; k < n; k++) {
		c->mark[s[k]] = c->stamp;
		min = c->pid[s[k]] < min ? c->pid[s[k]] : min;
	}
	for (int64_t shift = -min, tries = 0; shift < 0 && shift < beat && tries < TRIES_PER_EDGE;
	     shift++, tries++) {
		uint32_t k = 0;
		for (; k < n; k++) {
			uint32_t q = lookup(&c->t, c->pid[s[k]] + shift);
			if (q != WPP_NONE && c->mark[q] != c->stamp)
				break;
		}
		*c->budget -= k + 1;
		if (k == n)
			return shift;
		if (*c->budget < 0)
			break;
	}
	return 0;
}

static void move_edge(struct compact_work *c, uint32_t e, int64_t shift, int64_t *weight)
{
	const struct wpp_ppp_compact_in *in = c->in;
	const uint32_t *s = in->epaths + in->estart[e];
	uint32_t n = in->estart[e + 1] - in->estart[e];

	for (uint32_t k = 0; k < n; k++)
		erase(&c->t, c->pid[s[k]]);
	for (uint32_t k = 0; k < n; k++) {
		c->pid[s[k]] += shift;
		insert(&c->t, c->pid[s[k]], s[k]);
	}
	weight[e] += shift;
}

static int compact_begin(struct compact_work *c)
{
	const struct wpp_ppp_compact_in *in = c->in;
	uint32_t np = in->npaths, cap = 16;
	uint64_t nocc = in->estart[in->nedges];

	while (cap < 2 * (uint64_t)np)
		cap *= 2;
	c->t.mask = cap - 1;
	c->t.id = malloc((size_t)cap * sizeof(int64_t));
	c->t.path = malloc((size_t)cap * sizeof(uint32_t));
	c->pstart = calloc((size_t)np + 1, sizeof(uint32_t));
	c->pedges = malloc(((size_t)nocc + 1) * sizeof(uint32_t));
	c->mark = calloc((size_t)np + 1, sizeof(uint32_t));
	if (!c->t.id || !c->t.path || !c->pstart || !c->pedges || !c->mark)
		return -1;
	for (uint32_t k = 0; k < cap; k++)
		c->t.path[k] = WPP_NONE;
	for (uint32_t p = 0; p < np; p++)
		insert(&c->t, c->pid[p], p);
	for (uint64_t k = 0; k < nocc; k++)
		c->pstart[in->epaths[k] + 1]++;
	for (uint32_t p = 0; p < np; p++)
		c->pstart[p + 1] += c->pstart[p];
	uint32_t *fill = c->mark; /* zero now; reset below */
	for (uint32_t e = 0; e < in->nedges; e++)
		for (uint32_t k = in->estart[e]; k < in->estart[e + 1]; k++) {
			uint32_t p = in->epaths[k];
			c->pedges[c->pstart[p] + fill[p]++] = e;
		}
	for (uint32_t p = 0; p < np; p++)
		fill[p] = 0;
	return 0;
}

static void compact_end(struct compact_work *c)
{
	free(c->t.id);
	free(c->t.path);
	free(c->pstart);
	free(c->pedges);
	free(c->mark);
}

/* Every edge's paths as low as they can go, once; whether any moved.
 * Lowering the paths below the top path may make room for it. */
static int settle(struct compact_work *c, int64_t *weight)
{
	int moved = 0;
	for (uint32_t e = 0; e < c->in->nedges && *c->budget > 0; e++) {
		if (c->in->estart[e] == c->in->estart[e + 1])
			continue;
		int64_t shift = lowest_shift(c, e, 0);
		if (shift < 0) {
			move_edge(c, e, shift, weight);
			moved = 1;
		}
	}
	return moved;
}

int wpp_ppp_compact(const struct wpp_ppp_compact_in *in, int64_t *pid, int64_t *weight,
		    int64_t *budget)
{
	struct compact_work c = {.in = in, .pid = pid, .budget = budget};
	uint32_t np = in->npaths;
	int rc = -1;

	if (np < 2) /* nothing to pull down */
		return 0;
	if (compact_begin(&c))
		goto out;
	while (*budget > 0) {
		uint32_t top = 0;
		for (uint32_t p = 1; p < np; p++)
			top = pid[p] > pid[top] ? p : top;
		*budget -= np;
		int64_t best = 0;
		uint32_t best_e = WPP_NONE, best_n = 0;
		for (uint32_t k = c.pstart[top]; k < c.pstart[top + 1]; k++) {
			uint32_t e = c.pedges[k], n = in->estart[e + 1] - in->estart[e];
			int64_t shift = lowest_shift(&c, e, best_e == WPP_NONE ? 0 : best + 1);
			if (shift < 0 &&
			    (best_e == WPP_NONE || shift < best || (shift == best && n < best_n)))
				best = shift, best_e = e, best_n = n;
		}
		if (best_e != WPP_NONE)
			move_edge(&c, best_e, best, weight);
		else if (!settle(&c, weight))
			break;
	}
	rc = 0;
out:
	compact_end(&c);
	return rc;
}
