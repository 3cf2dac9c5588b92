/* SPDX-License-Identifier: MIT */
/*
 * wet_xorder.c — cross-thread memory dependences where the batches'
 * publish times prove the order (wet_xorder.h).  The other threads' stores
 * move through two windows as the built thread's batches advance: a store
 * enters the concurrent set when its interval starts before the current
 * batch ends (its bytes counted there), and retires into the "before"
 * shadow when it ended before the current batch began.  Retiring in
 * publish-time order keeps, per byte, the latest store known to follow all
 * earlier ones, or a record standing for several unordered ones.
 */
#include "analysis/wet/wet_xorder.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/wet/wet_shadow.h"
#include "common/array_grow.h"
#include "analysis/wet/wet_page_set.h"

/* Intervals of the built thread's batches (its own stores name one). */
struct iv {
	uint64_t lo, hi;
};

/* What an ambiguity record (rec.amb = index + 1) stands for: the stores
 * of a byte none of which is known to follow the others, at most one per
 * thread (a thread's later store follows its earlier ones), as (thread,
 * publish time); past AMB_MAX threads only the latest time is kept and no
 * thread's store is taken to follow them by program order. */
#define AMB_MAX 6
struct amb {
	uint32_t n; /* AMB_MAX + 1: overflowed, hi[0] the latest */
	uint32_t tid[AMB_MAX];
	uint64_t hi[AMB_MAX];
};

struct wet_xorder {
	size_t max_stores;
	struct wet_xstore *rec; /* added stores, then ambiguity records */
	size_t nrec, cap, nadded;
	uint32_t *by_lo, *by_hi; /* added stores sorted by lo, by hi */
	size_t p_lo, p_hi;	 /* entered, retired */
	struct wet_shadow *before, *conc, *own;
	struct iv *ivs;
	size_t niv, cap_iv;
	uint32_t cur_iv;
	int cur_signal;
	struct wet_page_set pages; /* pages other threads store to */
	struct amb *ambs;
	size_t nambs, cap_ambs;
};

/* X is known to precede Y. */
static int precedes(uint64_t hi_x, uint64_t lo_y)
{
	return hi_x < UINT64_MAX - WET_XORDER_MARGIN_NS && hi_x + WET_XORDER_MARGIN_NS < lo_y;
}

struct wet_xorder *wet_xorder_new(size_t shadow_bytes, size_t max_stores)
{
	struct wet_xorder *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->max_stores = max_stores;
	x->before = wet_shadow_new(shadow_bytes);
	x->conc = wet_shadow_new(shadow_bytes);
	x->own = wet_shadow_new(shadow_bytes);
	if (!x->before || !x->conc || !x->own) {
		wet_xorder_free(x);
		return NULL;
	}
	return x;
}

void wet_xorder_free(struct wet_xorder *x)
{
	if (!x)
		return;
	wet_shadow_free(x->before);
	wet_shadow_free(x->conc);
	wet_shadow_free(x->own);
	free(x->rec);
	free(x->by_lo);
	free(x->by_hi);
	free(x->ivs);
	wet_page_set_free(&x->pages);
	free(x->ambs);
	free(x);
}

static int push_rec(struct wet_xorder *x, const struct wet_xstore *s)
{
	if (ARRAY_GROW(x->rec, x->cap, x->nrec + 1, 256))
		return -1;
	x->rec[x->nrec++] = *s;
	return 0;
}

int wet_xorder_add(struct wet_xorder *x, const struct wet_xstore *s)
{
	if (x->by_lo || x->nadded >= x->max_stores || s->size == 0 || s->addr + s->size < s->addr ||
	    s->lo > s->hi)
		return -1;
	for (uint64_t p = s->addr / WET_SHADOW_PAGE; p <= (s->addr + s->size - 1) / WET_SHADOW_PAGE;
	     p++)
		if (wet_page_set_add(&x->pages, p) < 0)
			return -1;
	struct wet_xstore r = *s;
	r.amb = 0;
	if (push_rec(x, &r) < 0)
		return -1;
	x->nadded++;
	return 0;
}

size_t wet_xorder_stores(const struct wet_xorder *x)
{
	return x->nadded;
}

/* qsort has no context: the records being sorted. */
static const struct wet_xstore *sort_rec;

/* Ties keep the order added: a thread's stores stay in program order. */
static int cmp_lo(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	uint64_t x = sort_rec[i].lo, y = sort_rec[j].lo;
	return x != y ? (x < y ? -1 : 1) : (i > j) - (i < j);
}

static int cmp_hi(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	uint64_t x = sort_rec[i].hi, y = sort_rec[j].hi;
	return x != y ? (x < y ? -1 : 1) : (i > j) - (i < j);
}

