/* SPDX-License-Identifier: MIT */
/*
 * record_live_counts.h — counting builds (-fwpp-mode=count) under
 * `record`: the counts that the processes' live threads still hold when
 * recording stops (-p/-a), and the last snapshot of a process that was
 * killed (-p, -a and programs record started, either transport), written
 * into the .wpp.
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
 * A process killed meanwhile (SIGKILL, the OOM killer, a crash: any
 * signal not raised by abort(), which drains first) hands nothing over: every
 * interval (--snapshot-interval, 1 s) each process is read per thread; at
 * the end, when every batch is in, the last snapshot of a process that was
 * killed is written, but for the threads that sent words after it began
 * (their own drains may carry the same counts).  What ran after the
 * snapshot is lost, and said with how long that was (docs/design.md,
 * "Counts of killed processes are their last snapshot").
 *
 * How a process ended comes from the transport: BPF reports every exit
 * status; the shm collector reports that a process is gone, and record
 * knows the status of the processes it reaps itself (its program, and
 * orphans).  A process whose parent took its status was killed for sure
 * if it held counts at its last snapshot and sent no word since: a normal
 * end (exit, exec, _exit, abort) drains every count into the stream.  So
 * is one that died of SIGABRT: abort() drains first, a SIGABRT sent from
 * outside does not.
 */
#ifndef WPP_RECORD_LIVE_COUNTS_H
#define WPP_RECORD_LIVE_COUNTS_H

#include "bpfcollect/bpfcollect.h"

struct record_sink;
struct record_live_counts;

/* An ended process's wait status, when nobody has told it (yet). */
#define RECORD_LIVE_STATUS_UNKNOWN (-1)
/* Bounds of the snapshot interval (record's --snapshot-interval). */
#define RECORD_LIVE_INTERVAL_MIN_S 0.01
#define RECORD_LIVE_INTERVAL_MAX_S 3600.0

/* rs: where a killed process's last snapshot goes; interval_ns: between
 * two periodic snapshots of a process. */
struct record_live_counts *record_live_counts_new(struct record_sink *rs, uint64_t interval_ns);
/* A new image (a process seen, forked or exec'd): remembered. */
void record_live_counts_started(struct record_live_counts *l, uint32_t pid, uint32_t generation);
/* The image ended, with its wait status or RECORD_LIVE_STATUS_UNKNOWN:
 * forgotten when it ended normally (its counts went into its stream),
 * else its last snapshot is kept for the end. */
void record_live_counts_ended(struct record_live_counts *l, uint32_t pid, uint32_t generation,
			      int status);
/* record reaped pid itself (its status, for an image that ended or will
 * be reported ended). */
void record_live_counts_reaped(struct record_live_counts *l, uint32_t pid, int status);
/* The collector reported a TU that image registered: its runtime is
 * loaded and relocated, so its registry is read again if earlier looks
 * found none (a slow loader, a runtime dlopen'ed later). */
void record_live_counts_module(struct record_live_counts *l, uint32_t pid, uint32_t generation);
/* A process event from the BPF collector: started or ended. */
void record_live_counts_process(struct record_live_counts *l, const struct bc_process *p);
/* A batch: its thread sent words (a count build's thread does when it
 * drains at its exit), so its earlier snapshot is not to be salvaged. */
void record_live_counts_batch(struct record_live_counts *l, const struct wpp_chunk_batch *b);
/* Called often from the recorder's loop: every interval, a per-thread
 * snapshot of every remembered process.  Its cost is a few preads per
 * thread and the arrays' bytes (docs/design.md says how much). */
void record_live_counts_tick(struct record_live_counts *l);
/* After bc_finish: read every remembered process still alive and write
 * its counts, and the last snapshots of the killed ones.  Problems are
 * one line each (quiet: only losses).  0, or -1 when the file could not
 * be written. */
int record_live_counts_write(struct record_live_counts *l, struct record_sink *rs, int quiet);
void record_live_counts_free(struct record_live_counts *l);

#endif
