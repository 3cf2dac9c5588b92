/* SPDX-License-Identifier: MIT */
/*
 * detach_take.h — the words a live thread recorded since its last
 * published batch, taken when a collector detaches (record -p/-a stopping
 * while the process runs on), and the mark that keeps a later attach from
 * recording them again.
 *
 * Why: a process record did not start keeps the runtime's 8192-word batch
 * (bpfcollect.h, BC_RECORD_BATCH_WORDS).  A quiet thread (a few hundred
 * paths a second) fills one in tens of seconds, so a recording shorter than
 * that held none of its words (issue 23).  At detach the collector reads
 * the thread's open level-0 buffer up to its cursor through the thread's
 * position descriptor (runtime/wpp_position.h, as exit salvage does in BPF)
 * from /proc/PID/mem, and hands it on as the thread's last batch, with the
 * batch's own seq and WPP_BATCH_SALVAGED.
 *
 * The mark: the thread goes on filling that buffer and publishes it whole
 * (seq S) when it is full.  A collector attached by then would record the
 * first words again.  So the detaching collector writes into the buffer's
 * header, in the field the runtime leaves alone from open to publish
 * (struct wpp_batch_hdr.reserved1: probe mode clears the header after each
 * publish and level_open fills it field by field), the pair (S, words
 * taken).  A later attach reads the mark of each thread's open level-0
 * buffer before the process is traced (positions.c), and drops that many
 * words from the front of batch S when it comes (demux.c), shifting the
 * splice offsets of signal batches that name S as their parent.  A mark
 * whose seq is not the batch's (written just as the buffer was published,
 * into the cleared header of the next) is ignored.
 *
 * Only level 0 is taken: a thread caught inside a signal handler gives its
 * level-0 words up to where the handler interrupted it; the handler's own
 * words are published when it returns.  The memory is hostile input: every
 * address and size is bounded, and a write can only land in the process's
 * own memory.
 */
#ifndef WPP_BC_DETACH_TAKE_H
#define WPP_BC_DETACH_TAKE_H

#include <stdint.h>
#include <sys/types.h>

#include "bpf/wpp_position_records.h"

/* What one detach took of one thread (or what its mark says). */
struct detach_taken {
	uint32_t pid, tid;
	uint64_t seq;	 /* the level-0 batch the words belong to */
	uint32_t nwords; /* words from the batch's start */
};

/* Read thread tid's unpublished level-0 words and mark them taken.  1:
 * *out and *words (malloc'ed, out->nwords of them) filled; 0: nothing to
 * take (a fresh buffer, not recording, gone); -EAGAIN: the thread stayed
 * inside the runtime's buffer switch; -errno otherwise. */
int detach_take_read(const struct wpp_bpf_position *p, uint32_t tid, struct detach_taken *out,
		     uint64_t **words);

/* The mark of thread tid's open level-0 buffer, through an open
 * /proc/PID/mem (fd).  1: *out filled; 0: none. */
int detach_take_mark(int fd, const struct wpp_bpf_position *p, uint32_t tid,
		     struct detach_taken *out);

#endif