int wet_xorder_seal(struct wet_xorder *x)
{
	size_t n = x->nadded;

	if (n >= UINT32_MAX - 1)
		return -1;
	x->by_lo = malloc((n ? n : 1) * sizeof(*x->by_lo));
	x->by_hi = malloc((n ? n : 1) * sizeof(*x->by_hi));
	if (!x->by_lo || !x->by_hi)
		return -1;
	for (size_t i = 0; i < n; i++)
		x->by_lo[i] = x->by_hi[i] = (uint32_t)i;
	sort_rec = x->rec;
	qsort(x->by_lo, n, sizeof(*x->by_lo), cmp_lo);
	qsort(x->by_hi, n, sizeof(*x->by_hi), cmp_hi);
	sort_rec = NULL;
	return 0;
}

/* The concurrent stores' count per byte is kept as count + 1; a dropped
 * page (UNKNOWN) is poisoned (WET_WRITER_MAX) for good. */
static int conc_add(struct wet_xorder *x, const struct wet_xstore *s, int delta)
{
	for (uint64_t a = s->addr; a < s->addr + s->size; a++) {
		uint64_t v = wet_shadow_writer(x->conc, a), nv;
		if (v == WET_WRITER_UNKNOWN || v == WET_WRITER_MAX)
			nv = WET_WRITER_MAX;
		else
			nv = (v == WET_WRITER_NONE ? 1 : v) + (uint64_t)(int64_t)delta;
		if (nv < 1)
			nv = WET_WRITER_MAX; /* cannot happen: retired only after entered */
		if (wet_shadow_store(x->conc, a, 1, nv) < 0)
			return -1;
	}
	return 0;
}

/* The components of the byte's current "before" writer e (0: none) into
 * *a; 0, or -1 when e is not a record (a dropped page). */
static int components(const struct wet_xorder *x, uint64_t e, struct amb *a)
{
	*a = (struct amb){0};
	if (e == WET_WRITER_NONE)
		return 0;
	if (e == WET_WRITER_UNKNOWN || e == WET_WRITER_MAX || e > x->nrec)
		return -1;
	const struct wet_xstore *E = &x->rec[e - 1];
	if (E->amb)
		*a = x->ambs[E->amb - 1];
	else
		*a = (struct amb){1, {E->tid}, {E->hi}};
	return 0;
}

/* The components of a that store s does not follow, with s: the new
 * set for the byte.  Its count (1: s alone is the latest). */
static uint32_t after_store(const struct amb *a, const struct wet_xstore *s, struct amb *out)
{
	*out = (struct amb){0};
	if (a->n > AMB_MAX) {
		if (precedes(a->hi[0], s->lo))
			a = &(struct amb){0};
		else {
			*out = *a;
			if (s->hi > out->hi[0])
				out->hi[0] = s->hi;
			return out->n;
		}
	}
	for (uint32_t i = 0; i < a->n; i++)
		if (a->tid[i] != s->tid && !precedes(a->hi[i], s->lo)) {
			out->tid[out->n] = a->tid[i];
			out->hi[out->n++] = a->hi[i];
		}
	if (out->n == AMB_MAX) {
		uint64_t hi = s->hi;
		for (uint32_t i = 0; i < out->n; i++)
			hi = out->hi[i] > hi ? out->hi[i] : hi;
		*out = (struct amb){AMB_MAX + 1, {0}, {hi}};
		return out->n;
	}
	out->tid[out->n] = s->tid;
	out->hi[out->n++] = s->hi;
	return out->n;
}

/* The latest publish time of a's stores. */
static uint64_t amb_hi(const struct amb *a)
{
	uint64_t hi = 0;

	for (uint32_t i = 0; i < a->n && i < AMB_MAX; i++)
		hi = a->hi[i] > hi ? a->hi[i] : hi;
	return hi;
}

/* A new ambiguity record standing for a, s's other fields; its id. */
static uint64_t push_amb(struct wet_xorder *x, const struct wet_xstore *s, const struct amb *a)
{
	if (ARRAY_GROW(x->ambs, x->cap_ambs, x->nambs + 1, 64))
		return 0;
	if (x->nambs >= UINT32_MAX - 1)
		return 0;
	x->ambs[x->nambs++] = *a;
	struct wet_xstore r = *s;
	r.amb = (uint32_t)x->nambs;
	r.hi = a->n > AMB_MAX ? a->hi[0] : amb_hi(a);
	if (push_rec(x, &r) < 0)
		return 0;
	return x->nrec;
}

/* Retire added store i into the "before" shadow: per byte, the store
 * alone when it follows every store the byte's record stands for, else a
 * record of the ones it does not follow and it (one per distinct record
 * met; a dropped page's bytes stay unknown). */
