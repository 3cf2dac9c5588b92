/* SPDX-License-Identifier: MIT */
/*
 * wet_values.h — which statement each value slot of a WET path record
 * belongs to (wet_abi.h, meta_wet.h): a path's blocks in order, each
 * block's recorded statements in order, a statement's address before its
 * value.  The decoder counts a record's slots with it, and every reader of
 * values (wpptrace wet dump, the WET builder) names them with it.
 */
#ifndef WPP_DECODE_WET_VALUES_H
#define WPP_DECODE_WET_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "symbolizer/meta_model.h"
#include "decode/path_regen.h"

struct wpp_wet_item {
	uint32_t block;			      /* function-local block index */
	const struct wpp_meta_wet_stmt *stmt; /* in fn->tu->wet->stmts */
	uint8_t what;			      /* WPP_WET_REC_ADDR or WPP_WET_REC_VALUE */
};

/* Slots a record of path p of fn (a WET function) holds. */
uint64_t wpp_wet_path_nslots(const struct wpp_fn *fn, const struct wpp_path *p);

/* The item of each slot, in record order, into items[0 .. nslots). */
void wpp_wet_path_items(const struct wpp_fn *fn, const struct wpp_path *p,
			struct wpp_wet_item *items);

/* A statement kind's name ("load", "store", ...; "?" for none known). */
const char *wpp_wet_kind_name(uint8_t kind);

/* A statement's source file: its own, else its function's, else "?". */
const char *wpp_wet_stmt_file(const struct wpp_fn *fn, const struct wpp_meta_wet_stmt *s);

/* The 64 bits of a slot as text for its statement's type: addresses and
 * pointers in hex, integers signed, floats as numbers. */
void wpp_wet_format(const struct wpp_wet_item *it, int64_t v, char *buf, size_t size);

#endif
