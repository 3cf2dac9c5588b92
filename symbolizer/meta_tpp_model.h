/* SPDX-License-Identifier: MIT */
/*
 * meta_tpp_model.h — the validated plan tables of a -fwpp-mode=tpp TU
 * (wpp/meta_tpp.h), and what a reader needs from them: which path of the
 * function's DAG a counter stands for.
 *
 * The parser treats the tables as hostile.  When it accepts them, every
 * plan function's edges have endpoints among its DAG's nodes (src not
 * EXIT, dst not ENTRY), its obvious paths name its own edges, and
 * out_first indexes each node's out-edges; decoding a counter still
 * checks every step (a crafted plan may hold cycles or values that lead
 * nowhere) and takes at most one step per node.
 */
#ifndef WPP_SYMBOLIZER_META_TPP_MODEL_H
#define WPP_SYMBOLIZER_META_TPP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "wpp/meta_format.h"
#include "wpp/meta_tpp.h"

struct wpp_tu;
struct wpp_fn;

/* One function counted by its plan. */
struct wpp_tpp_fn_model {
	uint64_t nslots, hot_npaths;
	uint32_t nedges, nobvious;
	int split; /* WPP_TPP_HOW_SPLIT: counters numbered as meta_tpp.h says */
	const struct wpp_meta_tpp_edge *edges;
	const struct wpp_meta_tpp_obvious *obvious;
	/* edge indices by source node: out[out_first[n] .. out_first[n + 1]) */
	const uint32_t *out_first, *out;
};

struct wpp_tpp_tu_model {
	uint32_t cold_ppm, loop_ppm;
	struct wpp_tpp_fn_model *fns; /* per function with a plan */
	struct wpp_meta_tpp_edge *edges;
	struct wpp_meta_tpp_obvious *obvious;
	uint32_t *out_store;
};

/* Parses the tables after h's strtab into tu->tpp and sets each plan
 * function's fn->tpp.  0, or -1 with err. */
int wpp_meta_tpp_parse(struct wpp_tu *tu, const unsigned char *b, const struct wpp_meta_header *h,
		       char *err, size_t errlen);
void wpp_meta_tpp_free(struct wpp_tpp_tu_model *m);

/* What counter c of a function stands for. */
enum wpp_tpp_counter_kind {
	WPP_TPP_COUNTER_PATH,  /* *bl_id: a path of the function's DAG */
	WPP_TPP_COUNTER_COLD,  /* the cold counter: paths through cold edges */
	WPP_TPP_COUNTER_PIECE, /* a path cut where a loop was disconnected: no
				* path of the DAG */
	WPP_TPP_COUNTER_BAD,   /* no counter of the plan (corrupt) */
};

/* fn->tpp must be set.  Counted paths decode in the rec numbering, obvious
 * ones in the hot numbering; a path of DAG edges only gets its
 * Ball-Larus id. */
enum wpp_tpp_counter_kind wpp_tpp_counter_path(const struct wpp_fn *fn, uint64_t c,
					       uint64_t *bl_id);
/* Counter c's TPP path id (hot numbering) and its length in blocks, for
 * counted and obvious paths (pieces included).  0, or -1. */
int wpp_tpp_counter_hot(const struct wpp_fn *fn, uint64_t c, uint64_t *hot_id, uint32_t *nblocks);

/* One piece of a path of the DAG, as the TPP DAG cuts it: its TPP path
 * id, or cold (some edge of it is cold), and its length in blocks. */
typedef void (*wpp_tpp_piece_fn)(void *ctx, int cold, uint64_t hot_id, uint32_t nblocks);

/*
 * Splits Ball-Larus path bl_id of fn's DAG where the TPP DAG cuts it (a
 * disconnected loop's boundary: the paper's footnote 5) and calls piece
 * for each piece in order.  0, or -1 when bl_id is no path of the DAG or
 * an edge of it has no counterpart in the plan (a damaged plan).
 */
int wpp_tpp_split_path(const struct wpp_fn *fn, uint64_t bl_id, wpp_tpp_piece_fn piece, void *ctx);

#endif
