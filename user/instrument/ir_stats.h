/* SPDX-License-Identifier: MIT */
/*
 * ir_stats.h — the pass's view of preferential path profiling before any
 * PPP code is emitted: the interesting-path set (wppcc
 * --wpp-interesting, read from WPP_INTERESTING: file paths, one per line)
 * checked against each function as compiled, and `wppcc --wpp-stats`
 * (WPP_STATS: "-" for stderr, else a file each unit appends its lines to
 * in one write), which prints per
 * function
 *
 *   wpp-stats: NAME paths=N interesting=K interval=V gamma=G counting=array|hash
 *              ppp=array|hash|-
 *
 * (N Ball-Larus paths; K of them interesting; V the PPP interval of
 * wpp_ppp_number; G = V / K, "-" when K = 0; counting "hash" when N is
 * above the counting array limit, WPP_COUNT_ARRAY_MAX_PATHS; ppp "hash"
 * when V is, "-" when K = 0) and, per translation unit, a summary with
 * the distribution of Γ:
 *
 *   wpp-stats: SOURCE: F functions, I with interesting paths; gamma <= 1.0: A,
 *              <= 1.1: B, <= 2: C, > 2: D; H count through a hash, P with PPP;
 *              S stale
 *
 * (one line).  With -fwpp-mode=ppp each function line ends with
 * counted=ppp|plain|empty|stale|wide (ppp_plan.h: how its paths are
 * counted) and a second summary line counts each kind:
 *
 *   wpp-stats: SOURCE: ppp mode: A count preferentially; Ball-Larus counting
 *              in P whose paths fit an array, E without interesting paths,
 *              S stale, W too wide
 *
 * A function the set recorded from another build (stable id
 * or edge count differs), or given an id beyond its paths by a
 * hand-written list, falls back to plain Ball-Larus numbering ("stale" in
 * its stats line, counted in S); the translation unit then prints one
 * warning line naming the first few changed ones, and one per function
 * with such a listed id (the id, its path count, the list's file and
 * line).  With a hand-written list, the listed names the unit compiled
 * also go to wppcc (listed_seen.h).
 */
#ifndef WPP_INSTRUMENT_IR_STATS_H
#define WPP_INSTRUMENT_IR_STATS_H

#include <llvm-c/Core.h>
#include <stddef.h>
#include <stdint.h>

#include "instrument/dag.h"
#include "instrument/ppp_plan.h"

struct wpp_ir_stats;

/* From the environment; NULL when neither option is given (or out of
 * memory: the build goes on without them, with a message). */
struct wpp_ir_stats *wpp_ir_stats_open(const char *source, size_t source_len);

/* The function's interesting Ball-Larus ids (d numbered): a
 * wpp_interesting_match.  FOUND: *ids and *counts (their executions in
 * the set, 0 where unknown) malloc'd (caller frees), *n of them,
 * increasing; STALE (noted for the warning) and NONE (also when st is NULL
 * or no set was given): *ids and *counts NULL, *n 0. */
int wpp_ir_stats_lookup(struct wpp_ir_stats *st, LLVMValueRef fn, uint64_t stable_id,
			const struct wpp_dag *d, uint64_t **ids, uint64_t **counts, size_t *n);

/* The function's --wpp-stats line.  hashes: Ball-Larus counting puts
 * (would put) its paths in the hash (counting=hash).  plan: what
 * -fwpp-mode=ppp made of it (reported as counted=ppp|plain|empty|stale|wide
 * and tallied in a second summary line), or NULL in other modes, where the
 * numbering is computed here for the report only. */
void wpp_ir_stats_function(struct wpp_ir_stats *st, LLVMValueRef fn, const struct wpp_dag *d,
			   const uint64_t *ids, size_t n, int stale, int hashes,
			   const struct wpp_ppp_plan *plan);

/* The summary and the stale warning; frees st (NULL allowed). */
void wpp_ir_stats_close(struct wpp_ir_stats *st);

#endif
