/* SPDX-License-Identifier: MIT */
/*
 * symbolizer.h — from a MODULE record (object path, build-id, tu_hash) to a
 * validated metadata model.  Objects and parsed TUs are cached, failures
 * too, so each problem is reported once ("wpptrace: warning: ..." naming the
 * object path and build-id) and the caller simply gets NULL: words of that
 * module are then reported as unattributed, the rest of the report works.
 */
#ifndef WPP_SYMBOLIZER_H
#define WPP_SYMBOLIZER_H

#include <stdint.h>

#include "symbolizer/meta_model.h"

struct wpp_symbolizer;

struct wpp_symbolizer *wpp_sym_new(void);

/* Where problems go, once each: an object or TU whose metadata cannot be
 * used, the message naming it and why, not what follows.  By default
 * wpp_warn, with WPP_SYM_UNATTRIBUTED after it: a reader that goes on
 * reports that object's functions as unattributed.  NULL restores it. */
#define WPP_SYM_UNATTRIBUTED "its functions are reported as unattributed"
typedef void (*wpp_sym_report_fn)(void *ctx, const char *msg);
void wpp_sym_set_reporter(struct wpp_symbolizer *sym, wpp_sym_report_fn fn, void *ctx);
void wpp_sym_free(struct wpp_symbolizer *sym);

/* build_id_len 0 = nothing recorded, accept the object without checking. */
const struct wpp_tu *wpp_sym_tu(struct wpp_symbolizer *sym, const char *path,
				const uint8_t *build_id, uint32_t build_id_len, uint64_t tu_hash);

#endif
