/* SPDX-License-Identifier: MIT */
/*
 * wet_tier1.c — tier-1 value groups (wet_tier1.h): the paper's grouping
 * rules over input sets, and a streaming pattern builder that numbers each
 * group's distinct value tuples in first-seen order, so unique values are
 * emitted the moment they appear and nothing is held back but the tuples
 * needed to recognize a repeat.
 */
#include "analysis/wet/wet_tier1.h"

#include <stdlib.h>
#include <string.h>

/* --- grouping ------------------------------------------------------------ */

static const uint64_t *set_of(const uint64_t *sets, uint32_t nwords, uint32_t s)
{
	return sets + (size_t)s * nwords;
}

static int set_equal(const uint64_t *a, const uint64_t *b, uint32_t nwords)
{
	return memcmp(a, b, nwords * sizeof(*a)) == 0;
}

/* a is a proper subset of b. */
static int proper_subset(const uint64_t *a, const uint64_t *b, uint32_t nwords)
{
	for (uint32_t i = 0; i < nwords; i++)
		if (a[i] & ~b[i])
			return 0;
	return !set_equal(a, b, nwords);
}

static unsigned set_size(const uint64_t *a, uint32_t nwords)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < nwords; i++)
		n += (unsigned)__builtin_popcountll(a[i]);
	return n;
}

int wet_tier1_groups_from_inputs(uint32_t nstmts, uint32_t nwords, const uint64_t *sets,
				 uint32_t *group)
{
	uint32_t *cls = malloc((nstmts + 1) * sizeof(*cls));
	uint32_t *rep = malloc((nstmts + 1) * sizeof(*rep));   /* class -> first statement */
	uint32_t *into = malloc((nstmts + 1) * sizeof(*into)); /* class -> class it joins */
	uint32_t *num = malloc((nstmts + 1) * sizeof(*num));   /* root class -> group */
	uint32_t ncls = 0, ngroups = 0;

	if (!cls || !rep || !into || !num) {
		free(cls), free(rep), free(into), free(num);
		return -1;
	}
	/* Rule 1: equal input sets, one class. */
	for (uint32_t s = 0; s < nstmts; s++) {
		uint32_t c = 0;

		while (c < ncls &&
		       !set_equal(set_of(sets, nwords, rep[c]), set_of(sets, nwords, s), nwords))
			c++;
		if (c == ncls)
			rep[ncls++] = s;
		cls[s] = c;
	}
	/* Rule 2 (and 3): a class joins its smallest proper superset. */
	for (uint32_t c = 0; c < ncls; c++) {
		const uint64_t *a = set_of(sets, nwords, rep[c]);
		unsigned best_size = ~0u;

		into[c] = c;
		for (uint32_t d = 0; d < ncls; d++) {
			const uint64_t *b = set_of(sets, nwords, rep[d]);

			if (d != c && proper_subset(a, b, nwords) &&
			    set_size(b, nwords) < best_size) {
				best_size = set_size(b, nwords);
				into[c] = d;
			}
		}
	}
	/* Follow the joins to a class that joins nothing (sets grow strictly
	 * along the way, so the walk ends), and number the roots. */
	for (uint32_t c = 0; c < ncls; c++)
		num[c] = UINT32_MAX;
	for (uint32_t s = 0; s < nstmts; s++) {
		uint32_t c = cls[s];

		while (into[c] != c)
			c = into[c];
		if (num[c] == UINT32_MAX)
			num[c] = ngroups++;
		group[s] = num[c];
	}
	free(cls), free(rep), free(into), free(num);
	return (int)ngroups;
}

/* --- building -------------------------------------------------------------- */

static uint64_t tuple_hash(const uint64_t *v, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15u * (n + 1);

	for (uint32_t i = 0; i < n; i++) {
		h = (h ^ v[i]) * 0xbf58476d1ce4e5b9u;
		h ^= h >> 31;
	}
	return h;
}

static int builders_init(struct wet_builder **out, uint32_t n, const struct wet_stream_opts *o)
{
	struct wet_builder *b = calloc(n, sizeof(*b));

	*out = b;
	if (!b)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		if (wet_builder_init(&b[i], o) < 0)
			return -1;
	return 0;
}

static void builders_abort(struct wet_builder **b, uint32_t n)
{
	if (*b)
		for (uint32_t i = 0; i < n; i++)
			wet_builder_abort(&(*b)[i]);
	free(*b);
	*b = NULL;
}

int wet_t1_builder_init(struct wet_t1_builder *b, uint32_t nstmts)
{
	const struct wet_stream_opts uvals = {.seg_len = WET_T1_UVALS_SEG_LEN};

	*b = (struct wet_t1_builder){.nstmts = nstmts, .switch_at = UINT64_MAX};
	if (!nstmts || wet_builder_init(&b->pattern, NULL) < 0 ||
	    builders_init(&b->uvals, nstmts, &uvals) < 0) {
		wet_t1_builder_abort(b);
		return -1;
	}
	return 0;
}

/* From now on every value goes to its statement's direct stream. */
static int switch_to_direct(struct wet_t1_builder *b)
{
	if (builders_init(&b->direct, b->nstmts, NULL) < 0)
		return -1;
	b->switch_at = b->ninst;
	free(b->tuples);
	free(b->map);
	b->tuples = NULL;
	b->map = NULL;
	b->map_cap = 0;
	return 0;
}

static int grow_map(struct wet_t1_builder *b)
{
	uint32_t cap = b->map_cap ? 2 * b->map_cap : 64;
	uint32_t *map = calloc(cap, sizeof(*map));

	if (!map)
		return -1;
	for (uint32_t id = 0; id < b->ntuples; id++) {
		uint32_t slot =
		    (uint32_t)tuple_hash(b->tuples + (size_t)id * b->nstmts, b->nstmts) & (cap - 1);

		while (map[slot])
			slot = (slot + 1) & (cap - 1);
		map[slot] = id + 1;
	}
	free(b->map);
	b->map = map;
	b->map_cap = cap;
	return 0;
}

