/* SPDX-License-Identifier: MIT */
/*
 * kslab_online.h — the k-path consumer for the collector's online assembler
 * (user/collect/online.h): `wpptrace record -k K` builds one k-slab forest
 * per thread from its words as they arrive, converts it to the thread's
 * k-IPF when the thread ends and writes it as WPP_CHUNK_KIPF chunks.
 *
 * Which view (docs/kpaths.md) depends on what the collector knows: raw
 * words do not say which path starts at a routine entry or ends at a
 * return.  With a kinds source (the metadata of the modules registered so
 * far, kipf_kinds_live.h) the forests are the per-activation view, as
 * `kpaths` builds offline, and the chunks say so (WPP_KIPF_ACTIVATION);
 * without one they are the flat view.
 *
 *   static struct kslab_online_cfg kcfg = {.k = 8};
 *   struct wpp_online_consumer c = kslab_online_consumer(&kcfg);
 *
 * Memory: one k-SF per live thread (docs/kpaths.md has sizes); with
 * max_nodes the forest is pruned to stay below it (counts then lower
 * bounds, error bound stored in the chunk).
 */
#ifndef WPP_KSLAB_ONLINE_H
#define WPP_KSLAB_ONLINE_H

#include <stdint.h>

#include "collect/online.h"

/* Where a recorded path starts and ends: KACT_ENTRY | KACT_RETURN bits
 * (kslab_act.h), KACT_UNKNOWN when its function or path is not known (yet),
 * -1 on no memory.  Called for every path record of the thread `key`. */
struct kslab_kinds_source {
	int (*kinds)(void *ctx, const struct wpp_thread_key *key, uint32_t fid, uint64_t id);
	void *ctx;
};

struct kslab_online_cfg {
	unsigned k;	      /* 1..KSLAB_MAX_K */
	uint64_t max_nodes;   /* 0 = exact */
	uint32_t max_payload; /* chunk size limit; 0 = 16 MiB */
	/* NULL: the flat view; else the per-activation view (outlives the
	 * assembler). */
	const struct kslab_kinds_source *kinds;
};

/* A consumer whose cfg is *cfg (must outlive the assembler). */
struct wpp_online_consumer kslab_online_consumer(struct kslab_online_cfg *cfg);

#endif
