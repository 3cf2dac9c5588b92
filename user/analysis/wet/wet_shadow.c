/* SPDX-License-Identifier: MIT */
/*
 * wet_shadow.c — page-granular shadow memory with a byte cap and
 * least-recently-written eviction (wet_shadow.h).  A granule holds its
 * writer, or (both top bits set) the index of eight per-byte writers in
 * its page's expansion array; UNKNOWN is the top bit alone.
 */
#include "analysis/wet/wet_shadow.h"

#include <stdlib.h>
#include <string.h>

#define GRANULES  (WET_SHADOW_PAGE / 8)
#define MIXED_TAG (UINT64_C(3) << 62)

struct page {
	uint64_t pageno;
	struct page *hnext;	    /* hash chain */
	struct page *newer, *older; /* recency of writes */
	uint64_t (*mix)[8];	    /* per-byte writers of mixed granules */
	uint32_t nmix, cap_mix;
	uint32_t *free_mix, nfree; /* expansion slots no granule uses */
	uint64_t gran[GRANULES];
};

struct wet_shadow {
	size_t max_bytes, bytes;
	struct page **buckets;
	size_t nbuckets, npages;
	struct page *newest, *oldest;
	uint64_t *dropped; /* pagenos + 1 of evicted pages, open addressing */
	size_t dropped_cap, ndropped;
	uint64_t evictions;
};

static int is_mixed(uint64_t v)
{
	return (v & MIXED_TAG) == MIXED_TAG;
}

static size_t hash_page(uint64_t pageno, size_t n)
{
	return (size_t)((pageno * 0x9e3779b97f4a7c15u) >> 20) & (n - 1);
}

struct wet_shadow *wet_shadow_new(size_t max_bytes)
{
	struct wet_shadow *sh = calloc(1, sizeof(*sh));

	if (!sh)
		return NULL;
	sh->max_bytes = max_bytes < 2 * sizeof(struct page) ? 2 * sizeof(struct page) : max_bytes;
	sh->nbuckets = 64;
	sh->buckets = calloc(sh->nbuckets, sizeof(*sh->buckets));
	if (!sh->buckets) {
		free(sh);
		return NULL;
	}
	sh->bytes = sizeof(*sh) + sh->nbuckets * sizeof(*sh->buckets);
	return sh;
}

static size_t page_bytes(const struct page *p)
{
	return sizeof(*p) + p->cap_mix * (sizeof(*p->mix) + sizeof(*p->free_mix));
}

static void free_page(struct page *p)
{
	free(p->mix);
	free(p->free_mix);
	free(p);
}

void wet_shadow_free(struct wet_shadow *sh)
{
	if (!sh)
		return;
	for (struct page *p = sh->newest, *next; p; p = next) {
		next = p->older;
		free_page(p);
	}
	free(sh->buckets);
	free(sh->dropped);
	free(sh);
}

static struct page *find_page(const struct wet_shadow *sh, uint64_t pageno)
{
	struct page *p = sh->buckets[hash_page(pageno, sh->nbuckets)];

	while (p && p->pageno != pageno)
		p = p->hnext;
	return p;
}

/* --- the set of dropped pages -------------------------------------------- */

static int was_dropped(const struct wet_shadow *sh, uint64_t pageno)
{
	size_t mask = sh->dropped_cap - 1;

	if (!sh->dropped_cap)
		return 0;
	for (size_t i = hash_page(pageno, sh->dropped_cap);; i = (i + 1) & mask) {
		if (sh->dropped[i] == pageno + 1)
			return 1;
		if (!sh->dropped[i])
			return 0;
	}
}

static void dropped_put(uint64_t *set, size_t cap, uint64_t pageno)
{
	size_t i = hash_page(pageno, cap);

	while (set[i] && set[i] != pageno + 1)
		i = (i + 1) & (cap - 1);
	set[i] = pageno + 1;
}

