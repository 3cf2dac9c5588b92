/* SPDX-License-Identifier: MIT */
/*
 * top_trace.h — `wpptrace top`'s tracing builds: their path words, taken
 * from the BPF transport as `record -p`/`-a` takes them (the same attach,
 * record_attach.h), counted as they arrive (path_tally.h) and never
 * written anywhere; once per interval the counts become rows.
 *
 * Choices (docs/cli.md, "top"):
 *   - BPF, because it is the transport that attaches to running
 *     processes; shm exists only for a program the collector starts;
 *   - a full ring drops batches (counted, shown as lost events) instead
 *     of stopping the program as record does by default: a viewer must
 *     not slow what it watches;
 *   - one drain thread: top's CPU stays small, and what one thread cannot
 *     drain is counted as lost, not hidden;
 *   - the words of counting TUs (a count build's counters drained at a
 *     thread's exit) are left out: top_count.c reads those from memory;
 *   - at the end the probes are detached (bc_finish, bc_close): the
 *     program runs on at full speed, as after `record -p`.
 */
#ifndef WPP_TOP_TRACE_H
#define WPP_TOP_TRACE_H

#include <stdint.h>
#include <sys/types.h>

#include "symbolizer/symbolizer.h"
#include "record/top_rows.h"

struct top_trace;

/* May this process use the BPF transport (CAP_BPF and CAP_PERFMON, or
 * CAP_SYS_ADMIN in its effective set)? */
int top_trace_allowed(void);

/* Attach to the tracing builds among pids (or, all, to every instrumented
 * process now and later) and start counting.  NULL after one line per
 * failure. */
struct top_trace *top_trace_open(int all, const pid_t *pids, int npids);

/* The interval's path executions of tracing TUs into rows (every process
 * that published or was alive in it into rows->pids), and the trace
 * words lost in it into *lost.  0, or -1 without memory. */
int top_trace_interval(struct top_trace *t, struct wpp_symbolizer *sym, struct top_rows *rows,
		       uint64_t *lost);

/* -p: every process has exited and everything it published was counted. */
int top_trace_all_exited(struct top_trace *t);

/* Detach and free (NULL is fine). */
void top_trace_close(struct top_trace *t);

#endif
