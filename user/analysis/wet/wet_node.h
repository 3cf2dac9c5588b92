/* SPDX-License-Identifier: MIT */
/*
 * wet_node.h — the static half of a WET node (wet_build.h): what a
 * (function, path id) executes, worked out once when the builder first
 * meets the path — its statements and slots, its tier-1 groups from the
 * statements' input sets, and its dependence slots, local ones (def in the
 * same execution at a known position: no label) told apart from the ones
 * that need labels.  The builder then only feeds streams.
 */
#ifndef WPP_WET_NODE_H
#define WPP_WET_NODE_H

#include "analysis/wet/wet_build.h"
#include "analysis/wet/wet_cdg.h"

/* The CFG's control dependences of one function, cached by the builder. */
struct wet_fn_cdg {
	const struct wpp_fn *fn;
	struct wet_cdeps cd;
};

/* Control dependences of fn into c (c->fn set).  0, or -1 (out of memory or
 * a malformed CFG). */
int wet_fn_cdg_build(const struct wpp_fn *fn, struct wet_fn_cdg *c);
void wet_fn_cdg_free(struct wet_fn_cdg *c);

/* Control dependences per function, computed on first use (open
 * addressing by fn pointer; an empty slot has fn NULL). */
struct wet_cdg_cache {
	struct wet_fn_cdg *v;
	uint32_t cap, n;
};
/* fn's entry, or NULL (out of memory, malformed CFG). */
const struct wet_fn_cdg *wet_cdg_cache_get(struct wet_cdg_cache *c, const struct wpp_fn *fn);
void wet_cdg_cache_free(struct wet_cdg_cache *c);

/* A new node for path p of fn (cdg: fn's control dependences).  NULL when
 * out of memory. */
struct wet_node *wet_node_new(const struct wpp_fn *fn, uint64_t path_id, const struct wpp_path *p,
			      const struct wet_fn_cdg *cdg);
/* The statement position of a slot's address or value, or UINT32_MAX. */
uint32_t wet_node_slot_of(const struct wet_node *n, uint32_t pos, uint8_t what);
/* A node's static part alone, its label streams to be filled in (a
 * stored WET being read): wet_node_new without the builders.  NULL when
 * out of memory. */
struct wet_node *wet_node_shell(const struct wpp_fn *fn, uint64_t path_id, const struct wpp_path *p,
				const struct wet_fn_cdg *cdg);
/* Give back the dense tables of the node's builders (wet_builder_release). */
int wet_node_release(struct wet_node *n);
/* A node not fed for a while: its streams' warm-ups of at least
 * WET_NODE_SETTLE_MIN values are coded now (wet_builder_settle), so an
 * idle node costs its compressed labels, not its raw values. */
#define WET_NODE_SETTLE_MIN 32u
int wet_node_settle(struct wet_node *n);
/* Finish every builder of the node into its streams.  0, or -1. */
int wet_node_finish(struct wet_node *n);
void wet_node_free(struct wet_node *n);

#endif