static int retire(struct wet_xorder *x, uint32_t i)
{
	struct wet_xstore s = x->rec[i];
	uint64_t seen[8], made[8];
	uint32_t nseen = 0;
	int clean = 1;

	for (uint64_t a = s.addr; a < s.addr + s.size && clean; a++) {
		struct amb c, o;
		uint64_t e = wet_shadow_writer(x->before, a);
		clean = components(x, e, &c) == 0 && after_store(&c, &s, &o) == 1;
	}
	if (clean)
		return wet_shadow_store(x->before, s.addr, s.size, (uint64_t)i + 1);
	for (uint64_t a = s.addr; a < s.addr + s.size; a++) {
		struct amb c, o;
		uint64_t e = wet_shadow_writer(x->before, a), id;
		if (components(x, e, &c) < 0)
			continue; /* dropped: unknown stays */
		uint32_t j = 0;
		while (j < nseen && seen[j] != e)
			j++;
		if (j < nseen) {
			id = made[j];
		} else {
			id = after_store(&c, &s, &o) == 1 ? (uint64_t)i + 1 : push_amb(x, &s, &o);
			if (!id)
				return -1;
			if (nseen < 8) {
				seen[nseen] = e;
				made[nseen++] = id;
			}
		}
		if (wet_shadow_store(x->before, a, 1, id) < 0)
			return -1;
	}
	return 0;
}

int wet_xorder_enter(struct wet_xorder *x, uint64_t lo, uint64_t hi, int signal)
{
	if (!x->niv || x->ivs[x->niv - 1].lo != lo || x->ivs[x->niv - 1].hi != hi) {
		if (ARRAY_GROW(x->ivs, x->cap_iv, x->niv + 1, 64))
			return -1;
		if (x->niv >= WET_WRITER_MAX - 1)
			return -1;
		x->ivs[x->niv++] = (struct iv){lo, hi};
	}
	x->cur_iv = (uint32_t)(x->niv - 1);
	x->cur_signal = signal;
	if (signal || !x->by_lo)
		return 0;
	while (x->p_lo < x->nadded && !precedes(hi, x->rec[x->by_lo[x->p_lo]].lo))
		if (conc_add(x, &x->rec[x->by_lo[x->p_lo++]], 1) < 0)
			return -1;
	while (x->p_hi < x->nadded && precedes(x->rec[x->by_hi[x->p_hi]].hi, lo)) {
		uint32_t i = x->by_hi[x->p_hi++];
		if (conc_add(x, &x->rec[i], -1) < 0 || retire(x, i) < 0)
			return -1;
	}
	return 0;
}

int wet_xorder_own_store(struct wet_xorder *x, uint64_t addr, uint64_t size)
{
	if (!x->niv)
		return -1;
	return wet_shadow_store(x->own, addr, size, (uint64_t)x->cur_iv + 1);
}

enum wet_xorder_verdict wet_xorder_byte(const struct wet_xorder *x, uint64_t addr,
					enum wet_xorder_own own, const struct wet_xstore **other)
{
	*other = NULL;
	if (x->cur_signal || !x->by_lo || !x->niv)
		return wet_page_set_has(&x->pages, addr / WET_SHADOW_PAGE) ? WET_X_UNKNOWN
									   : WET_X_OWN;
	uint64_t c = wet_shadow_writer(x->conc, addr);
	if (c != WET_WRITER_NONE && c != 1)
		return WET_X_UNKNOWN; /* a concurrent store, or a dropped page */
	uint64_t e = wet_shadow_writer(x->before, addr);
	if (e == WET_WRITER_NONE)
		return WET_X_OWN;
	if (e == WET_WRITER_UNKNOWN || e > x->nrec || own == WET_XOWN_UNKNOWN)
		return WET_X_UNKNOWN;
	const struct wet_xstore *E = &x->rec[e - 1];
	if (own == WET_XOWN_NONE) {
		if (E->amb)
			return WET_X_UNKNOWN;
		*other = E;
		return WET_X_OTHER;
	}
	uint64_t t = wet_shadow_writer(x->own, addr);
	if (t == WET_WRITER_NONE || t == WET_WRITER_UNKNOWN || t > x->niv)
		return WET_X_UNKNOWN;
	const struct iv *w = &x->ivs[t - 1];
	if (precedes(E->hi, w->lo))
		return WET_X_OWN;
	if (!E->amb && precedes(w->hi, E->lo)) {
		*other = E;
		return WET_X_OTHER;
	}
	return WET_X_UNKNOWN;
}

size_t wet_xorder_bytes(const struct wet_xorder *x)
{
	return sizeof(*x) + x->cap * sizeof(*x->rec) + 2 * x->nadded * sizeof(uint32_t) +
	       x->cap_iv * sizeof(*x->ivs) + x->pages.cap * sizeof(*x->pages.v) +
	       wet_shadow_bytes(x->before) + wet_shadow_bytes(x->conc) + wet_shadow_bytes(x->own);
}
