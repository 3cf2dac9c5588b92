/* SPDX-License-Identifier: MIT */
/*
 * tpp_profile.c — from a TPP run's counters to a full path profile, and
 * its accuracy against a Ball-Larus profile of the same run (see tpp.h).
 * Paths are decoded from their ids edge by edge (Ball-Larus: at each node
 * the out-edge whose range holds what is left of the id).
 */
#include "instrument/tpp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/dag_walk.h"

static int fail(char *why, size_t whylen, const char *msg)
{
	if (why && whylen)
		snprintf(why, whylen, "%s", msg);
	return -1;
}

/* A numbered DAG ready for decoding: paths to EXIT per node. */
struct decoder {
	const struct wpp_dag *d;
	struct wpp_dag_walk w;
};

static int decoder_begin(struct decoder *x, const struct wpp_dag *d)
{
	x->d = d;
	if (wpp_dag_walk_begin(&x->w, d))
		return -1;
	for (uint32_t k = 0; k < x->w.nn; k++) {
		uint32_t v = x->w.order[k];
		uint64_t s = v == WPP_DAG_EXIT(d->nblocks);
		for (uint32_t i = x->w.out.start[v]; i < x->w.out.start[v + 1]; i++)
			s += x->w.np[d->edges[x->w.out.adj[i]].dst];
		x->w.np[v] = s;
	}
	return 0;
}

/* The edges of path id into path[] (room for nblocks + 1); their number,
 * or 0 when id is not a path of the DAG. */
static uint32_t decode(const struct decoder *x, uint64_t id, uint32_t *path)
{
	const struct wpp_dag *d = x->d;
	uint32_t v = WPP_DAG_ENTRY(d->nblocks), len = 0;
	if (id >= x->w.np[v])
		return 0;
	while (v != WPP_DAG_EXIT(d->nblocks)) {
		uint32_t next = WPP_NONE;
		for (uint32_t i = x->w.out.start[v]; i < x->w.out.start[v + 1]; i++) {
			const struct wpp_dag_edge *e = &d->edges[x->w.out.adj[i]];
			if (id >= e->val && id - e->val < x->w.np[e->dst]) {
				next = x->w.out.adj[i];
				break;
			}
		}
		if (next == WPP_NONE || len > d->nblocks)
			return 0;
		path[len++] = next;
		id -= d->edges[next].val;
		v = d->edges[next].dst;
	}
	return len;
}

