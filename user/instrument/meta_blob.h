/* SPDX-License-Identifier: MIT */
/*
 * meta_blob.h — builds one TU's metadata blob (layout: meta_format.h)
 * in memory, independent of LLVM: the pass adds functions, blocks, lines
 * and edges, then serializes.  Strings are interned into one strtab.
 */
#ifndef WPP_INSTRUMENT_META_BLOB_H
#define WPP_INSTRUMENT_META_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include "wpp/meta_format.h"

struct wpp_meta_builder {
	struct wpp_meta_func *funcs;
	struct wpp_meta_block *blocks;
	struct wpp_meta_edge *edges;
	struct wpp_meta_line *lines;
	uint32_t nfuncs, nblocks, nedges, nlines;
	uint32_t cap_funcs, cap_blocks, cap_edges, cap_lines;
	/* PPP units (version 2): one entry per function, in function order */
	struct wpp_meta_ppp_func *ppp;
	uint64_t *ppp_ids;
	uint32_t nppp, nppp_ids, cap_ppp, cap_ppp_ids;
	char *strtab;
	uint32_t strtab_size, strtab_cap;
	/* intern table: offsets into strtab, open addressing, 0 = empty slot */
	uint32_t *intern;
	uint32_t intern_cap, intern_used;
	int failed; /* sticky allocation failure */
	/* bytes placed after the strtab at the next multiple of 8 (a WET
	 * TU's statement tables, meta_wet.h), owned by the caller */
	const void *tail;
	size_t tail_size;
};

/* Make *arr (elements of elem bytes, *cap of them) hold at least need,
 * doubling from 16; 0, or -1 with *arr unchanged when out of memory.
 * For the builder's arrays and those of builders beside it. */
int wpp_mb_grow(void **arr, uint32_t *cap, uint32_t need, size_t elem);

void wpp_mb_init(struct wpp_meta_builder *b);
void wpp_mb_free(struct wpp_meta_builder *b);

/* Interns a string (need not be NUL-terminated); returns its offset. */
uint32_t wpp_mb_str(struct wpp_meta_builder *b, const char *s, size_t len);

/* Append one element; return its index (pointers stay valid until the next
 * append of the same kind). */
struct wpp_meta_func *wpp_mb_add_func(struct wpp_meta_builder *b);
struct wpp_meta_block *wpp_mb_add_block(struct wpp_meta_builder *b);
struct wpp_meta_edge *wpp_mb_add_edge(struct wpp_meta_builder *b);
struct wpp_meta_line *wpp_mb_add_line(struct wpp_meta_builder *b);

/* PPP units: the next function's interesting set (n increasing Ball-Larus
 * ids), how it counts (enum wpp_ppp_how) and its PPP interval.  0 or -1
 * (allocation: the builder has failed). */
int wpp_mb_add_ppp(struct wpp_meta_builder *b, const uint64_t *ids, size_t n, uint32_t how,
		   uint64_t interval);

/* Serializes; returns a malloc'ed blob whose size (*size) is a multiple of
 * 8 (header.total_size is the unpadded size), or NULL on failure.  Mode
 * WPP_MODE_PPP writes version 2 (one wpp_mb_add_ppp per function needed). */
void *wpp_mb_finish(struct wpp_meta_builder *b, uint64_t tu_hash, uint32_t mode,
		    uint32_t source_str, uint32_t producer_str, size_t *size);

#endif
