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
 */
#ifndef WPP_RECORD_LIVE_COUNTS_H
#define WPP_RECORD_LIVE_COUNTS_H

#include "bpfcollect/bpfcollect.h"

struct record_sink;
struct record_live_counts;

struct record_live_counts *record_live_counts_new(void);
/* A process event from the collector: NEW remembers (pid, generation),
 * EXIT forgets the pid (its counts went into its stream at its end). */
void record_live_counts_process(struct record_live_counts *l, const struct bc_process *p);
/* After bc_finish: read every remembered process still alive and write
 * its counts.  Problems are one line each (quiet: only losses).  0, or -1
 * when the file could not be written. */
int record_live_counts_write(struct record_live_counts *l, struct record_sink *rs, int quiet);
void record_live_counts_free(struct record_live_counts *l);

#endif
