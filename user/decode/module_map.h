/* SPDX-License-Identifier: MIT */
/*
 * module_map.h — which function a fid names in one process image.
 *
 * An image (pid, generation) owns the fid ranges of its MODULE chunks.  A
 * forked image also inherits the ranges of the parent image it was forked
 * from (its own MODULE chunks win where they overlap).  Each range points to
 * the TU model the symbolizer produced, or to nothing when the object or its
 * metadata is unusable (the symbolizer already said why, once).
 */
#ifndef WPP_DECODE_MODULE_MAP_H
#define WPP_DECODE_MODULE_MAP_H

#include <stdint.h>

#include "symbolizer/meta_model.h"
#include "symbolizer/symbolizer.h"
#include "decode/trace_file.h"

struct wpp_fid_range {
	uint32_t base, n;
	const struct wpp_module_rec *module;
	const struct wpp_tu *tu; /* NULL: no usable metadata */
};

struct wpp_image_map {
	uint32_t pid, generation;
	struct wpp_fid_range *ranges; /* sorted by base, disjoint */
	size_t nranges;
};

enum wpp_resolve {
	WPP_RESOLVED,
	WPP_NO_MODULE,	 /* no MODULE chunk covers the fid */
	WPP_NO_METADATA, /* the module's object or metadata is unusable */
	WPP_NO_FUNCTION, /* the TU has no function with that local index */
};

struct wpp_modules;

struct wpp_modules *wpp_modules_new(const struct wpp_trace *t, struct wpp_symbolizer *sym);
void wpp_modules_free(struct wpp_modules *m);

/* The map of one image (built on first use); never NULL (may be empty). */
const struct wpp_image_map *wpp_modules_image(struct wpp_modules *m, uint32_t pid,
					      uint32_t generation);

enum wpp_resolve wpp_image_resolve(const struct wpp_image_map *im, uint32_t fid,
				   const struct wpp_fn **fn, const struct wpp_fid_range **range);

const char *wpp_resolve_reason(enum wpp_resolve r);

#endif
