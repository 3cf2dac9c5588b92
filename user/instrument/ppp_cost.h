/* SPDX-License-Identifier: MIT */
/*
 * ppp_cost.h — is preferential numbering cheaper than the path cache for
 * one function that Ball-Larus counting would hash?  (issue 26: "PPP never
 * above counting"; docs/instrumentation.md, "Preferential path counting".)
 *
 * Both ways share the Ball-Larus register and its chord increments; what
 * differs per execution of an interesting path p is
 *
 *   PPP:      WPP_COST_PPP_START (the second register's start)
 *             + WPP_COST_PPP_CHORD per chord of p whose PPP increment is
 *               not 0 (the second register's adds)
 *             + WPP_COST_PPP_END (interval check, slot-table compare, incq)
 *   counting: WPP_COST_CACHE_HIT when p holds its cache pair, else
 *             WPP_COST_CACHE_MISS (the miss call and the hash behind it);
 *             with no cache (cache_log2 0), WPP_COST_HASH_PROBE.
 *
 * The cache is direct-mapped and first come, first served: of the
 * interesting paths whose keys (id + 1) share a pair, one holds it and the
 * others miss on every execution.  The model lets the most executed of
 * them hold it (counting's best case: PPP is chosen only where it wins
 * even so).  Executions are the set's counts where it has them (a
 * recorded set), else every interesting path once.  Residual paths are
 * left out: the set does not know them, and both ways count them in a
 * path cache by Ball-Larus id.
 *
 * The constants are instructions of the code the pass emits at -O2 on
 * x86-64 (docs/benchmarks.md, "PPP only where it beats the cache"); they
 * are a model, checked against callgrind by scripts/count-hashed-cost.
 */
#ifndef WPP_INSTRUMENT_PPP_COST_H
#define WPP_INSTRUMENT_PPP_COST_H

#include <stddef.h>
#include <stdint.h>

#include "instrument/dag.h"

#define WPP_COST_PPP_START  1  /* mov $c, %reg at each path start */
#define WPP_COST_PPP_CHORD  1  /* add $c, %reg */
#define WPP_COST_PPP_END    5  /* cmp, jae, cmp (mem), jne, incq */
#define WPP_COST_CACHE_HIT  6  /* mov, imul, shr, cmp (mem), jne, incq */
#define WPP_COST_CACHE_MISS 90 /* the hit's test, the miss call, the hash */
#define WPP_COST_HASH_PROBE 22 /* the hash's inline probe (no cache) */

struct wpp_ppp_cost {
	double ppp, count;  /* added instructions per interesting path execution */
	double chords;	    /* PPP increments per interesting path execution */
	uint32_t conflicts; /* interesting paths that lose their cache pair */
	double missed;	    /* their share of the executions */
};

/* The cache pair of a cached function's key (id + 1) in a cache of
 * 2^log2 pairs (trace_abi.h, "A hashed function's path cache"). */
uint64_t wpp_cache_pair(uint64_t key, unsigned log2);

/* d numbered; pinc: the PPP increment per DAG edge (placed, 0 off the
 * chords); ids: n interesting Ball-Larus ids, increasing and distinct;
 * counts: their executions, or NULL (or all 0: each counts 1); cache_log2:
 * the pairs counting mode would give the function (0: no cache, the hash
 * probe).  0, or -1 on allocation failure or an id that does not decode. */
int wpp_ppp_cost(const struct wpp_dag *d, const uint64_t *pinc, const uint64_t *ids,
		 const uint64_t *counts, size_t n, unsigned cache_log2, struct wpp_ppp_cost *out);

#endif
