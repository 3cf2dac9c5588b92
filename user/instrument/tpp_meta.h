/* SPDX-License-Identifier: MIT */
/*
 * tpp_meta.h — the plan tables of a -fwpp-mode=tpp TU (wpp/meta_tpp.h),
 * collected function by function as the blob gets its entries and laid out
 * as the blob's tail.  LLVM-independent.
 */
#ifndef WPP_INSTRUMENT_TPP_META_H
#define WPP_INSTRUMENT_TPP_META_H

#include <stddef.h>
#include <stdint.h>

#include "instrument/meta_blob.h"
#include "instrument/tpp.h"
#include "wpp/meta_tpp.h"

struct wpp_tpp_meta {
	struct wpp_meta_tpp_func *funcs;
	struct wpp_meta_tpp_edge *edges;
	struct wpp_meta_tpp_obvious *obvious;
	uint32_t nfuncs, nedges, nobvious;
	uint32_t cap_funcs, cap_edges, cap_obvious;
	uint32_t cold_ppm, loop_ppm;
	unsigned char *tail;
	size_t tail_size;
};

void wpp_tpp_meta_init(struct wpp_tpp_meta *m, double cold_pct, double loop_pct);
/* The next function: its plan, or NULL when it counts plain Ball-Larus
 * paths; dag_nedges: edges of the DAG it was planned from; split: its
 * paths count in the hash, its other counters in the array
 * (WPP_TPP_HOW_SPLIT).  0, or -1 out of memory. */
int wpp_tpp_meta_add(struct wpp_tpp_meta *m, const struct wpp_tpp *t, uint32_t dag_nedges,
		     int split);
/* Lays the tables out as mb's tail (m keeps owning it).  0 or -1. */
int wpp_tpp_meta_finish(struct wpp_tpp_meta *m, struct wpp_meta_builder *mb);
void wpp_tpp_meta_free(struct wpp_tpp_meta *m);

#endif
