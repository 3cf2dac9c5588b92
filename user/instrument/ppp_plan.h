/* SPDX-License-Identifier: MIT */
/*
 * ppp_plan.h — how one function of a -fwpp-mode=ppp unit counts its paths
 * (trace_abi.h, "Preferential path counting"; docs/instrumentation.md,
 * "Preferential path profiling"), decided from its numbered and placed
 * DAG and its interesting set, independent of LLVM so the unit tests can
 * run the plan against brute force.
 *
 * Preferential numbering (ppp.h) is used where it pays: where Ball-Larus
 * counting would need the hash (more paths than an array range takes,
 * min_paths), the interval of the interesting paths fits one
 * (max_slots) and, where counting would hash, PPP's code is cheaper than
 * the path cache in front of the hash (ppp_cost.h; else the function
 * counts by Ball-Larus id, `cache` in --wpp-stats).  Then the PPP weights are placed on the
 * Ball-Larus register's chords (placement.h: the same spanning tree, so both registers change on
 * the same edges; event counting holds for any edge values, each path's increments summing to its
 * sum of weights), and the slot table maps each PPP id below the interval to the Ball-Larus id of
 * the interesting path it numbers, or WPP_PPP_HOLE.  Everywhere else the
 * function counts by Ball-Larus id as counting mode does (its how says
 * why); its interesting set still goes into the metadata, so residual
 * paths are found offline for it.
 */
#ifndef WPP_INSTRUMENT_PPP_PLAN_H
#define WPP_INSTRUMENT_PPP_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "instrument/dag.h"
#include "instrument/ppp_cost.h"

struct wpp_ppp_plan {
	uint32_t how;	   /* enum wpp_ppp_how (meta_format.h) */
	uint32_t nids;	   /* interesting paths (distinct) */
	uint64_t interval; /* PPP interval, when numbered (ARRAY, and WIDE by size) */
	double gamma;	   /* interval / nids, when numbered; else 0 */
	uint64_t *inc;	   /* ARRAY: [d->nedges] PPP increments, 0 off the chords */
	uint64_t *slot_bl; /* ARRAY: [interval] Ball-Larus id per PPP id, or WPP_PPP_HOLE */
	char why[160];	   /* WIDE because numbering failed: the reason */
	int costed;	   /* cost holds the comparison with the path cache */
	int cache;	   /* PLAIN because the path cache is cheaper */
	struct wpp_ppp_cost cost;
};

/* What decides a function's plan besides its DAG and set. */
struct wpp_ppp_policy {
	uint64_t min_paths; /* PPP only above this many Ball-Larus paths */
	uint64_t max_slots; /* and for an interval up to this */
	/* counting would hash the function: PPP only where it beats the path
	 * cache of 2^cache_log2 pairs (0: no cache, the hash's probe) */
	int decide;
	unsigned cache_log2;
};

/* d numbered and placed (edges[].in_tree set); ids: the function's n
 * interesting Ball-Larus ids (increasing, distinct, below d->npaths);
 * counts: their executions in the set, or NULL; stale: the set was
 * recorded from another build (ids ignored).  Fills out; 0, or -1 on
 * allocation failure (out then empty). */
int wpp_ppp_plan_make(const struct wpp_dag *d, const uint64_t *ids, const uint64_t *counts,
		      size_t n, int stale, const struct wpp_ppp_policy *pol,
		      struct wpp_ppp_plan *out);
void wpp_ppp_plan_free(struct wpp_ppp_plan *p);

/* The default min_paths: the environment's WPP_PPP_MIN_PATHS=N (tests and
 * measurements; 0 numbers every function with interesting paths
 * preferentially), else the counting array limit. */
uint64_t wpp_ppp_min_paths(uint64_t array_limit);

/* The largest PPP interval that counts in an array: array_limit (the
 * counting array limit), but no more than WPP_PPP_MAX_INTERVAL, since the
 * slot table is a constant of the binary. */
uint64_t wpp_ppp_max_interval(uint64_t array_limit);

/* Whether the pass compares PPP with the path cache: unless the
 * environment's WPP_PPP_COST=0 (measurements: PPP wherever counting would
 * hash and the interval fits, as before the comparison). */
int wpp_ppp_cost_on(void);

/* What how says, for --wpp-stats: "ppp", "plain", "empty", "stale", "wide". */
const char *wpp_ppp_how_name(uint32_t how);
/* The same for a plan: "cache" where PLAIN because the cache is cheaper. */
const char *wpp_ppp_plan_counted(const struct wpp_ppp_plan *p);

#endif
