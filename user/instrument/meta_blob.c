/* SPDX-License-Identifier: MIT */
/* meta_blob.c — metadata blob builder (see meta_blob.h). */
#include "instrument/meta_blob.h"

#include <stdlib.h>
#include <string.h>

#include "instrument/stable_hash.h"

void wpp_mb_init(struct wpp_meta_builder *b)
{
	memset(b, 0, sizeof(*b));
	wpp_mb_str(b, "", 0); /* offset 0 is the empty string */
}

void wpp_mb_free(struct wpp_meta_builder *b)
{
	free(b->funcs), free(b->blocks), free(b->edges), free(b->lines);
	free(b->ppp), free(b->ppp_ids);
	free(b->strtab), free(b->intern);
	memset(b, 0, sizeof(*b));
}

int wpp_mb_grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	uint32_t ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap *= 2;
	void *p = realloc(*arr, (size_t)ncap * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

static int intern_rehash(struct wpp_meta_builder *b)
{
	uint32_t ncap = b->intern_cap ? b->intern_cap * 2 : 256;
	uint32_t *t = calloc(ncap, sizeof(uint32_t));
	if (!t)
		return -1;
	for (uint32_t i = 0; i < b->intern_cap; i++) {
		uint32_t off = b->intern[i];
		if (!off)
			continue;
		const char *s = b->strtab + off;
		uint32_t h = (uint32_t)wpp_hash_bytes(WPP_HASH_INIT, s, strlen(s)) & (ncap - 1);
		while (t[h])
			h = (h + 1) & (ncap - 1);
		t[h] = off;
	}
	free(b->intern);
	b->intern = t;
	b->intern_cap = ncap;
	return 0;
}

uint32_t wpp_mb_str(struct wpp_meta_builder *b, const char *s, size_t len)
{
	if (b->failed)
		return 0;
	if (len == 0) {
		if (b->strtab_size == 0) {
			if (wpp_mb_grow((void **)&b->strtab, &b->strtab_cap, 1, 1)) {
				b->failed = 1;
				return 0;
			}
			b->strtab[0] = 0;
			b->strtab_size = 1;
		}
		return 0;
	}
	if (memchr(s, 0, len))
		len = strlen(s); /* a string cannot contain NUL in the strtab */
	if ((b->intern_used + 1) * 2 > b->intern_cap && intern_rehash(b)) {
		b->failed = 1;
		return 0;
	}
	uint32_t h = (uint32_t)wpp_hash_bytes(WPP_HASH_INIT, s, len) & (b->intern_cap - 1);
	for (; b->intern[h]; h = (h + 1) & (b->intern_cap - 1)) {
		const char *t = b->strtab + b->intern[h];
		if (strlen(t) == len && memcmp(t, s, len) == 0)
			return b->intern[h];
	}
	if (len > UINT32_MAX / 2 || b->strtab_size + len + 1 < b->strtab_size ||
	    wpp_mb_grow((void **)&b->strtab, &b->strtab_cap, b->strtab_size + (uint32_t)len + 1,
			1)) {
		b->failed = 1;
		return 0;
	}
	uint32_t off = b->strtab_size;
	memcpy(b->strtab + off, s, len);
	b->strtab[off + len] = 0;
	b->strtab_size += (uint32_t)len + 1;
	b->intern[h] = off;
	b->intern_used++;
	return off;
}

#define ADD_ELEM(b, arr, n, cap)                                                                   \
	do {                                                                                       \
		if ((b)->failed ||                                                                 \
		    wpp_mb_grow((void **)&(b)->arr, &(b)->cap, (b)->n + 1, sizeof(*(b)->arr))) {   \
			(b)->failed = 1;                                                           \
			return NULL;                                                               \
		}                                                                                  \
		memset(&(b)->arr[(b)->n], 0, sizeof(*(b)->arr));                                   \
		return &(b)->arr[(b)->n++];                                                        \
	} while (0)

struct wpp_meta_func *wpp_mb_add_func(struct wpp_meta_builder *b)
{
	ADD_ELEM(b, funcs, nfuncs, cap_funcs);
}
struct wpp_meta_block *wpp_mb_add_block(struct wpp_meta_builder *b)
{
	ADD_ELEM(b, blocks, nblocks, cap_blocks);
}
struct wpp_meta_edge *wpp_mb_add_edge(struct wpp_meta_builder *b)
{
	ADD_ELEM(b, edges, nedges, cap_edges);
}
struct wpp_meta_line *wpp_mb_add_line(struct wpp_meta_builder *b)
{
	ADD_ELEM(b, lines, nlines, cap_lines);
}

int wpp_mb_add_ppp(struct wpp_meta_builder *b, const uint64_t *ids, size_t n, uint32_t how,
		   uint64_t interval)
{
	if (b->failed || n > UINT32_MAX - b->nppp_ids ||
	    wpp_mb_grow((void **)&b->ppp, &b->cap_ppp, b->nppp + 1, sizeof(*b->ppp)) ||
	    wpp_mb_grow((void **)&b->ppp_ids, &b->cap_ppp_ids, b->nppp_ids + (uint32_t)n,
			sizeof(*b->ppp_ids))) {
		b->failed = 1;
		return -1;
	}
	b->ppp[b->nppp++] = (struct wpp_meta_ppp_func){
	    .first_id = b->nppp_ids, .nids = (uint32_t)n, .how = how, .interval = interval};
	if (n)
		memcpy(b->ppp_ids + b->nppp_ids, ids, n * sizeof(*ids));
	b->nppp_ids += (uint32_t)n;
	return 0;
}

/* Empty arrays may be NULL, which memcpy does not accept even for 0 bytes. */
static void copy_array(unsigned char *dst, const void *src, size_t n)
{
	if (n)
		memcpy(dst, src, n);
}

static size_t align8(size_t x)
{
	return (x + 7) & ~(size_t)7;
}

void *wpp_mb_finish(struct wpp_meta_builder *b, uint64_t tu_hash, uint32_t mode,
		    uint32_t source_str, uint32_t producer_str, size_t *size)
{
	int v2 = mode == WPP_MODE_PPP;
	if (b->failed || (v2 && b->nppp != b->nfuncs))
		return NULL;
	struct wpp_meta_header_v2 hv2;
	struct wpp_meta_header h;
	memset(&hv2, 0, sizeof(hv2));
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, WPP_META_MAGIC, 8);
	h.version = v2 ? WPP_META_VERSION_PPP : WPP_META_VERSION;
	h.header_size = v2 ? sizeof(hv2) : sizeof(h);
	h.tu_hash = tu_hash;
	h.mode = mode;
	h.nfuncs = b->nfuncs;
	h.nblocks_total = b->nblocks;
	h.nedges_total = b->nedges;
	h.nlines_total = b->nlines;
	h.source_str = source_str;
	h.producer_str = producer_str;
	size_t off = align8(h.header_size);
	h.funcs_off = off;
	off = align8(off + (size_t)b->nfuncs * sizeof(struct wpp_meta_func));
	h.blocks_off = off;
	off = align8(off + (size_t)b->nblocks * sizeof(struct wpp_meta_block));
	h.edges_off = off;
	off = align8(off + (size_t)b->nedges * sizeof(struct wpp_meta_edge));
	h.lines_off = off;
	off = align8(off + (size_t)b->nlines * sizeof(struct wpp_meta_line));
	h.strtab_off = off;
	h.strtab_size = b->strtab_size;
	off += b->strtab_size;
	if (v2) {
		off = align8(off);
		hv2.ppp_funcs_off = off;
		off = align8(off + (size_t)b->nppp * sizeof(struct wpp_meta_ppp_func));
		hv2.ppp_ids_off = off;
		hv2.nppp_ids_total = b->nppp_ids;
		off += (size_t)b->nppp_ids * sizeof(uint64_t);
	}
	/* WET's tables follow (a unit is PPP or WET, never both) */
	size_t tail_off = align8(off);
	if (b->tail_size)
		off = tail_off + b->tail_size;
	h.total_size = off;
	size_t padded = align8(off);
	unsigned char *blob = calloc(1, padded);
	if (!blob)
		return NULL;
	hv2.v1 = h;
	if (v2)
		memcpy(blob, &hv2, sizeof(hv2));
	else
		memcpy(blob, &h, sizeof(h));
	copy_array(blob + h.funcs_off, b->funcs, (size_t)b->nfuncs * sizeof(struct wpp_meta_func));
	copy_array(blob + h.blocks_off, b->blocks,
		   (size_t)b->nblocks * sizeof(struct wpp_meta_block));
	copy_array(blob + h.edges_off, b->edges, (size_t)b->nedges * sizeof(struct wpp_meta_edge));
	copy_array(blob + h.lines_off, b->lines, (size_t)b->nlines * sizeof(struct wpp_meta_line));
	copy_array(blob + h.strtab_off, b->strtab, b->strtab_size);
	if (v2) {
		copy_array(blob + hv2.ppp_funcs_off, b->ppp,
			   (size_t)b->nppp * sizeof(struct wpp_meta_ppp_func));
		copy_array(blob + hv2.ppp_ids_off, b->ppp_ids, (size_t)b->nppp_ids * 8);
	}
	copy_array(blob + tail_off, b->tail, b->tail_size);
	*size = padded;
	return blob;
}
