/* SPDX-License-Identifier: MIT */
/*
 * kipf_build.h — k-IPFs of a recorded .wpp, offline: built from a thread's
 * decoded stream (any .wpp, any k up to KSLAB_MAX_K), or read back from the
 * WPP_CHUNK_KIPF chunks that `record -k` stored.
 *
 * Offline items and marks follow the decoder's events: PATH, BLOCK and
 * UNATTRIBUTED events with a real fid are items (fid, value); GAP, CORRUPT
 * and records of unregistered modules are marks — the same rules
 * kslab_words.h applies to raw words online.
 *
 * Two views (docs/kpaths.md): KIPF_VIEW_ACTIVATION (the default, the
 * paper's) splits the thread's records into routine activations with
 * kslab_act.h, reading each path's start/end kinds from the metadata;
 * KIPF_VIEW_FLAT takes the thread's records as one stream, across calls
 * and returns (what `record -k` builds online, without metadata).
 */
#ifndef WPP_KIPF_BUILD_H
#define WPP_KIPF_BUILD_H

#include <stdint.h>

#include "decode/decoder.h"
#include "analysis/kpaths/kipf.h"
#include "analysis/kpaths/kipf_inst_cost.h"
#include "analysis/kpaths/kipf_serial.h"

enum kipf_view { KIPF_VIEW_ACTIVATION, KIPF_VIEW_FLAT };

/* Add the k-IPF of thread th into f (depth f->k <= KSLAB_MAX_K).
 * max_nodes: k-SF pruning cap (0 = exact).  0, or -1 on no memory
 * (message printed). */
int kipf_build_thread(struct kipf *f, const struct wpp_thread_trace *th, struct wpp_modules *mods,
		      uint64_t max_nodes, enum kipf_view view);

/* Per-instance costs (kipf_inst_cost.h) of thread th's k-paths of the
 * view, depth kipf_inst_cost's k: decodes the thread and splits it as
 * kipf_build_thread does (with an exact k-SF of its own), handing every
 * item its weight; w[0..nw) sorted by event (several per event add up).
 * 0, or -1 on no memory (message printed). */
int kipf_inst_costs_thread(struct kipf_inst_cost *c, unsigned k, const struct wpp_thread_trace *th,
			   struct wpp_modules *mods, enum kipf_view view,
			   const struct kipf_inst_weight *w, size_t nw);

/* Read every WPP_CHUNK_KIPF chunk of the file behind t into st.  Rejected
 * chunks are reported (one warning each, with the offset) and make their
 * thread unusable.  Returns the number of rejected chunks. */
unsigned kipf_store_load(struct kipf_store *st, const struct wpp_trace *t);

#endif
