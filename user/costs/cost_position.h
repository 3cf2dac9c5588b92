/* SPDX-License-Identifier: MIT */
/*
 * cost_position.h — where in a thread's recorded batches a counter sample's
 * stream position lies (docs/counters.md, "Unattributed samples").
 *
 * A sample names a position as the sampler saw it: word `word` of batch
 * `seq`, or of "the first batch of signal depth d numbered after seq" (the
 * buffer was not open yet), where a word index at or past the batch's end
 * continues in the next batch of the same depth.  Batch numbers of a thread
 * are dense (main and signal levels draw them from one counter), so a
 * number the trace lacks between two present ones is a batch that was
 * lost, and "the next batch of depth d" is certain only while no number in
 * between is missing.  A position past the thread's last batch is after its
 * recording ended, unless the trace says batches were lost at its end.
 */
#ifndef WPP_REPORT_COST_POSITION_H
#define WPP_REPORT_COST_POSITION_H

#include <stddef.h>
#include <stdint.h>

#include "decode/trace_file.h"
#include "wpp/wpp_file.h"

struct cost_batch_index;

enum cost_locate_result {
	COST_AT_RECORD, /* (seq, word) is a word of a present batch */
	COST_IN_LOST,	/* the position is in a batch the transport lost */
	COST_AFTER_END, /* past the thread's last batch: recording had ended */
};

/* NULL on allocation failure. */
struct cost_batch_index *cost_batch_index_new(const struct wpp_thread_trace *th);
void cost_batch_index_free(struct cost_batch_index *ix);

/* Resolve s (pos BUFFER, NEXT or NUMBERED) to (*seq, *word). */
enum cost_locate_result cost_locate(const struct cost_batch_index *ix, const struct wpp_sample *s,
				    uint64_t *seq, uint32_t *word);

#endif
