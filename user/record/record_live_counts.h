/* SPDX-License-Identifier: MIT */
/*
 * record_live_counts.h — `record -p`/`-a` on counting builds
 * (-fwpp-mode=count): the counts that the attached processes' live threads
 * still hold when recording stops, written into the .wpp.
 *
 * A count build hands its counts over as trace words only when a thread
 * exits or the process ends (docs/runtime.md, "Counting"); a process that
 * is still running when `record -p` stops would leave nothing.  So after
 * the probes are detached and the rings drained (bc_finish), each process
 * reported alive is read through /proc/PID/mem (count_snapshot.h) and its
 * counts go into the file as one more stream of the process: thread id 0,
 * which no real thread has, path records and REPEAT words as the runtime
 * itself writes them, so every reader takes them unchanged.
 *
 * What a recording holds (docs/design.md, "Counts of attached processes
 * are read at detach"): for every thread that was alive during the
 * window, its counts since it started.  Read after detach, nothing is
 * counted twice: a drain the collector saw zeroed what it sent.  A thread
 * caught draining while read (its words published after the detach are
 * not in the file) is counted and said as possibly incomplete.
 *
 * A process killed meanwhile (SIGKILL, or any signal but abort's, which
 * drains first) hands nothing over: every second each process is read
 * per thread; at the end, when every batch is in, the last snapshot of a
 * process reported killed is written, but for the threads that sent words
 * after it began (their own drains may carry the same counts).  What ran
 * after the snapshot is lost, and said with how long that was.
 */
#ifndef WPP_RECORD_LIVE_COUNTS_H
#define WPP_RECORD_LIVE_COUNTS_H

#include "bpfcollect/bpfcollect.h"

struct record_sink;
struct record_live_counts;

/* rs: where a killed process's last snapshot goes. */
struct record_live_counts *record_live_counts_new(struct record_sink *rs);
/* A process event from the collector: NEW remembers (pid, generation),
 * EXIT forgets the pid (its counts went into its stream at its end) or,
 * when a signal killed it, keeps its last snapshot for the end. */
void record_live_counts_process(struct record_live_counts *l, const struct bc_process *p);
/* A batch: its thread sent words (a count build's thread does when it
 * drains at its exit), so its earlier snapshot is not to be salvaged. */
void record_live_counts_batch(struct record_live_counts *l, const struct wpp_chunk_batch *b);
/* Called often from the recorder's loop: every second, a per-thread
 * snapshot of every remembered process (not holding the collector up). */
void record_live_counts_tick(struct record_live_counts *l);
/* After bc_finish: read every remembered process still alive and write
 * its counts, and the last snapshots of the killed ones.  Problems are
 * one line each (quiet: only losses).  0, or -1 when the file could not
 * be written. */
int record_live_counts_write(struct record_live_counts *l, struct record_sink *rs, int quiet);
void record_live_counts_free(struct record_live_counts *l);

#endif
