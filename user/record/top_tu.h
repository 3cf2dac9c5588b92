/* SPDX-License-Identifier: MIT */
/*
 * top_tu.h — `wpptrace top`'s view of one translation unit in a running
 * process: its fid range and the object that holds its metadata, whether
 * it came from the process's registry (counting builds, top_count.c) or
 * from the BPF collector's MODULE events (tracing builds, top_trace.c).
 * TUs are interned: one record per distinct TU, kept until the table is
 * freed, so rows and process tables can point at them for the whole run
 * however processes come and go (the table grows with the distinct
 * binaries seen, not with processes).
 */
#ifndef WPP_TOP_TU_H
#define WPP_TOP_TU_H

#include <stdint.h>

#include "symbolizer/symbolizer.h"

struct top_tu {
	uint32_t fid_base, nfuncs;
	uint64_t tu_hash;
	uint8_t build_id[20];
	uint32_t build_id_len;
	const char *path; /* the object; "" if unknown */
};

struct top_tus;

struct top_tus *top_tus_new(void);
void top_tus_free(struct top_tus *t);
/* The interned copy of *tu (path copied); NULL without memory. */
const struct top_tu *top_tus_intern(struct top_tus *t, const struct top_tu *tu);

/* The last TU looked up and its metadata model: rows come grouped by
 * TU, and a symbolizer lookup compares paths.  Zero it to start. */
struct top_tu_cache {
	const struct top_tu *tu;
	const struct wpp_tu *model; /* NULL: unusable */
};

/* fid's function if tu holds it (NULL otherwise, or when the TU's
 * metadata is unusable: the symbolizer says why, once).  cache may be
 * NULL. */
const struct wpp_fn *top_tu_fn(struct wpp_symbolizer *sym, struct top_tu_cache *cache,
			       const struct top_tu *tu, uint32_t fid);
/* The TU's mode (enum wpp_meta_mode), 0 when its metadata is unusable. */
int top_tu_mode(struct wpp_symbolizer *sym, struct top_tu_cache *cache, const struct top_tu *tu);

/* Order of binaries for merging rows across processes: two TUs compare
 * equal when they are the same TU of the same build (build-id and TU
 * hash; the object's path when it has no build-id), wherever it is
 * mapped and whatever fids it got. */
int top_tu_binary_cmp(const struct top_tu *a, const struct top_tu *b);

#endif
