/* SPDX-License-Identifier: MIT */
/*
 * tpp_regions.h — the first half of TPP planning (tpp.h): the full DAG
 * with loop-disconnection cuts, each edge's training count, and which
 * edges are hot.  Private to tpp_plan.c; its own file because it is the
 * part driven by the profile (thresholds), the rest is structural.
 */
#ifndef WPP_INSTRUMENT_TPP_REGIONS_H
#define WPP_INSTRUMENT_TPP_REGIONS_H

#include "instrument/tpp.h"

/* Fills t->full, t->edge (train, heat, cut, dead_end), nloops, ncut.
 * Returns 0 or -1 with why. */
int wpp_tpp_regions(struct wpp_tpp *t, const struct wpp_cfg *cfg, const struct wpp_dag *d,
		    const uint64_t *train, const struct wpp_tpp_params *p, char *why,
		    size_t whylen);

/* Appends an edge to t->full and t->edge (train 0, WPP_NONE indices).
 * Returns its index or WPP_NONE (allocation). */
uint32_t wpp_tpp_add_edge(struct wpp_tpp *t, uint32_t src, uint32_t dst, uint32_t kind,
			  uint32_t cfg_src, uint32_t cfg_dst);

/* Turns full REAL edge g (u->v) into a cut: u->EXIT in place and v's
 * ENTRY edge (created when missing), which gains g's training count.
 * Returns the ENTRY edge or WPP_NONE (allocation). */
uint32_t wpp_tpp_cut(struct wpp_tpp *t, uint32_t g);

/* full.restart_at_start from the cuts (every CFG in-edge cut). */
void wpp_tpp_restarts(struct wpp_tpp *t, const struct wpp_cfg *cfg);

/* count < pct % of base, exactly (pct resolved to 1e-6 %). */
int wpp_tpp_below(uint64_t count, uint64_t base, double pct);

#endif