static int remember_dropped(struct wet_shadow *sh, uint64_t pageno)
{
	if (was_dropped(sh, pageno))
		return 0;
	if (2 * (sh->ndropped + 1) > sh->dropped_cap) {
		size_t cap = sh->dropped_cap ? 2 * sh->dropped_cap : 64;
		uint64_t *set = calloc(cap, sizeof(*set));

		if (!set)
			return -1;
		for (size_t i = 0; i < sh->dropped_cap; i++)
			if (sh->dropped[i])
				dropped_put(set, cap, sh->dropped[i] - 1);
		free(sh->dropped);
		sh->bytes += (cap - sh->dropped_cap) * sizeof(*set);
		sh->dropped = set;
		sh->dropped_cap = cap;
	}
	dropped_put(sh->dropped, sh->dropped_cap, pageno);
	sh->ndropped++;
	return 0;
}

/* --- pages --------------------------------------------------------------- */

static void unlink_recency(struct wet_shadow *sh, struct page *p)
{
	if (p->newer)
		p->newer->older = p->older;
	else
		sh->newest = p->older;
	if (p->older)
		p->older->newer = p->newer;
	else
		sh->oldest = p->newer;
	p->newer = p->older = NULL;
}

static void make_newest(struct wet_shadow *sh, struct page *p)
{
	if (sh->newest == p)
		return;
	if (p->newer || p->older || sh->oldest == p)
		unlink_recency(sh, p);
	p->older = sh->newest;
	if (sh->newest)
		sh->newest->newer = p;
	sh->newest = p;
	if (!sh->oldest)
		sh->oldest = p;
}

static int grow_buckets(struct wet_shadow *sh)
{
	size_t n = 2 * sh->nbuckets;
	struct page **b = calloc(n, sizeof(*b));

	if (!b)
		return -1;
	for (size_t i = 0; i < sh->nbuckets; i++)
		for (struct page *p = sh->buckets[i], *next; p; p = next) {
			size_t h = hash_page(p->pageno, n);

			next = p->hnext;
			p->hnext = b[h];
			b[h] = p;
		}
	free(sh->buckets);
	sh->bytes += (n - sh->nbuckets) * sizeof(*b);
	sh->buckets = b;
	sh->nbuckets = n;
	return 0;
}

static void drop_oldest(struct wet_shadow *sh)
{
	struct page *p = sh->oldest, **link;

	/* The set first: if it cannot grow, keep the page (over the cap)
	 * rather than forget that its bytes were written. */
	if (remember_dropped(sh, p->pageno) < 0)
		return;
	unlink_recency(sh, p);
	link = &sh->buckets[hash_page(p->pageno, sh->nbuckets)];
	while (*link != p)
		link = &(*link)->hnext;
	*link = p->hnext;
	sh->bytes -= page_bytes(p);
	sh->npages--;
	sh->evictions++;
	free_page(p);
}

static struct page *get_page(struct wet_shadow *sh, uint64_t pageno)
{
	struct page *p = find_page(sh, pageno);
	size_t h;

	if (p)
		return p;
	if (sh->npages + 1 > sh->nbuckets && grow_buckets(sh) < 0)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->pageno = pageno;
	if (was_dropped(sh, pageno))
		for (unsigned g = 0; g < GRANULES; g++)
			p->gran[g] = WET_WRITER_UNKNOWN;
	h = hash_page(pageno, sh->nbuckets);
	p->hnext = sh->buckets[h];
	sh->buckets[h] = p;
	sh->npages++;
	sh->bytes += page_bytes(p);
	make_newest(sh, p);
	return p;
}

/* An expansion slot holding eight copies of v; its tagged index, or 0. */
static uint64_t expand(struct wet_shadow *sh, struct page *p, uint64_t v)
{
	uint32_t slot;

	if (p->nfree) {
		slot = p->free_mix[--p->nfree];
	} else {
		if (p->nmix == p->cap_mix) {
			uint32_t cap = p->cap_mix ? 2 * p->cap_mix : 4;
			uint64_t(*mix)[8] = realloc(p->mix, cap * sizeof(*mix));
			uint32_t *fr;

			if (!mix)
				return 0;
			p->mix = mix;
			fr = realloc(p->free_mix, cap * sizeof(*fr));
			if (!fr)
				return 0;
			p->free_mix = fr;
			sh->bytes += (cap - p->cap_mix) * (sizeof(*mix) + sizeof(*fr));
			p->cap_mix = cap;
		}
		slot = p->nmix++;
	}
	for (unsigned i = 0; i < 8; i++)
		p->mix[slot][i] = v;
	return MIXED_TAG | slot;
}

