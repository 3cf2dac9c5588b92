/* SPDX-License-Identifier: MIT */
/*
 * stream.h — per-thread stream assembly: turn a thread's batches (in any
 * file order) into the single word sequence the thread produced.
 *
 *  - Main batches (no WPP_BATCH_SIGNAL) are ordered by seq.
 *  - A signal batch is spliced into its parent batch (parent_seq) right after
 *    the parent's first parent_off words; a signal batch whose parent is
 *    itself a signal batch nests inside it.  Several signal batches at one
 *    point go in seq order.  A signal batch whose parent is missing is placed
 *    by its own seq among the main batches (counted as orphan).
 *  - Gaps: an explicit GAP chunk sits before the first top-level batch whose
 *    seq is above after_seq.  seq values of a thread (main and signal batches
 *    share one counter) missing between two present batches become a gap of
 *    unknown size unless an explicit GAP chunk already stands there.
 *  - Duplicate seq values: the first batch in file order wins (counted),
 *    except that a published batch always beats a salvaged copy of itself
 *    (WPP_BATCH_SALVAGED; not counted).
 *
 * The result is a list of segments (word ranges of batches, and gaps) that
 * refers to the trace's batches; nothing is copied.
 */
#ifndef WPP_DECODE_STREAM_H
#define WPP_DECODE_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "decode/trace_file.h"

#define WPP_LOST_UNKNOWN UINT64_MAX

enum wpp_seg_kind { WPP_SEG_WORDS, WPP_SEG_GAP };

struct wpp_segment {
	enum wpp_seg_kind kind;
	const struct wpp_batch_ref *batch; /* WORDS: words [from, to) of batch */
	uint32_t from, to;
	uint32_t signal_depth; /* 0 = main stream, 1 = inside a signal handler, ... */
	uint64_t lost_words;   /* GAP: WPP_LOST_UNKNOWN if not known */
	uint64_t lost_batches;
};

struct wpp_stream {
	struct wpp_segment *segs;
	size_t nsegs, cap;
	uint64_t duplicate_batches;
	uint64_t orphan_signal_batches; /* parent missing or in a parent cycle */
	uint64_t clamped_offsets;	/* parent_off beyond the parent's words */
	uint64_t missing_seqs;		/* holes in the seq numbering */
};

/* The order that decides which of a thread's batches with one seq is kept
 * (the first): by seq, a published batch before a salvaged copy, then by
 * file index.  A qsort-style comparison, for every reader that dedups. */
int wpp_batch_order(const struct wpp_batch_ref *x, size_t xi, const struct wpp_batch_ref *y,
		    size_t yi);

/* 0, or -1 on allocation failure. */
int wpp_stream_assemble(const struct wpp_thread_trace *th, struct wpp_stream *out);

/*
 * The same rule applied to one piece of a thread's batches and gaps: what
 * wpp_stream_assemble() does for a whole thread (it calls this with no
 * carry), and what the online assembler (user/collect/online.c) does for
 * each run of batches it has completed, so both share one splice rule.
 * carry (may be NULL) says where the previous piece stopped and is updated
 * for the next one; pieces must come in seq order and the concatenation of
 * their outputs is then the output for the whole thread, provided no signal
 * batch's parent lies in an earlier piece.
 */
struct wpp_stream_carry {
	int have_prev;		     /* a top-level batch was emitted before */
	int gap_since_prev;	     /* an explicit gap followed it */
	uint64_t prev_seq;	     /* that batch's seq */
	uint64_t present_since_prev; /* batches emitted since with a higher seq */
};
int wpp_stream_assemble_piece(const struct wpp_batch_ref *batches, size_t nbatches,
			      const struct wpp_gap_ref *gaps, size_t ngaps,
			      struct wpp_stream_carry *carry, struct wpp_stream *out);
void wpp_stream_free(struct wpp_stream *s);

#endif
