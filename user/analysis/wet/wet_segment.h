/* SPDX-License-Identifier: MIT */
/*
 * wet_segment.h — one segment of a tier-2 compressed value stream: the
 * paper's bidirectional predictor coder with a cursor (docs/wet.md,
 * "Tier 2").
 *
 * A segment holds up to a few thousand values x_0..x_{n-1}.  Its cursor
 * c (0..n) keeps a window of w uncompressed values, x_{c-w}..x_{c-1}
 * (values before x_0 read as 0).  Values left of the window are coded on
 * the `left` stack against their right context, values right of it on
 * the `right` stack against their left context, each side with its own
 * predictor state.  A step moves one value across the window: it decodes
 * the value entering the window from one stack and codes the value leaving
 * it onto the other.  Every code is a reversible update of its side's
 * state (a miss keeps the value the table held), so the state at c depends
 * on c only, whichever way the cursor came: both directions cost the same
 * O(1) per step and nothing is decompressed ahead.
 *
 * Predictors (the paper's four, each in three sizes):
 *   FCM          order k: table indexed by a hash of the k values nearest
 *                the coded one; predicts the value.  Two tables, one per side.
 *   DFCM         order k: the same over strides (needs k+1 context values);
 *                predicts the stride from the nearest context value.
 *   LAST_N       the n most recently seen distinct values, move-to-front;
 *                a hit codes the position.  One list for both sides: the
 *                step that moves the cursor forward applies the list update,
 *                the step back undoes it.
 *   LAST_N_STRIDE  the same over strides.
 *   VERBATIM     no prediction: 64 bits per value, what values no
 *                predictor can guess (hashes, heap addresses) cost, without
 *                the 8 bits a miss code adds.
 *
 * A code is a hit (a 1 bit, then the position for last-n), a miss (2 tag
 * bits, a 6-bit length and the difference, zigzag and wrapping, between
 * the value and the one the state held), or a run of 12 or more hits at
 * position 0 (2 tag bits, a 5-bit length and the count): a constant or
 * strided stretch costs a few bits per run, not one per value.  Errors (a
 * stack that runs out, a corrupt code) are returned, never crashed on; the
 * segment is then left in an unspecified but safe state.
 */
#ifndef WPP_WET_SEGMENT_H
#define WPP_WET_SEGMENT_H

#include <stdint.h>

#include "analysis/wet/wet_bits.h"

enum wet_kind {
	WET_FCM = 0,
	WET_DFCM = 1,
	WET_LAST_N = 2,
	WET_LAST_N_STRIDE = 3,
	WET_VERBATIM = 4,
};
#define WET_NKINDS 5

#define WET_MAX_WINDOW	   4  /* DFCM order 3 needs 4 context values */
#define WET_MAX_LIST	   16 /* largest last-n list */
#define WET_MAX_TABLE_BITS 16

struct wet_method {
	uint8_t kind;	    /* enum wet_kind */
	uint8_t size;	    /* FCM/DFCM: order (1..3); last-n: list length (1, 4 or 16);
			     * verbatim: 1 */
	uint8_t table_bits; /* FCM/DFCM: log2 of each table's entries; 0 for last-n */
};

/* 0 when m is a method this library implements (sizes and table bits in range). */
int wet_method_check(const struct wet_method *m);
/* Context values the cursor keeps (the window w). */
unsigned wet_method_window(const struct wet_method *m);
/* Short name, e.g. "fcm2", "dfcm1", "last4", "last16-stride". */
const char *wet_method_name(const struct wet_method *m, char *buf, unsigned len);

/* The predictor state of a segment while its cursor is in use: two dense
 * tables (FCM/DFCM) or the list (last-n).  A stream shares one among its
 * segments (wet_seg_open/close pack the tables away). */
struct wet_state {
	uint64_t *left_tab;  /* codes left of the window */
	uint64_t *right_tab; /* codes right of the window */
	uint32_t entries;    /* 1 << table_bits */
	uint64_t list[WET_MAX_LIST];
};

/* A table entry kept while the segment is closed (non-zero entries only). */
struct wet_tab_entry {
	uint32_t index;
	uint64_t value;
};

/* One side of the cursor: its codes, and the hits at position 0 on top of
 * them that are only counted (a step through a run touches no bits);
 * wet_seg_settle writes them as the codes pushing them one by one gives. */
struct wet_side {
	struct wet_bits bits;
	uint32_t run;
};

struct wet_seg {
	struct wet_method method;
	uint32_t count; /* values in the segment */
	uint32_t pos;	/* cursor c */
	uint64_t win[WET_MAX_WINDOW];
	struct wet_side left, right;
	/* Closed form of the state: the tables' non-zero entries by index
	 * (left side first), or the list (WET_MAX_LIST values; NULL when
	 * empty, as at the segment's start where built and parsed segments
	 * rest: a WET's 10^5 segments need none). */
	struct wet_tab_entry *tab;
	uint32_t nleft_tab, nright_tab;
	uint64_t *list;
};

int wet_state_init(struct wet_state *st, const struct wet_method *m);
void wet_state_free(struct wet_state *st);

/* Load the segment's state into st (st was initialized for method m). */
void wet_seg_open(const struct wet_method *m, const struct wet_seg *seg, struct wet_state *st);
/* Store st back into the segment's closed form (and settle its sides).
 * 0, or -1 out of memory. */
int wet_seg_close(const struct wet_method *m, struct wet_seg *seg, const struct wet_state *st);

/* Build: the cursor must be at the end (pos == count); append x as the new
 * last value and move the cursor past it.  0, or -1 out of memory. */
int wet_seg_append(const struct wet_method *m, struct wet_seg *seg, struct wet_state *st,
		   uint64_t x);
/* Move the cursor one value forward (pos < count) or back (pos > 0).
 * 0, or -1 (corrupt codes or out of memory). */
int wet_seg_forward(const struct wet_method *m, struct wet_seg *seg, struct wet_state *st);
int wet_seg_backward(const struct wet_method *m, struct wet_seg *seg, struct wet_state *st);
/* The value just left of the cursor, x_{pos-1} (pos >= 1). */
uint64_t wet_seg_current(const struct wet_method *m, const struct wet_seg *seg);

/* Write both sides' counted hits as codes.  0, or -1 out of memory. */
int wet_seg_settle(const struct wet_method *m, struct wet_seg *seg);
void wet_seg_free(struct wet_seg *seg);

#endif