#define TUPLES_FULL UINT32_MAX /* the caller switches to direct values */
#define NO_MEMORY   (UINT32_MAX - 1)

/* The tuple's id, a new one (its values emitted) if it was not seen. */
static uint32_t tuple_id(struct wet_t1_builder *b, const uint64_t *v)
{
	size_t row = b->nstmts * sizeof(*v);
	uint32_t slot, id;

	if (2 * ((uint64_t)b->ntuples + 1) > b->map_cap && grow_map(b) < 0)
		return NO_MEMORY;
	slot = (uint32_t)tuple_hash(v, b->nstmts) & (b->map_cap - 1);
	for (; b->map[slot]; slot = (slot + 1) & (b->map_cap - 1))
		if (memcmp(b->tuples + (size_t)(b->map[slot] - 1) * b->nstmts, v, row) == 0)
			return b->map[slot] - 1;
	if (b->ntuples == WET_T1_MAX_TUPLES)
		return TUPLES_FULL;
	if (b->ntuples == b->cap_tuples) {
		uint32_t cap = b->cap_tuples ? 2 * b->cap_tuples : 16;
		uint64_t *t = realloc(b->tuples, (size_t)cap * row);

		if (!t)
			return NO_MEMORY;
		b->tuples = t;
		b->cap_tuples = cap;
	}
	id = b->ntuples++;
	memcpy(b->tuples + (size_t)id * b->nstmts, v, row);
	b->map[slot] = id + 1;
	for (uint32_t s = 0; s < b->nstmts; s++)
		if (wet_builder_add(&b->uvals[s], v[s]) < 0)
			return NO_MEMORY;
	return id;
}

int wet_t1_builder_add(struct wet_t1_builder *b, const uint64_t *values)
{
	if (b->switch_at == UINT64_MAX) {
		uint32_t id = tuple_id(b, values);

		if (id == NO_MEMORY)
			return -1;
		if (id == TUPLES_FULL) {
			if (switch_to_direct(b) < 0)
				return -1;
		} else {
			if (wet_builder_add(&b->pattern, id) < 0)
				return -1;
			b->ninst++;
			if (b->ninst % WET_T1_CHECK_EVERY)
				return 0;
			/* Judge the last window only: a group that repeated for a
			 * long time and stopped switches as soon as it stops. */
			if (2 * (b->ntuples - b->ntuples_at_check) > WET_T1_CHECK_EVERY)
				return switch_to_direct(b);
			b->ntuples_at_check = b->ntuples;
			return 0;
		}
	}
	for (uint32_t s = 0; s < b->nstmts; s++)
		if (wet_builder_add(&b->direct[s], values[s]) < 0)
			return -1;
	b->ninst++;
	return 0;
}

static int finish_all(struct wet_builder *b, uint32_t n, struct wet_stream ***out)
{
	*out = calloc(n, sizeof(**out));
	if (!*out)
		return -1;
	for (uint32_t i = 0; i < n; i++)
		if (!((*out)[i] = wet_builder_finish(&b[i])))
			return -1;
	return 0;
}

int wet_t1_builder_finish(struct wet_t1_builder *b, struct wet_t1_group *g)
{
	int r = 0;

	*g = (struct wet_t1_group){.nstmts = b->nstmts, .ninst = b->ninst};
	g->switch_at = b->switch_at == UINT64_MAX ? b->ninst : b->switch_at;
	g->pattern = wet_builder_finish(&b->pattern);
	if (!g->pattern || finish_all(b->uvals, b->nstmts, &g->uvals) < 0 ||
	    (b->direct && finish_all(b->direct, b->nstmts, &g->direct) < 0))
		r = -1;
	wet_t1_builder_abort(b);
	if (r < 0)
		wet_t1_group_free(g);
	return r;
}

void wet_t1_builder_abort(struct wet_t1_builder *b)
{
	wet_builder_abort(&b->pattern);
	builders_abort(&b->uvals, b->nstmts);
	builders_abort(&b->direct, b->nstmts);
	free(b->tuples);
	free(b->map);
	*b = (struct wet_t1_builder){0};
}

/* --- reading -------------------------------------------------------------- */

int wet_t1_value(struct wet_t1_group *g, uint32_t s, uint64_t k, uint64_t *v)
{
	uint64_t id;

	if (s >= g->nstmts || k >= g->ninst)
		return -1;
	if (k >= g->switch_at)
		return wet_stream_get(g->direct[s], k - g->switch_at, v);
	if (wet_stream_get(g->pattern, k, &id) < 0)
		return -1;
	return wet_stream_get(g->uvals[s], id, v);
}

uint64_t wet_t1_bits(const struct wet_t1_group *g)
{
	uint64_t ntuples = wet_stream_count(g->uvals[0]);
	unsigned index_bits = ntuples <= 1 ? 0 : 64 - (unsigned)__builtin_clzll(ntuples - 1);

	return g->switch_at * index_bits + 64 * g->nstmts * (ntuples + g->ninst - g->switch_at);
}

void wet_t1_group_free(struct wet_t1_group *g)
{
	for (uint32_t s = 0; s < g->nstmts; s++) {
		if (g->uvals)
			wet_stream_free(g->uvals[s]);
		if (g->direct)
			wet_stream_free(g->direct[s]);
	}
	free(g->uvals);
	free(g->direct);
	wet_stream_free(g->pattern);
	*g = (struct wet_t1_group){0};
}
