/* SPDX-License-Identifier: MIT */
/*
 * inline_names.h — the inlined function a source position of a path belongs
 * to, for renderings ("23-24 (in hash_word, inlined into add_word)").
 *
 * The path metadata names each block's file:line:column but not the inlined
 * function (LLVM-C cannot name it); the object's DWARF can
 * (symbolizer/dwarf_lookup.h: wpp_dwarf_fn_inlines).  Looked up lazily, once
 * per function, and only for functions something renders.  The build-id is
 * not checked again: the symbolizer read the metadata of the same object in
 * this session and refused a rebuilt one.  No DWARF (built without -g,
 * object gone) simply means no names.
 */
#ifndef WPP_REPORT_INLINE_NAMES_H
#define WPP_REPORT_INLINE_NAMES_H

#include "symbolizer/meta_model.h"

struct rpt_inlines;

struct rpt_inlines *rpt_inlines_new(void);
void rpt_inlines_free(struct rpt_inlines *in);

/* "hash_word, inlined into add_word" for position l of fn (whose object
 * file is object), or NULL for the function's own code or when unknown.
 * in may be NULL (no names).  The string lives as long as in. */
const char *rpt_inline_label(struct rpt_inlines *in, const struct wpp_fn *fn, const char *object,
			     const struct wpp_meta_line *l);

#endif
