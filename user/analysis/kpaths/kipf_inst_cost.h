/* SPDX-License-Identifier: MIT */
/*
 * kipf_inst_cost.h — exact per-instance k-path costs (docs/kpaths.md,
 * "Costs").
 *
 * Every path instance i of a thread has a cost w_i (for a sampled counter:
 * the events of the samples attributed to that very instance, costs.h).
 * An occurrence of a k-path is a window of consecutive items of one stream
 * (an activation, or the thread between marks in the flat view); its cost
 * is the sum of its instances' w, and a k-IPF node's cost is the sum over
 * every occurrence of its k-path.
 *
 * Only sampled instances (w > 0) add anything, and a sampled instance q
 * adds w_q to every window of <= k items of q's stream that contains q.  So
 * it is enough to keep, per sampled instance, its context: the <= k-1
 * items of its stream before it and the <= k-1 after it.  At the end each
 * context walks the k-IPF once per start position: O(k^2) per sample, and
 * per item only a ring of its stream's last k-1 labels.
 *
 * Streams are the k-SF's (kslab_item_stream()), so the split into
 * activations is exactly the one the forest was built with.  Streams that
 * have ended are dropped as soon as the k-SF's stack shows it.
 */
#ifndef WPP_KIPF_INST_COST_H
#define WPP_KIPF_INST_COST_H

#include <stdint.h>

#include "analysis/kpaths/kipf.h"
#include "analysis/kpaths/kslab.h"

struct kipf_inst_cost;

/* Contexts for k-paths of up to k items.  NULL on no memory. */
struct kipf_inst_cost *kipf_inst_cost_new(unsigned k);
void kipf_inst_cost_free(struct kipf_inst_cost *c);
/* The item (fid, value) just fed to s, with its cost w (0: unsampled).
 * 0, or -1 on no memory. */
int kipf_inst_cost_item(struct kipf_inst_cost *c, const struct kslab *s, uint32_t fid,
			uint64_t value, double w);
/* Every stream ended (a mark, the thread's end). */
void kipf_inst_cost_end(struct kipf_inst_cost *c);
/* One instance's cost: the `event`-th PATH/BLOCK event of a thread's
 * decoded stream (0-based, repetitions of a run counted), as costs.h
 * numbers sample hits. */
struct kipf_inst_weight {
	uint64_t event;
	double cost;
};
/* The item (fid, value) `times` times in a row, just fed to s as a run
 * (kslab_item_run, kact_item_run): exactly `times` kipf_inst_cost_item()
 * calls, the instances being events first_event, first_event + 1, ...
 * with the costs w[0..nw) (sorted by event, all inside the run, several
 * per event adding up).  O(k) per sampled instance, plus O(k): a run's
 * unsampled stretches change nothing once k-1 of its items went by.
 * 0, or -1 on no memory. */
int kipf_inst_cost_run(struct kipf_inst_cost *c, const struct kslab *s, uint32_t fid,
		       uint64_t value, uint64_t times, uint64_t first_event,
		       const struct kipf_inst_weight *w, size_t nw);

/* Add every context's windows into cost[idx] for the nodes of f (cost has
 * f->nnodes + 1 entries).  f may be merged over threads and cut at any
 * depth: windows longer than f->k, or absent from f, add nothing. */
void kipf_inst_cost_apply(const struct kipf_inst_cost *c, struct kipf *f, double *cost);

#endif
