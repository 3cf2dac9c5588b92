/* SPDX-License-Identifier: MIT */
/*
 * meta_tpp.h — the plans of a targeted-path-profiling TU (WPP_MODE_TPP,
 * docs/instrumentation.md "Targeted path profiling"): enough of each
 * function's plan (instrument/tpp.h) for a reader to turn its counters
 * back into a path profile.
 *
 * A blob of mode WPP_MODE_TPP carries, after its string table (at the next
 * multiple of 8, inside total_size), a wpp_meta_tpp_header and the tables
 * it points to, offsets relative to that header (as meta_wet.h does).
 * The recording holds (fid, counter) pairs for its functions; counter c of
 * a TPP function (how = WPP_TPP_HOW_PLAN) is
 *   c <  nslots              the counted path whose rec value sum is c
 *   c == nslots              the cold counter
 *   c == nslots + 1 + k      obvious path k's defining edge
 *   nslots + 1 + nobvious <= c < 2 nslots + 1 + nobvious
 *                            a poison slot: a cold path that reached a
 *                            recording point (counted with the cold
 *                            counter; plans with cold edges only)
 * and of a function counted plainly (WPP_TPP_HOW_PLAIN: the profile was
 * stale for it) the Ball-Larus path id, as in WPP_MODE_COUNTS.  A plan
 * function whose counters would not fit the array (WPP_TPP_HOW_SPLIT)
 * counts its paths in the hash and its cold counter and edge counters in
 * the array, numbered so they do not meet: its counter c stands for the
 * counter c' above with
 *   c' = c + nslots              for c <= nobvious (the array: cold, edges)
 *   c' = c - (1 + nobvious)      else (the hash: slots, and nslots again
 *                                for the cold paths it counts)
 *
 * Tables:
 *   funcs    one per function, in the blob's function order
 *   edges    a plan function's full DAG (nodes: blocks 0..nblocks-1,
 *            ENTRY = nblocks, EXIT = nblocks + 1), edges[first_edge,
 *            first_edge + nedges) in the plan's edge order
 *   obvious  obvious[first_obvious, first_obvious + nobvious)
 */
#ifndef WPP_META_TPP_H
#define WPP_META_TPP_H

#include <stdint.h>

#define WPP_META_TPP_MAGIC   "WPPTPP\0\0"
#define WPP_META_TPP_VERSION 1u

struct wpp_meta_tpp_header {
	char magic[8]; /* WPP_META_TPP_MAGIC */
	uint32_t version;
	uint32_t header_size;
	uint32_t nfuncs;	     /* the blob's */
	uint32_t cold_ppm, loop_ppm; /* --tpp-cold / --tpp-loop, parts per million */
	uint32_t nedges, nobvious;   /* table sizes */
	uint32_t reserved0;
	uint64_t funcs_off, edges_off, obvious_off;
};

enum wpp_tpp_how {
	WPP_TPP_HOW_PLAN = 1,  /* counted by its plan */
	WPP_TPP_HOW_PLAIN = 2, /* stale profile: Ball-Larus counting */
	WPP_TPP_HOW_SPLIT = 3, /* counted by its plan, paths hashed, edges in the array */
};

struct wpp_meta_tpp_func {
	uint32_t how; /* enum wpp_tpp_how */
	uint32_t nedges, first_edge;
	uint32_t nobvious, first_obvious;
	uint32_t reserved0;
	uint64_t nslots;     /* counted paths; the cold counter is nslots */
	uint64_t hot_npaths; /* TPP path ids: 0 .. hot_npaths-1 */
};

/* One edge of the full DAG (tpp.h, struct wpp_tpp_edge). */
struct wpp_meta_tpp_edge {
	uint32_t src, dst; /* nodes */
	uint32_t kind;	   /* enum wpp_edge_kind (meta_format.h) */
	uint32_t cfg_src, cfg_dst;
	uint8_t hot;	/* on hot: hot_val is its value there */
	uint8_t rec;	/* on rec: rec_val is its value there */
	uint8_t op;	/* enum wpp_tpp_op (for readers: what ran there) */
	uint8_t cut;	/* a REAL edge of the DAG cut here */
	uint8_t in_dag; /* an edge of the function's DAG as the blob has it:
			 * bl_val is its Ball-Larus value (a path of such
			 * edges only is a path of the DAG) */
	uint8_t reserved[7];
	uint64_t hot_val; /* value in the hot numbering */
	uint64_t rec_val; /* value in the rec numbering (counter slots) */
	uint64_t bl_val;  /* value in the DAG's Ball-Larus numbering (also
			   * of a cut edge: the REAL edge it was) */
};

struct wpp_meta_tpp_obvious {
	uint64_t id;   /* TPP path id */
	uint32_t edge; /* its counted defining edge (index into the function's edges) */
	uint32_t exit; /* its recording point */
};

#endif