static int cmp_count_id(const void *a, const void *b)
{
	const struct wpp_tpp_count *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Sorts by id and sums the counts of equal ids (flags or'ed); drops
 * zero counts.  Returns the new length. */
static size_t merge_counts(struct wpp_tpp_count *c, size_t n)
{
	size_t m = 0;
	qsort(c, n, sizeof(*c), cmp_count_id);
	for (size_t i = 0; i < n; i++) {
		if (!c[i].count)
			continue;
		if (m && c[m - 1].id == c[i].id) {
			c[m - 1].count = add_sat(c[m - 1].count, c[i].count);
			c[m - 1].obvious |= c[i].obvious;
		} else {
			c[m++] = c[i];
		}
	}
	return m;
}

void wpp_tpp_profile_free(struct wpp_tpp_profile *p)
{
	free(p->path);
	memset(p, 0, sizeof(*p));
}

int wpp_tpp_reconstruct(const struct wpp_tpp *t, const struct wpp_tpp_count *slots, size_t nslots,
			const uint64_t *edge_counts, struct wpp_tpp_profile *out, char *why,
			size_t whylen)
{
	struct decoder x;
	uint32_t *path = malloc(((size_t)t->rec.nblocks + 2) * sizeof(uint32_t));
	size_t n = 0;
	int rc = -1;

	memset(out, 0, sizeof(*out));
	out->path = malloc((nslots + t->nobvious + 1) * sizeof(*out->path));
	if (!path || !out->path || decoder_begin(&x, &t->rec)) {
		free(path);
		wpp_tpp_profile_free(out);
		return fail(why, whylen, "out of memory");
	}
	for (size_t i = 0; i < nslots; i++) {
		uint64_t poison = slots[i].id - wpp_tpp_poison_base(t);
		if (slots[i].id == t->nslots ||
		    (slots[i].id >= wpp_tpp_poison_base(t) && poison < t->npoison)) {
			out->cold = add_sat(out->cold, slots[i].count);
			continue;
		}
		uint32_t len = slots[i].id < t->nslots ? decode(&x, slots[i].id, path) : 0;
		if (!len) {
			fail(why, whylen, "a counter slot beyond the function's counters");
			goto out;
		}
		uint64_t id = 0;
		for (uint32_t k = 0; k < len; k++)
			id += t->hot.edges[t->rec_hot[path[k]]].val;
		out->path[n++] = (struct wpp_tpp_count){id, slots[i].count, 0};
	}
	for (uint32_t k = 0; k < t->nobvious; k++)
		out->path[n++] = (struct wpp_tpp_count){t->obvious[k].id, edge_counts[k], 1};
	out->npaths = merge_counts(out->path, n);
	rc = 0;
out:
	wpp_dag_walk_end(&x.w);
	free(path);
	if (rc)
		wpp_tpp_profile_free(out);
	return rc;
}

/* A reference path piece: TPP id, executions, length in blocks. */
struct piece {
	uint64_t id, count;
	uint32_t blocks;
};

static int cmp_piece(const void *a, const void *b)
{
	const struct piece *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static uint64_t sat128(unsigned __int128 v)
{
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

struct aodf_work {
	const struct wpp_tpp *t;
	struct piece *piece;
	size_t npieces, cap;
	unsigned __int128 total, under, cold_under;
	uint64_t pieces, cold_pieces;
};

/* One finished piece of a reference path: its full-DAG edges. */
static int add_piece(struct aodf_work *a, const uint32_t *edges, uint32_t m, uint64_t count)
{
	const struct wpp_tpp *t = a->t;
	uint32_t blocks = m - 1;
	uint64_t id = 0;
	int hot = 1;
	for (uint32_t k = 0; k < m && hot; k++) {
		uint32_t h = t->edge[edges[k]].hot_edge;
		if (h == WPP_NONE)
			hot = 0;
		else
			id += t->hot.edges[h].val;
	}
	a->total += (unsigned __int128)count * blocks;
	a->pieces = add_sat(a->pieces, count);
	if (!hot) {
		a->under += (unsigned __int128)count * blocks;
		a->cold_under += (unsigned __int128)count * blocks;
		a->cold_pieces = add_sat(a->cold_pieces, count);
		return 0;
	}
	if (a->npieces == a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 64;
		struct piece *np = realloc(a->piece, cap * sizeof(*np));
		if (!np)
			return -1;
		a->piece = np, a->cap = cap;
	}
	a->piece[a->npieces++] = (struct piece){id, count, blocks};
	return 0;
}

/* Splits Ball-Larus path edges[0..len) of d where the full DAG cuts it. */
static int split_path(struct aodf_work *a, const struct wpp_dag *d, const uint32_t *edges,
		      uint32_t len, uint64_t count, uint32_t *seg)
{
	const struct wpp_dag *f = &a->t->full;
	uint32_t m = 0;
	for (uint32_t k = 0; k < len; k++) {
		uint32_t g = edges[k];
		seg[m++] = g;
		if (f->edges[g].dst != d->edges[g].dst) { /* cut: piece ends, next starts */
			if (add_piece(a, seg, m, count))
				return -1;
			m = 0;
			seg[m++] = f->entry_edge[d->edges[g].dst];
		}
	}
	return add_piece(a, seg, m, count);
}

int wpp_tpp_aodf(const struct wpp_tpp *t, const struct wpp_dag *d, const struct wpp_tpp_count *full,
		 size_t nfull, const struct wpp_tpp_profile *tpp, struct wpp_tpp_quality *q,
		 char *why, size_t whylen)
{
	struct aodf_work a = {.t = t};
	struct decoder xd, xh;
	uint32_t *path = malloc(((size_t)d->nblocks + 2) * sizeof(uint32_t));
	uint32_t *seg = malloc(((size_t)d->nblocks + 3) * sizeof(uint32_t));
	unsigned __int128 over = 0;
	int rc = -1;

	memset(q, 0, sizeof(*q));
	memset(&xh, 0, sizeof(xh));
	if (!path || !seg || decoder_begin(&xd, d)) {
		free(path), free(seg);
		return fail(why, whylen, "out of memory");
	}
	if (decoder_begin(&xh, &t->hot)) {
		fail(why, whylen, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < nfull; i++) {
		uint32_t len = decode(&xd, full[i].id, path);
		if (!len) {
			fail(why, whylen, "a reference path id is not a path of the function");
			goto out;
		}
		if (split_path(&a, d, path, len, full[i].count, seg)) {
			fail(why, whylen, "out of memory");
			goto out;
		}
	}
	if (a.npieces)
		qsort(a.piece, a.npieces, sizeof(*a.piece), cmp_piece);
	/* Both sorted by TPP id: walk them together. */
	size_t i = 0, j = 0;
	while (i < a.npieces || j < tpp->npaths) {
		uint64_t id =
		    i < a.npieces && (j >= tpp->npaths || a.piece[i].id <= tpp->path[j].id)
			? a.piece[i].id
			: tpp->path[j].id;
		unsigned __int128 ref = 0, got = 0;
		uint32_t blocks = 0;
		for (; i < a.npieces && a.piece[i].id == id; i++)
			ref += a.piece[i].count, blocks = a.piece[i].blocks;
		for (; j < tpp->npaths && tpp->path[j].id == id; j++)
			got += tpp->path[j].count;
		if (!ref) {
			uint32_t len = decode(&xh, id, path);
			if (!len) {
				fail(why, whylen,
				     "a TPP path id is not a hot path of the function");
				goto out;
			}
			blocks = len - 1;
		}
		if (got > ref)
			over += (got - ref) * blocks;
		else
			a.under += (ref - got) * blocks;
	}
	q->total = sat128(a.total);
	q->over = sat128(over);
	q->under = sat128(a.under);
	q->cold_under = sat128(a.cold_under);
	q->pieces = a.pieces;
	q->cold_pieces = a.cold_pieces;
	q->aodf =
	    a.total ? 100.0 * (1.0 - ((double)over + (double)a.under) / (double)a.total) : 100.0;
	rc = 0;
out:
	wpp_dag_walk_end(&xd.w);
	wpp_dag_walk_end(&xh.w);
	free(path), free(seg), free(a.piece);
	return rc;
}
