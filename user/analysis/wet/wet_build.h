/* SPDX-License-Identifier: MIT */
/*
 * wet_build.h — the streaming WET builder and the WET of one thread it
 * builds (docs/wet.md, "The streaming builder"): the decoded path
 * executions of one thread go in one at a time, in order; out comes the
 * labelled graph, every label a tier-2 stream (wet_stream.h), node values
 * through tier-1 groups (wet_tier1.h).  Computation only: no printing, no
 * decoding (the caller feeds decoded events, user/decode).
 *
 * Contract
 *   - A node is a (function, Ball-Larus path id).  Its statements are the
 *     WET statements of the path's blocks in order (meta_wet.h); its slots
 *     the values and addresses its records carry (wet_values.h).  Instance
 *     k of a node is its k-th execution (from 0); timestamps are the
 *     thread's path executions counted from 1.
 *   - Labels: per node its timestamp stream and tier-1 value groups; the
 *     thread's flow stream (node per timestamp); per dependence slot of a
 *     node (a statement's operand, a load's memory, a block's control) the
 *     def instance of every node instance, as two streams (def site: node
 *     and position; def instance) — unless every instance's def lies in the
 *     same path execution at a position known statically (a local edge:
 *     no label, the paper's 3.3).  Slots of one node whose labels come
 *     out equal share one copy.
 *   - Register dependences follow SSA def-use within an activation (the
 *     last instance of the defining instruction); phis take the operand of
 *     the block the path came from; a formal argument depends on the
 *     caller's operand of the call; a call's result on the callee's `ret`
 *     operand.  Control dependences follow post-dominance (wet_cdg.h): the
 *     latest instance in the activation of a block the dependence set
 *     names; a callee's entry block takes its call block's.  Memory
 *     dependences come from a shadow memory (wet_shadow.h) keyed by the
 *     recorded addresses; a load reading bytes that another thread of the
 *     process may have written when the recording does not prove which
 *     store came last (wet_xorder.h), a dropped shadow page, or an instance past
 *     the writer id's range (2^24 nodes, 2^31 instances, 256 writing
 *     statements per node) gets WET_DEF_UNKNOWN: never an invented writer.
 *   - Memory while building: the compressed labels, the tier-1 tuple maps,
 *     the dense tables of label streams fed in the last
 *     WET_BUILD_RELEASE_EVERY timestamps (older ones are released), the
 *     shadow (capped by opts.shadow_bytes), and per activation one entry per
 *     instruction and block of its function.
 */
#ifndef WPP_WET_BUILD_H
#define WPP_WET_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "symbolizer/meta_model.h"
#include "decode/path_regen.h"
#include "analysis/wet/wet_stream.h"
#include "analysis/wet/wet_tier1.h"

#define WET_BUILD_RELEASE_EVERY 1024u
#define WET_MAX_SIGNAL_DEPTH	8u

/* A dependence label holds per instance two streams: the def's site,
 * (node + 1) << WET_SITE_POS_BITS | position, and the def's instance as
 * its distance from the use's, k - k' (wrapping; 0 when there is no def).
 * A use and its def tend to run in step (a loop's phi and the previous
 * iteration), so the distance repeats where k' only strides: on zlib it
 * stores the phi labels in three quarters of the bytes. */
#define WET_DEP_STREAMS	  2
#define WET_NO_SHARE	  UINT32_MAX
#define WET_SITE_POS_BITS 20
/* A def's node in a label: node + 1; these two are not nodes. */
#define WET_DEF_NONE	0u	   /* no def in the trace: a constant, a root */
#define WET_DEF_UNKNOWN UINT32_MAX /* a def exists but is not known */
/* Another thread's store (wet_xorder.h): the def is in the dep's extra
 * rows, as (k, fid << 32 | WET_DEF_XTHREAD, tid << 32 | statement index in
 * its TU, its timestamp in its thread). */
#define WET_DEF_XTHREAD (UINT32_MAX - 1)

enum wet_dep_kind {
	WET_DEP_REG = 0,  /* SSA operand of the same activation */
	WET_DEP_PHI = 1,  /* a phi's incoming value for the block the path came from */
	WET_DEP_ARG = 2,  /* formal argument: the caller's operand */
	WET_DEP_RET = 3,  /* a call's result: the callee's ret operand */
	WET_DEP_MEM = 4,  /* a load's bytes: the stores that wrote them */
	WET_DEP_CTRL = 5, /* a block's controlling branch */
};

/* An instance: node, statement position (CTRL: block position), instance.
 * node is an index here; streams hold node + 1 (WET_DEF_*). */
struct wet_ref {
	uint32_t node, pos;
	uint64_t k;
};

struct wet_dep {
	uint32_t pos; /* statement position (CTRL: block position) */
	uint16_t op;  /* operand index (REG, ARG) */
	uint8_t kind; /* enum wet_dep_kind */
	uint8_t local;
	uint32_t local_pos; /* local: the def's position in the same execution */
	/* WET_NO_SHARE, or an earlier dep of the node whose labels are equal
	 * to this one's: s[] are that dep's streams (the paper's shared labels
	 * of non-local edges), stored once. */
	uint32_t share;
	/* not local: def site and k - def instance, per instance */
	struct wet_builder b[WET_DEP_STREAMS];
	struct wet_stream *s[WET_DEP_STREAMS];
	/* MEM: the writers after the first of instances with several, as
	 * (k, node + 1, pos, def k) rows in instance order, and writers in
	 * other threads (WET_DEF_XTHREAD rows, the first writer's too);
	 * uncompressed (rare: partial overlaps, data shared across threads). */
	uint64_t *more;
	size_t nmore, cap_more;
};