static void release_slot(struct page *p, uint64_t tagged)
{
	p->free_mix[p->nfree++] = (uint32_t)(tagged & ~MIXED_TAG);
}

/* Bytes [lo, hi) of granule g (0 <= lo < hi <= 8) written by w. */
static int store_granule(struct wet_shadow *sh, struct page *p, unsigned g, unsigned lo,
			 unsigned hi, uint64_t w)
{
	uint64_t *bytes;
	unsigned i;

	if (lo == 0 && hi == 8) {
		if (is_mixed(p->gran[g]))
			release_slot(p, p->gran[g]);
		p->gran[g] = w;
		return 0;
	}
	if (!is_mixed(p->gran[g])) {
		uint64_t tagged;

		if (p->gran[g] == w)
			return 0;
		tagged = expand(sh, p, p->gran[g]);
		if (!tagged)
			return -1;
		p->gran[g] = tagged;
	}
	bytes = p->mix[p->gran[g] & ~MIXED_TAG];
	for (i = lo; i < hi; i++)
		bytes[i] = w;
	/* Back to one writer when the bytes agree again. */
	for (i = 1; i < 8 && bytes[i] == bytes[0]; i++)
		;
	if (i == 8) {
		release_slot(p, p->gran[g]);
		p->gran[g] = bytes[0];
	}
	return 0;
}

int wet_shadow_store(struct wet_shadow *sh, uint64_t addr, uint64_t size, uint64_t writer)
{
	uint64_t end = addr + size;

	if (writer == WET_WRITER_NONE || writer > WET_WRITER_MAX || end < addr)
		return -1;
	while (addr < end) {
		uint64_t pageno = addr / WET_SHADOW_PAGE;
		uint64_t page_end = (pageno + 1) * WET_SHADOW_PAGE;
		uint64_t stop = end < page_end || page_end == 0 ? end : page_end;
		struct page *p = get_page(sh, pageno);

		if (!p)
			return -1;
		make_newest(sh, p);
		for (uint64_t a = addr; a < stop;) {
			unsigned off = (unsigned)(a % WET_SHADOW_PAGE), g = off / 8, lo = off % 8;
			unsigned hi = stop - (a - lo) >= 8 ? 8 : (unsigned)(stop - (a - lo));

			if (store_granule(sh, p, g, lo, hi, writer) < 0)
				return -1;
			a += hi - lo;
		}
		addr = stop;
		while (sh->bytes > sh->max_bytes && sh->oldest != sh->newest) {
			uint64_t before = sh->evictions;

			drop_oldest(sh);
			if (sh->evictions == before)
				break;
		}
	}
	return 0;
}

uint64_t wet_shadow_writer(const struct wet_shadow *sh, uint64_t addr)
{
	uint64_t pageno = addr / WET_SHADOW_PAGE, v;
	const struct page *p = find_page(sh, pageno);

	if (!p)
		return was_dropped(sh, pageno) ? WET_WRITER_UNKNOWN : WET_WRITER_NONE;
	v = p->gran[(addr % WET_SHADOW_PAGE) / 8];
	return is_mixed(v) ? p->mix[v & ~MIXED_TAG][addr % 8] : v;
}

int wet_shadow_load(const struct wet_shadow *sh, uint64_t addr, uint64_t size, uint64_t *writers)
{
	int n = 0;

	if (size == 0 || size > WET_SHADOW_MAX_ACCESS)
		return -1;
	for (uint64_t i = 0; i < size; i++) {
		uint64_t w = wet_shadow_writer(sh, addr + i);
		int k = n;

		/* Most bytes repeat the last writer; otherwise look back. */
		if (n && writers[n - 1] == w)
			continue;
		for (k = 0; k < n && writers[k] != w; k++)
			;
		if (k == n)
			writers[n++] = w;
	}
	return n;
}

size_t wet_shadow_bytes(const struct wet_shadow *sh)
{
	return sh->bytes;
}

uint64_t wet_shadow_evictions(const struct wet_shadow *sh)
{
	return sh->evictions;
}
