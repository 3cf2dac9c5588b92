/* SPDX-License-Identifier: MIT */
/*
 * kslab.h — the streaming k-slab forest (k-SF) of D'Elia, Demetrescu and
 * Finocchi, "Ball-Larus path profiling across multiple loop iterations",
 * section 2.3 (Figure 6), built one path record at a time.
 *
 * Input: a thread's stream of path labels (fid, path id) with segment marks
 * (docs/kpaths.md: a mark sits at every place where the stream is not
 * contiguous execution — thread start, lost words, corrupt records).  A
 * k-path is a run of up to k consecutive labels with no mark inside.
 *
 * The forest has 2k-2 levels: the stream since the last mark is cut every
 * k-1 items into slabs s1, s2, ...; the upper part holds each slab's prefix
 * path under a root found through a hash table (one lookup per k-1 items),
 * the lower part hangs slab i+1 below slab i.  Every item increments exactly
 * one counter.  kipf.h turns the forest into the k-IPF at the end.
 *
 * Pruning (optional, the paper's open problem): with max_nodes > 0, whenever
 * the forest grows past max_nodes the coldest leaves are deleted until at
 * most max_nodes/2 nodes remain (never the nodes any stream's top/bottom
 * pointers stand on; when those alone keep it above max_nodes/2, the next
 * sweep waits until the forest has doubled, so memory stays within
 * max(max_nodes, 2 * pinned) + 2 nodes and sweeps O(1) per item).  The
 * counts deleted are summed in lost_items; every k-IPF count
 * built from a pruned forest is then at most lost_items below the truth and
 * never above it (docs/kpaths.md proves it).  With max_nodes = 0 the forest
 * is exact.
 */
#ifndef WPP_KSLAB_H
#define WPP_KSLAB_H

#include <stdint.h>

#define KSLAB_MAX_K 32u

struct kslab_stats {
	uint64_t items;	       /* labels processed */
	uint64_t marks;	       /* segment marks (and outermost streams ended, kslab_act.h) */
	uint64_t nodes;	       /* live k-SF nodes */
	uint64_t peak_nodes;   /* most live nodes at any time */
	uint64_t root_lookups; /* hash-table lookups (one per k-1 items) */
	uint64_t lost_items;   /* counts deleted by pruning */
	uint64_t prunes;       /* pruning sweeps */
};

struct kslab;

/* k in 1..KSLAB_MAX_K (k = 1 keeps 2-item slabs internally: the paper's
 * construction needs k >= 2; the k-IPF is cut at depth 1).  max_nodes = 0:
 * exact; otherwise at least 8k.  NULL on bad arguments or no memory. */
struct kslab *kslab_new(unsigned k, uint64_t max_nodes);
void kslab_free(struct kslab *s);

/* Process one label.  fid must be non-zero (fid 0 marks free nodes).
 * 0, or -1 once an allocation failed (the forest is then incomplete and
 * stays so; kslab_failed() says it). */
int kslab_item(struct kslab *s, uint32_t fid, uint64_t value);
/* The same label `times` times in a row (a REPEAT run, trace_abi.h): the
 * forest and stats are exactly those of `times` kslab_item() calls, but
 * once the run fills a whole slab the cursor's walk repeats with period
 * k-1, so each further whole slab only adds 1 to the same k-1 nodes: the
 * cost is O(k) per call (plus the item-by-item steps up to the first slab
 * boundary after a full slab of the label), not O(times).  0 or -1. */
int kslab_item_run(struct kslab *s, uint32_t fid, uint64_t value, uint64_t times);
/* A segment mark: the next item starts a new k-path. */
void kslab_mark(struct kslab *s);

/*
 * Several interleaved streams (routine activations, docs/kpaths.md): the
 * items fed go to the current stream; kslab_push() suspends it and starts
 * a new one (as after a mark), kslab_pop() ends the current stream and
 * resumes the one suspended last (or starts a new one if none is).  All
 * streams count into the one forest, as the paper's per-activation k-SF
 * does.  Pruning keeps every suspended stream's nodes.  kslab_drop_all()
 * forgets every stream (a mark for all of them).  push: 0, or -1 on no
 * memory (kslab_failed() then says so).
 */
int kslab_push(struct kslab *s);
void kslab_pop(struct kslab *s);
void kslab_drop_all(struct kslab *s);
uint32_t kslab_depth(const struct kslab *s); /* suspended streams */
/* Streams are numbered as they begin (after a mark or a push), so on the
 * stack of live streams the numbers increase from the outermost up.
 * kslab_item_stream: the stream the last item went to (read it right after
 * the item: a return pops that stream).  kslab_suspended_stream(s, i): the
 * i-th suspended stream, i < kslab_depth(s), outermost first. */
uint64_t kslab_item_stream(const struct kslab *s);
uint64_t kslab_suspended_stream(const struct kslab *s, uint32_t i);

unsigned kslab_k(const struct kslab *s);
int kslab_failed(const struct kslab *s);
const struct kslab_stats *kslab_stats(const struct kslab *s);

#endif
