/* SPDX-License-Identifier: MIT */
/*
 * meta_wet_model.h — the validated statement tables of a WET TU
 * (wpp/meta_wet.h), parsed with its blob (meta_model.h).
 *
 * When the parser returns a WET TU, every invariant below holds, so
 * consumers index without further checks:
 *   - fn->wet->blocks[b] for b < fn->nblocks names statements inside
 *     tu->wet->stmts, and each statement's operands lie inside tu->wet->ops;
 *   - kinds, records, value types and operand kinds are known values; only
 *     loads, stores and rmw record an address, and a value is recorded only
 *     with a value type;
 *   - within its function: statement and operand instruction ids are below
 *     ninsns, argument operands below nargs, block operands and phi blocks
 *     below nblocks (or WPP_WET_NO_BLOCK), string indices in the strtab;
 *   - fn->wet->block_slots[b] is the slots block b writes into a path
 *     record (at most WPP_WET_MAX_WORDS).
 */
#ifndef WPP_SYMBOLIZER_META_WET_MODEL_H
#define WPP_SYMBOLIZER_META_WET_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "wpp/meta_wet.h"

struct wpp_tu;
struct wpp_meta_header;

struct wpp_wet_fn_model {
	uint32_t ninsns, nargs, max_words;
	const struct wpp_meta_wet_block *blocks; /* [fn->nblocks] */
	const uint32_t *block_slots;		 /* [fn->nblocks] */
};

struct wpp_wet_tu_model {
	uint32_t values; /* enum wpp_wet_values */
	uint32_t nstmts, nops;
	struct wpp_meta_wet_stmt *stmts;
	struct wpp_meta_wet_operand *ops;
	struct wpp_meta_wet_block *blocks; /* parallel to the TU's block table */
	uint32_t *slots;		   /* per block */
	struct wpp_wet_fn_model *fns;	   /* parallel to tu->fns */
};

/* Parse the tables of a WET blob b (h: its checked header) into tu->wet
 * and point every fn->wet at its part.  0, or -1 with a one-line reason in
 * err. */
int wpp_meta_wet_parse(struct wpp_tu *tu, const unsigned char *b, const struct wpp_meta_header *h,
		       char *err, size_t errlen);
void wpp_meta_wet_free(struct wpp_wet_tu_model *w);

/* The slots one statement writes (0..2). */
static inline uint32_t wpp_wet_stmt_slots(const struct wpp_meta_wet_stmt *s)
{
	return (uint32_t)((s->records & WPP_WET_REC_ADDR) != 0) +
	       (uint32_t)((s->records & WPP_WET_REC_VALUE) != 0);
}

#endif