struct wet_node {
	const struct wpp_fn *fn;
	uint32_t fid; /* the trace's function id */
	uint64_t path_id;
	uint32_t nblocks, nstmts, nslots;
	uint32_t stores;  /* statements that store (a lost record's are unknown) */
	uint32_t *blocks; /* function-local block indices */
	const struct wpp_meta_wet_stmt **stmts; /* [nstmts] */
	uint32_t *stmt_block;			/* block position of each statement */
	uint32_t *slot_stmt;			/* [nslots] statement position */
	uint8_t *slot_what;			/* WPP_WET_REC_ADDR / _VALUE */
	uint32_t *slot_group, *slot_member;	/* tier-1 group and index in it */
	uint32_t ngroups;
	struct wet_t1_builder *gb;   /* while building */
	struct wet_t1_group *groups; /* when built */
	uint32_t ndeps;
	struct wet_dep *deps; /* by position, CTRL last */
	uint64_t ninst;
	struct wet_builder tsb;
	struct wet_stream *ts; /* timestamps, increasing */
	uint64_t *lost;	       /* instances whose values were lost, increasing */
	size_t nlost, cap_lost;
	uint64_t last_fed;
	uint64_t bytes; /* its label streams, stored (`wet info` per function) */
};

/* Sizes the paper counts (8 bytes per label element) and what they take. */
enum wet_label_kind { WET_LBL_TS, WET_LBL_FLOW, WET_LBL_VALUE, WET_LBL_EDGE, WET_NLBL };

struct wet_sizes {
	uint64_t orig[WET_NLBL];  /* bytes uncompressed */
	uint64_t tier1[WET_NLBL]; /* after tier 1 (local edges unlabelled, value groups) */
	uint64_t tier2[WET_NLBL]; /* serialized streams */
};

struct wet_thread {
	uint32_t pid, tid, gen;
	uint64_t nts; /* timestamps 1..nts */
	uint32_t nnodes;
	struct wet_node **nodes;
	struct wet_stream *flow; /* node per timestamp - 1 */
	uint64_t *gaps;		 /* timestamps after which words were lost */
	size_t ngaps;
	struct wet_sizes sizes;
	uint64_t mem_unknown; /* load instances with an unknown writer */
	uint64_t mem_xthread; /* load writers in another thread (stored: at most 2^32 - 1) */
	uint64_t shadow_peak; /* bytes */
	uint8_t *blob;	      /* the stored bytes lazily read streams point into */
};

/* A node's share of the original and tier-1 figures (wet_sizes; the
 * flow's are the thread's), added to orig and tier1. */
void wet_node_figures(const struct wet_node *n, uint64_t orig[WET_NLBL], uint64_t tier1[WET_NLBL]);

struct wet_xorder;

struct wet_build_opts {
	size_t shadow_bytes; /* cap of the shadow memory; 0: 1 GiB */
	/* Pages another thread of the process stores to: loads from them are
	 * WET_DEF_UNKNOWN.  Returns non-zero for such a page.  NULL: none. */
	int (*shared_page)(void *ctx, uint64_t page);
	void *ctx;
	/* Instead, the other threads' stores ordered by their batches' publish
	 * times (wet_xorder.h, the caller's): loads get another thread's store
	 * where the order is proven.  The caller reports batches with
	 * wet_build_batch. */
	struct wet_xorder *xorder;
};

struct wet_build;

/* NULL when out of memory. */
struct wet_build *wet_build_new(const struct wet_build_opts *opts, uint32_t pid, uint32_t tid,
				uint32_t gen);
/* One path execution: fn (a WET function or not; fid: its id in the trace,
 * kept so a stored WET finds its functions again), its expanded path, its
 * slot values (wpp_wet_path_items order) or NULL when they were lost or fn
 * records none.  0, or -1 when out of memory or fn's metadata is unusable
 * (the builder can then only be freed). */
int wet_build_path(struct wet_build *b, uint32_t fid, const struct wpp_fn *fn, uint64_t path_id,
		   const struct wpp_path *p, const int64_t *values, uint32_t signal_depth);
/* The path executions that follow lie in a batch with interval (lo, hi]
 * (wet_xorder.h); only with opts.xorder.  0, or -1 when out of memory. */
int wet_build_batch(struct wet_build *b, uint64_t lo, uint64_t hi, int signal);
/* Words were lost here: a flow break, and no dependence across it. */
int wet_build_gap(struct wet_build *b);
uint64_t wet_build_timestamps(const struct wet_build *b);
/* The finished WET (the builder is freed), or NULL when out of memory. */
struct wet_thread *wet_build_finish(struct wet_build *b);
void wet_build_free(struct wet_build *b);

void wet_thread_free(struct wet_thread *t);

#endif
