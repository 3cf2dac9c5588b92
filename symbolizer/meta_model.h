/* SPDX-License-Identifier: MIT */
/*
 * meta_model.h — a validated, in-memory model of one TU's path metadata
 * (wpp/meta_format.h), and the parser that builds it from a blob.
 *
 * The parser treats the blob as hostile.  When it returns a model, every
 * invariant below holds, so consumers index without further checks:
 *   - every string pointer is a NUL-terminated string inside the model;
 *   - fn->blocks[0..nblocks) and fn->edges[0..nedges) are in range;
 *   - each block's lines [first_line, first_line + nlines) are in tu->lines;
 *   - edges have src in [0, nblocks] (nblocks = ENTRY), dst in
 *     [0, nblocks + 1] \ {ENTRY}, are grouped by src ascending and by val
 *     non-decreasing within a src; edge kinds agree with their endpoints
 *     (ENTRY -> block: an ..._ENTRY kind; block -> EXIT: RETURN, NORETURN or an ..._EXIT kind;
 *     block -> block: REAL); the graph is acyclic;
 *   - out_first[] indexes each node's out-edges;
 *   - local indices are unique and < nfuncs, so by_local[] is a bijection;
 *   - in a PPP unit (version 2) each function's interesting ids are
 *     increasing, distinct and below its npaths, and its how is known.
 * The model owns copies of everything (nothing points into the blob).
 */
#ifndef WPP_SYMBOLIZER_META_MODEL_H
#define WPP_SYMBOLIZER_META_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "symbolizer/meta_tpp_model.h"
#include "symbolizer/meta_wet_model.h"
#include "wpp/meta_format.h"

struct wpp_tu;

struct wpp_fn {
	const struct wpp_tu *tu;
	uint32_t local_index;
	uint32_t flags; /* enum wpp_func_flags */
	uint64_t stable_id;
	uint64_t npaths;
	const char *name;
	const char *file;
	uint32_t line;
	uint32_t nblocks; /* DAG nodes: blocks 0..nblocks-1, ENTRY = nblocks, EXIT = nblocks+1 */
	uint32_t nedges;
	const struct wpp_meta_block *blocks;
	const struct wpp_meta_edge *edges;
	/* Out-edges of node n are edges[out_first[n] .. out_first[n + 1]); nblocks + 3 entries. */
	const uint32_t *out_first;
	/* PPP units only (tu->mode == WPP_MODE_PPP): how its paths were counted
	 * (enum wpp_ppp_how), its interesting set (Ball-Larus ids) and PPP
	 * interval; 0 / NULL elsewhere. */
	uint32_t ppp_how;
	uint32_t ppp_nids;
	const uint64_t *ppp_ids;
	uint64_t ppp_interval;
	const struct wpp_wet_fn_model *wet; /* WPP_MODE_WET TUs only, else NULL */
	/* WPP_MODE_TPP TUs, functions counted by their plan (else NULL: a
	 * TPP function with a stale profile counts Ball-Larus ids) */
	const struct wpp_tpp_fn_model *tpp;
};

struct wpp_tu {
	uint64_t tu_hash;
	enum wpp_meta_mode mode;
	const char *source;
	const char *producer;
	uint32_t nfuncs;
	struct wpp_fn *fns;	  /* in blob order */
	struct wpp_fn **by_local; /* [local_index] -> function */
	uint32_t nlines;
	struct wpp_meta_line *lines;
	/* storage */
	struct wpp_meta_block *block_store;
	struct wpp_meta_edge *edge_store;
	uint32_t *out_store;
	uint64_t *ppp_id_store;
	char *strtab;
	uint64_t strtab_size;
	struct wpp_wet_tu_model *wet; /* WPP_MODE_WET only (meta_wet_model.h) */
	struct wpp_tpp_tu_model *tpp; /* WPP_MODE_TPP only (meta_tpp_model.h) */
};

/* Is path id of fn in its interesting set (PPP units)? */
int wpp_fn_ppp_interesting(const struct wpp_fn *fn, uint64_t id);

#define WPP_DAG_ENTRY(fn) ((fn)->nblocks)
#define WPP_DAG_EXIT(fn)  ((fn)->nblocks + 1)

/* First source position of block b of fn, or NULL if the block has none. */
static inline const struct wpp_meta_line *wpp_fn_block_line(const struct wpp_fn *fn, uint32_t b)
{
	const struct wpp_meta_block *bl = &fn->blocks[b];
	return bl->nlines ? &fn->tu->lines[bl->first_line] : NULL;
}

/*
 * Parse the blob at the start of buf (avail bytes readable; the blob's
 * total_size must fit).  Returns the model, or NULL with a one-line reason
 * in err (no prefix, no newline).
 */
struct wpp_tu *wpp_meta_parse(const void *buf, size_t avail, char *err, size_t errlen);
void wpp_tu_free(struct wpp_tu *tu);

/* String by index; valid indices were checked by the parser. */
const char *wpp_tu_str(const struct wpp_tu *tu, uint32_t idx);

/* The innermost function the code at a position was inlined from, or NULL
 * for the function's own code (and in blobs from before the field was
 * filled). */
static inline const char *wpp_line_inlined_from(const struct wpp_tu *tu,
						const struct wpp_meta_line *ln)
{
	return ln->inlined_from_str ? wpp_tu_str(tu, ln->inlined_from_str) : NULL;
}

/*
 * Walk the blobs of a wpp_meta section (each 8-aligned, sized by its
 * total_size) and find the one with tu_hash.  1 = found (*blob, *blob_size
 * set), 0 = no blob has that hash, -1 = the section is malformed (err set).
 */
int wpp_meta_find(const void *section, size_t size, uint64_t tu_hash, const void **blob,
		  size_t *blob_size, char *err, size_t errlen);

#endif
