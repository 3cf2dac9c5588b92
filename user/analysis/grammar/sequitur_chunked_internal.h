/* SPDX-License-Identifier: MIT */
/*
 * sequitur_chunked_internal.h — the chunked builder's state, shared by the
 * files that implement it (sequitur_chunked.c: runs, chunks and the two
 * SEQUITUR(1) levels; sequitur_chunked_export.c: merging them into one
 * grammar).  Not for other modules.
 */
#ifndef WPP_SEQUITUR_CHUNKED_INTERNAL_H
#define WPP_SEQUITUR_CHUNKED_INTERNAL_H

#include "analysis/grammar/sequitur_chunked.h"

/* A run: key (sym, n).  At the atom level sym is a terminal, at the top
 * level a chunk id.  Dense ids in first-appearance order. */
struct seqc_run {
	uint64_t n;
	uint32_t sym;
};

/* (sym, n) -> dense id; open addressing, load at most 1/2. */
struct seqc_run_table {
	struct seqc_run *runs; /* runs[id] */
	uint32_t nruns, runs_cap;
	uint64_t *slots; /* hash32 << 32 | (id + 1); 0 = empty */
	uint32_t mask;
};

/* Unique chunks: contents in one arena, looked up by content hash. */
struct seqc_chunk_table {
	uint32_t *arena; /* atoms of all unique chunks, concatenated */
	uint64_t arena_len, arena_cap;
	uint64_t *off; /* off[c]: start of chunk c in arena; off[nchunks] = arena_len */
	uint32_t nchunks, off_cap;
	uint64_t *slots; /* hash32 << 32 | (id + 1); 0 = empty */
	uint32_t mask;
};

/* Look up every chunk whose lookup waits (cut_chunk), lowest level
 * first: the builder is then as it would be had each been looked up when
 * it was cut, which is what seqc_export reads. */
void seqc_settle(struct seqc_builder *b);

/* The id of (sym, n) in t, or UINT32_MAX when it is not there. */
uint32_t seqc_run_find(const struct seqc_run_table *t, uint32_t sym, uint64_t n);

#define SEQC_TOP_BATCH	  256
#define SEQC_SINGLE_LIMIT (1u << 20)

/* One level: its input units (terminals at level 0, the level below's
 * chunk ids above it) collapsed into atoms, and, below the top, the atoms
 * cut into chunks. */
struct seqc_level {
	struct seqc_level_params p;
	/* The run of one unit in progress (run_n == 0: none). */
	uint32_t run_sym;
	uint64_t run_n;
	struct seqc_run_table atoms;
	uint64_t natoms;
	/* single[u] = 1 + the atom id of (u, 1), 0 = not yet: most atoms are
	 * one unit, and units are dense ids, so an array beats the hash
	 * table (units below SEQC_SINGLE_LIMIT). */
	uint32_t *single;
	uint32_t single_cap;
	/* Below the top: the chunk in progress, the rolling hash over its
	 * last atoms, the unique chunks and their SEQUITUR(1). */
	uint32_t *cur;
	uint32_t cur_len;
	uint64_t roll;
	uint64_t chash; /* the chunk in progress's hash so far */
	/* The chunk cut last, not yet looked up (cut_chunk): its table slot
	 * is loading meanwhile.  pend_len 0: none.  Looked up before anything
	 * else reaches the level's table or the level above, so every builder
	 * sees what it would without the wait. */
	uint32_t *pend;
	uint32_t pend_len;
	uint32_t pend_hash;
	struct seqc_chunk_table chunks;
	struct seq_builder *body;
	uint64_t nchunks_cut;
};

struct seqc_builder {
	uint64_t input_symbols;
	int failed;
	uint32_t nlevels;
	/* lv[0 .. nlevels) chunk; lv[nlevels] is the top: atoms only. */
	struct seqc_level lv[SEQC_MAX_LEVELS + 1];
	/* Top atoms not yet given to the top SEQUITUR(1): it takes them in
	 * batches (seq_append_many prefetches ahead), flushed when full and
	 * at gaps only, so what is pending depends on the input alone. */
	uint32_t top_pending[SEQC_TOP_BATCH];
	uint32_t ntop_pending;
	struct seq_builder *top;
	uint32_t segments;
};

#endif
