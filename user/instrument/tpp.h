/* SPDX-License-Identifier: MIT */
/*
 * tpp.h — targeted path profiling (Joshi, Bond, Zilles, "Targeted Path
 * Profiling: Lower Overhead Path Profiling for Staged Dynamic Optimization
 * Systems", CGO 2004): from a function's Ball-Larus DAG and a training edge
 * profile, what a counting build must do on every edge, and how its
 * counters turn back into a full path profile.  LLVM-independent, like
 * ppp.h; the counting pass applies the plan edge by edge.
 *
 * Three graphs over the same nodes (blocks, ENTRY, EXIT):
 *
 *   full  the function's DAG (dag.h, numbered) with every REAL edge into or
 *         out of a disconnected loop turned into a cut (u->EXIT in place,
 *         plus ENTRY->v): edge i < d->nedges is d's edge i.  Every edge is
 *         hot or cold.  Its val/inc fields are d's (or 0 on edges TPP
 *         added) and mean nothing to TPP: see hot and rec.
 *   hot   its hot edges, Ball-Larus numbered: val sums name every hot path
 *         (the TPP path id, 0 .. hot.npaths-1), counted or obvious.
 *   rec   the hot edges that lead to a non-obvious recording point,
 *         numbered again and placed (placement.h, with the caller's
 *         weights): val sums are the counter slots 0 .. nslots-1.
 *
 * Cold edges (section 4.1.1): an edge out of a block that takes less than
 * cold_pct % of the block's training executions, and transitively every
 * edge on no ENTRY->EXIT path of such "locally hot" edges.  An ENTRY->v
 * edge is locally hot when one of the cuts that restart at v is (so a
 * header whose back edges are all cold has no path start, section 4.1.2).
 * A function that never ran in training has no cold edge.  With
 * params.array_max set, cold edges are removed only where that pays
 * (section 5): the function is planned with and without them, and the
 * exact plan is kept unless it needs the hash and the cold one does not,
 * or the cold one executes a tenth less on the training run.
 *
 * Loop disconnection (section 4.2.1): a natural loop (loops.h) whose
 * entry edges (and calls, for the entry block) ran less than loop_pct %
 * as often as its header has every REAL edge entering or leaving its
 * body cut.
 *
 * Obvious paths (section 4.2.2): a hot edge is defining when it lies on
 * one hot path; a recording point (hot edge into EXIT) is obvious when
 * every path ending there has a defining edge (Figure 8).  Paths ending
 * at obvious recording points are not counted: each has one chosen
 * defining edge whose executions are counted instead (one on no cold
 * path when there is one, so its count is exact, else the one with the
 * fewest training executions, which bounds the overcount by cold paths
 * through it, section 4.3).  Hot edges that reach no non-obvious
 * recording point carry no register code.
 *
 * Register code (struct wpp_tpp_edge.op), with the counters laid out as
 * slots 0 .. nslots-1, the cold counter at slot nslots, the edge counters
 * after it and the poison slots after those (wpp_tpp_poison_base):
 *   ADD k     r += k                       hot chords (rec placement)
 *   SET k     r = k                        hot path starts (ENTRY->v),
 *                                          and cold edges into rec nodes
 *   RECORD k  count[r + k]++               non-obvious recording points:
 *                                          counting mode's path end, no
 *                                          bound check (a poisoned path
 *                                          lands in a poison slot)
 *   COLD      count[nslots]++              cold edges into EXIT (cold
 *                                          back edges, cold returns, ...)
 * and, on the edges with a counter (never one with register code),
 * edge_count[counter]++ for the obvious paths.
 * Poisoning (choice, see docs/instrumentation.md "Targeted path
 * profiling"): a cold edge into a node of rec sets r = P - phi(v), P
 * being the first poison slot and phi rec's placement potential, so
 * every poisoned path reaches its recording point with r + k in
 * [P, P + nslots): a slot of its own, never a valid one, whatever the
 * increments after the cold edge; the poison slots sum to cold paths like
 * the cold counter.  The paper poisons on leaving the hot region instead,
 * relies on small increments and picks the cold counter by a conditional
 * move at every recording point (appendix A.1); a plan with no cold edge
 * has no poison slots (nothing is poisoned).
 * Cuts run the u->EXIT edge's code, then the ENTRY->v edge's (A.3).
 */
