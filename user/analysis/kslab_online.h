/* SPDX-License-Identifier: MIT */
/*
 * kslab_online.h — the k-path consumer for the collector's online assembler
 * (user/collect/online.h): `wpptrace record -k K` builds one k-slab forest
 * per thread from its words as they arrive, converts it to the thread's
 * k-IPF when the thread ends and writes it as WPP_CHUNK_KIPF chunks.
 * These forests are the flat view (k-paths across calls and returns,
 * docs/kpaths.md): raw words do not say which path starts at a routine
 * entry or ends at a return, so the per-activation view is built offline.
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

#include "online.h"

struct kslab_online_cfg {
	unsigned k;	      /* 1..KSLAB_MAX_K */
	uint64_t max_nodes;   /* 0 = exact */
	uint32_t max_payload; /* chunk size limit; 0 = 16 MiB */
};

/* A consumer whose cfg is *cfg (must outlive the assembler). */
struct wpp_online_consumer kslab_online_consumer(struct kslab_online_cfg *cfg);

#endif
