/* SPDX-License-Identifier: MIT */
/*
 * path_tally.h — a live trace's path executions counted as its batches
 * arrive, per (process image, fid, path id), for `wpptrace top` on
 * tracing builds (user/record/top_trace.c).  Nothing is kept of the
 * words themselves: a record adds 1, a REPEAT n adds n to the record it
 * repeats, a wide record counts as one, and the counts are taken (and
 * start again from zero) once per interval.
 *
 * Batches are fed in the order each thread published them (the BPF
 * collector's guarantee, bpfcollect.h), not in seq order, and each is
 * counted at once: no batch is held back, so an interval shows what was
 * published in it.  What a REPEAT repeats is decided as the decoder
 * decides it (user/decode/trace_words.h), without splicing:
 *   - the thread's main level (batches without WPP_BATCH_SIGNAL) is one
 *     stream in publish order, which for main batches is seq order; a
 *     REPEAT at the start of a batch repeats the last record of the
 *     previous main batch, whatever handlers ran in between;
 *   - a signal handler's run is the batches naming one interruption
 *     point (parent_seq, parent_off): the runtime publishes them in seq
 *     order, and a nested handler's batches name another point, so a
 *     handler's records never continue the interrupted level's run or
 *     another handler's.  In the decoder's splice these are the batches
 *     that sit together at one depth; a handler entered at another point
 *     starts with nothing to repeat, as a depth entered anew does there.
 *     The points of the 64 most recently fed runs of a thread are kept
 *     (the runtime nests at most 5 levels, so a run still going is
 *     forgotten only if 64 others, nested in it, published in between);
 *   - a gap (lost batches, GAP chunk) forgets every level's last record
 *     of that thread, so a REPEAT after it is unattributable, as offline.
 * A second batch with a seq seen among the thread's last 64 (a salvaged
 * copy of a published batch, wpp_file.h WPP_BATCH_SALVAGED) is dropped.
 *
 * Not thread-safe: the caller serialises every call.
 */
#ifndef WPP_COLLECT_PATH_TALLY_H
#define WPP_COLLECT_PATH_TALLY_H

#include <stddef.h>
#include <stdint.h>

#include "wpp/wpp_file.h"

/* One path's executions since the last take.  image is the caller's tag
 * for the process image that ran it (path_tally_batch). */
struct path_tally_entry {
	uint32_t image;
	uint32_t fid;
	uint64_t id;
	uint64_t count;
};

struct path_tally_stats {
	uint64_t batches, words;
	uint64_t records;	 /* path executions counted (REPEATs expanded) */
	uint64_t unattributable; /* REPEAT instances with nothing to repeat */
	uint64_t malformed;	 /* malformed items (trace_words.h) */
	uint64_t duplicates;	 /* batches dropped as copies of a seen seq */
	uint64_t probes;	 /* count slots passed over before the path's own */
};

struct path_tally;

/* NULL without memory. */
struct path_tally *path_tally_new(void);
void path_tally_free(struct path_tally *t);

/* The batch b (words[0..b->nwords)) of thread (b->pid, b->tid,
 * b->generation), counted under image.  0, or -ENOMEM (the rest of the
 * batch is then not counted). */
int path_tally_batch(struct path_tally *t, const struct wpp_chunk_batch *b, const uint64_t *words,
		     uint32_t image);
/* Batches of (pid, tid) were lost here (any generation: a GAP chunk names
 * none). */
void path_tally_gap(struct path_tally *t, uint32_t pid, uint32_t tid);
/* The thread ended: its state goes (its counts stay until taken). */
void path_tally_thread_exit(struct path_tally *t, uint32_t pid, uint32_t tid, uint32_t generation);

/* The counts since the last take, sorted by (image, fid, id), into a new
 * array *out of *n entries (NULL, 0 when there are none; free() it); the
 * counts start again from zero.  0, or -ENOMEM (nothing taken). */
int path_tally_take(struct path_tally *t, struct path_tally_entry **out, size_t *n);

/* Totals since path_tally_new. */
void path_tally_stats(const struct path_tally *t, struct path_tally_stats *out);

#endif