#ifndef WPP_INSTRUMENT_TPP_H
#define WPP_INSTRUMENT_TPP_H

#include <stddef.h>
#include <stdint.h>

#include "instrument/dag.h"

struct wpp_tpp_params {
	double cold_pct; /* --tpp-cold, percent of the source block's executions */
	double loop_pct; /* --tpp-loop, percent of the header's executions */
	uint64_t narrow_limit, wide_limit; /* numbering.h */
	/* Placement weights per edge of d (weights.h: static, or the
	 * profile applied with the static order as tie-break), or NULL for
	 * the training counts alone. */
	const double *weight;
	/* 0: cold paths are always removed.  Else the counting array's limit
	 * (ir_counts.h): cold paths are removed from a function only when
	 * that moves it from the hash to the array or saves a tenth of its
	 * instrumentation on the training run (section 5; tpp_plan.c). */
	uint64_t array_max;
};

enum wpp_tpp_op {
	WPP_TPP_NONE = 0,
	WPP_TPP_ADD,
	WPP_TPP_SET,
	WPP_TPP_RECORD,
	WPP_TPP_COLD,
};

enum wpp_tpp_heat {
	WPP_TPP_HOT = 0,
	WPP_TPP_COLD_BIAS,	 /* below cold_pct of its source */
	WPP_TPP_COLD_TRANSITIVE, /* on no hot ENTRY->EXIT path */
};

/* Per edge of the full DAG. */
struct wpp_tpp_edge {
	uint64_t train;	   /* training executions (cuts added here: summed) */
	double weight;	   /* placement weight (likewise) */
	uint64_t value;	   /* operand of op */
	uint32_t hot_edge; /* index in hot, or WPP_NONE when cold */
	uint32_t rec_edge; /* index in rec, or WPP_NONE */
	uint32_t counter;  /* edge counter of an obvious path, or WPP_NONE */
	uint8_t op;	   /* enum wpp_tpp_op */
	uint8_t heat;	   /* enum wpp_tpp_heat */
	uint8_t defining;  /* on exactly one hot path */
	uint8_t cut;	   /* a REAL edge of d cut here (loop disconnection or
			    * truncation of the hot DAG) */
	uint8_t dead_end;  /* the NORETURN edge of an `unreachable`: no code
			    * runs there, its paths are never recorded, so it
			    * is no recording point and its paths not obvious */
	uint8_t at_target; /* a cut into a pinned block from an ordinary one
			    * (an unwind edge into a landing pad): the target
			    * records whatever register arrives, for all such
			    * edges alike, so the source prepares it (RECORD k:
			    * r += k; COLD: r = the first poison slot, the normal edge
			    * restoring r) and the edge is never an obvious
			    * recording point (never NONE) */
};

/* An obvious path left uncounted: its executions are those of one
 * defining edge, counted in edge counter k (the index in the array). */
struct wpp_tpp_obvious {
	uint64_t id;   /* TPP path id (hot numbering) */
	uint32_t edge; /* full-DAG edge to count */
	uint32_t exit; /* its recording point (full-DAG edge into EXIT) */
};

