/* SPDX-License-Identifier: MIT */
/* meta_blob.c — metadata blob builder (see meta_blob.h). */
#include "meta_blob.h"

#include <stdlib.h>
#include <string.h>

#include "stable_hash.h"

void wpp_mb_init(struct wpp_meta_builder *b)
{
	memset(b, 0, sizeof(*b));
	wpp_mb_str(b, "", 0); /* offset 0 is the empty string */
}

void wpp_mb_free(struct wpp_meta_builder *b)
{
	free(b->funcs), free(b->blocks), free(b->edges), free(b->lines);
	free(b->strtab), free(b->intern);
	memset(b, 0, sizeof(*b));
}

static int grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
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
			if (grow((void **)&b->strtab, &b->strtab_cap, 1, 1)) {
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
	    grow((void **)&b->strtab, &b->strtab_cap, b->strtab_size + (uint32_t)len + 1, 1)) {
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
		    grow((void **)&(b)->arr, &(b)->cap, (b)->n + 1, sizeof(*(b)->arr))) {          \
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
	if (b->failed)
		return NULL;
	struct wpp_meta_header h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, WPP_META_MAGIC, 8);
	h.version = WPP_META_VERSION;
	h.header_size = sizeof(h);
	h.tu_hash = tu_hash;
	h.mode = mode;
	h.nfuncs = b->nfuncs;
	h.nblocks_total = b->nblocks;
	h.nedges_total = b->nedges;
	h.nlines_total = b->nlines;
	h.source_str = source_str;
	h.producer_str = producer_str;
	size_t off = align8(sizeof(h));
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
	size_t tail_off = align8(off);
	if (b->tail_size)
		off = tail_off + b->tail_size;
	h.total_size = off;
	size_t padded = align8(off);
	unsigned char *blob = calloc(1, padded);
	if (!blob)
		return NULL;
	memcpy(blob, &h, sizeof(h));
	copy_array(blob + h.funcs_off, b->funcs, (size_t)b->nfuncs * sizeof(struct wpp_meta_func));
	copy_array(blob + h.blocks_off, b->blocks,
		   (size_t)b->nblocks * sizeof(struct wpp_meta_block));
	copy_array(blob + h.edges_off, b->edges, (size_t)b->nedges * sizeof(struct wpp_meta_edge));
	copy_array(blob + h.lines_off, b->lines, (size_t)b->nlines * sizeof(struct wpp_meta_line));
	copy_array(blob + h.strtab_off, b->strtab, b->strtab_size);
	copy_array(blob + tail_off, b->tail, b->tail_size);
	*size = padded;
	return blob;
}
