/* SPDX-License-Identifier: MIT */
/*
 * ir_wet.h — -fwpp-mode=wet: the pass side of whole execution traces
 * (docs/wet.md, wet_abi.h, meta_wet.h).  Paths are numbered and recorded
 * as in paths mode (without runs); on top of that:
 *
 *   plan      per block, its statements and what each records (loads and
 *             stores: address and value; external calls: result; with
 *             -fwpp-wet-values=all every other value), and cuts of the DAG
 *             (before numbering) so that no path writes more than
 *             WPP_WET_MAX_WORDS value words;
 *   start     every path start reserves the record (cursor + header + K
 *             within the limit, else __wpp_reserve) and points the value
 *             slot past the header;
 *   values    each recorded item is stored at the value slot as produced;
 *   end       the path word goes into the header and the cursor is
 *             published once, past the values;
 *   calls     after a call the cursor is reloaded and, the call having
 *             ended the path, the next one reserved before the call's
 *             result is stored;
 *   metadata  the statement tables (meta_wet.h), blob tail.
 *
 * Everything emitted goes through module-internal always_inline helpers
 * ("__wpp_wet_*") that keep the cursor slot up to date themselves.
 */
#ifndef WPP_INSTRUMENT_IR_WET_H
#define WPP_INSTRUMENT_IR_WET_H

#include <llvm-c/Core.h>
#include <stddef.h>
#include <stdint.h>

#include "instrument/dag.h"
#include "instrument/ir_cfg.h"
#include "instrument/ir_probes.h"
#include "instrument/meta_blob.h"

struct wpp_wet_tu;
struct wpp_wet_fn;

/* values: enum wpp_wet_values.  NULL on allocation failure. */
struct wpp_wet_tu *wpp_wet_tu_new(struct wpp_probes *p, uint32_t values);
void wpp_wet_tu_free(struct wpp_wet_tu *w);

/* Functions wet mode leaves uninstrumented: memcpy, memmove and memset
 * may be reached from a path's middle (memory intrinsics do not end
 * paths), where a record of their own would land in the caller's
 * reserved record. */
int wpp_wet_skips_function(LLVMValueRef fn);

/* Plan fn (after wpp_ir_cfg_describe and wpp_dag_build, before
 * numbering: may cut d).  NULL on allocation failure. */
struct wpp_wet_fn *wpp_wet_plan(struct wpp_wet_tu *w, LLVMValueRef fn, const struct wpp_ir_cfg *c,
				struct wpp_dag *d);
void wpp_wet_fn_free(struct wpp_wet_fn *f);

/* Its metadata rows, once the blob has its function entry (same order). */
int wpp_wet_meta_add(struct wpp_wet_tu *w, struct wpp_meta_builder *mb, struct wpp_wet_fn *f);
/* The statement tables, after the last function: set as mb's tail (owned
 * by w).  0, or -1 on allocation failure. */
int wpp_wet_meta_finish(struct wpp_wet_tu *w, struct wpp_meta_builder *mb);

/* Emission, in wpp_instrument_function's order.  slots: in the entry
 * block with the other slots (wide: two-word path records). */
void wpp_wet_emit_slots(struct wpp_wet_fn *f, LLVMBuilderRef b, LLVMValueRef cur, int wide);
/* Does block v start with a call after which wpp_wet_after_call reserves
 * the path (any path-ending call but a musttail one)?  Then the path's
 * restart before the call needs no reservation of its own. */
int wpp_wet_reserves_after_call(const struct wpp_wet_fn *f, uint32_t v);
/* A path (re)starts here. */
void wpp_wet_emit_start(struct wpp_wet_fn *f, LLVMBuilderRef b);
/* The path ends here with word w (wide: ctrl, then w). */
void wpp_wet_emit_end(struct wpp_wet_fn *f, LLVMBuilderRef b, LLVMValueRef ctrl, LLVMValueRef w);
/* After every other phase but the cursor reloads: every recorded item
 * except call results, and the entry block's allocas put back first. */
void wpp_wet_emit_values(struct wpp_wet_fn *f, LLVMBuilderRef b, LLVMMetadataRef loc);
/* In place of the cursor reload after `inst` (a call, a memory intrinsic
 * or a landing pad), at the builder's position. */
void wpp_wet_after_call(struct wpp_wet_fn *f, LLVMBuilderRef b, LLVMValueRef inst);

#endif