struct wpp_tpp {
	struct wpp_dag full, hot, rec;
	struct wpp_tpp_edge *edge; /* per full edge */
	uint32_t *hot_full;	   /* hot edge -> full edge */
	uint32_t *rec_hot;	   /* rec edge -> hot edge */
	uint64_t nslots;	   /* rec.npaths; the cold counter is slot nslots */
	uint64_t npoison;	   /* poison slots: nslots in a plan with cold edges, else 0 */
	struct wpp_tpp_obvious *obvious;
	uint32_t nobvious;
	/* Statistics for the build's report. */
	uint32_t ncold_bias, ncold; /* cold edges: by bias, in all */
	uint32_t nloops;	    /* loops disconnected */
	uint32_t ncut;		    /* REAL edges cut for them */
	uint32_t nops;		    /* edges with register code */
	uint32_t ncold_declined;    /* cold edges not removed (array_max) */
};

/* The first poison slot (after the slots, the cold counter and the edge
 * counters), and how many counters the function owns in all. */
static inline uint64_t wpp_tpp_poison_base(const struct wpp_tpp *t)
{
	return t->nslots + 1 + t->nobvious;
}
static inline uint64_t wpp_tpp_ncounters(const struct wpp_tpp *t)
{
	return wpp_tpp_poison_base(t) + t->npoison;
}

/*
 * cfg and d: the function as dag.h built it (d numbered, numbering.h);
 * train[i]: how often d's edge i ran in training (edge_profile_read.h's
 * order mapped to d's indices; all 0 for a function the training never
 * ran).  Returns 0, or -1 with a reason in why (allocation, a CFG that is
 * not d's); t is then empty.  Work: linear in the DAG, plus the loop
 * bodies once per enclosing loop (about 0.1 s for 100,000 blocks).
 */
int wpp_tpp_plan(struct wpp_tpp *t, const struct wpp_cfg *cfg, const struct wpp_dag *d,
		 const uint64_t *train, const struct wpp_tpp_params *p, char *why, size_t whylen);
void wpp_tpp_free(struct wpp_tpp *t);

/* A path and how often it ran: a Ball-Larus id of d, a counter slot or a
 * TPP path id, depending on the call. */
struct wpp_tpp_count {
	uint64_t id;
	uint64_t count;
	uint8_t obvious; /* reconstructed from a defining edge's count */
};

/* The full TPP profile of a run: every hot path by TPP id (increasing,
 * each once) and the cold counter. */
struct wpp_tpp_profile {
	struct wpp_tpp_count *path;
	size_t npaths;
	uint64_t cold;
};

/*
 * Reconstruction (section 4.2.2): slots are the run's counters as
 * (slot, count) pairs, any order, slot nslots for the cold counter and
 * the poison slots (wpp_tpp_poison_base) adding to it;
 * edge_counts[k] the executions of obvious[k].edge.  Returns 0, or -1
 * with why (a slot out of range, allocation).
 */
int wpp_tpp_reconstruct(const struct wpp_tpp *t, const struct wpp_tpp_count *slots, size_t nslots,
			const uint64_t *edge_counts, struct wpp_tpp_profile *out, char *why,
			size_t whylen);
void wpp_tpp_profile_free(struct wpp_tpp_profile *p);

/*
 * Accuracy of definite flow (section 5): the reference is a full
 * Ball-Larus profile of the same run (ids of d, the DAG t was planned
 * from), each path split where the TPP DAG cuts it (footnote 5).  For
 * every path, over- and undercounts of the TPP profile against the
 * reference are weighted by the path's length in blocks;
 *     AoDF = 100 % - over % - under %   of the reference's total weight.
 * Cold pieces of reference paths are undercounts (TPP cannot attribute
 * them).  Weights saturate at UINT64_MAX.
 */
struct wpp_tpp_quality {
	uint64_t total, over, under;  /* weights: executions x blocks */
	uint64_t cold_under;	      /* the part of under from cold pieces */
	uint64_t pieces, cold_pieces; /* executions of reference pieces */
	double aodf;		      /* percent; 100 for an empty reference */
};

int wpp_tpp_aodf(const struct wpp_tpp *t, const struct wpp_dag *d, const struct wpp_tpp_count *full,
		 size_t nfull, const struct wpp_tpp_profile *tpp, struct wpp_tpp_quality *q,
		 char *why, size_t whylen);

#endif
