/* SPDX-License-Identifier: MIT */
/*
 * top_count.h — `wpptrace top`'s counting builds (-fwpp-mode=count): the
 * processes it watches, their path counters read from memory once per
 * interval (count_snapshot.h, found through the runtime's registry:
 * nothing is attached, nothing stopped, the program pays nothing), and
 * the delta since the previous read as rows.  With -a, every process is
 * looked at once (by pid and start time) as it is found; one whose
 * memory cannot be read (another user's) is counted as skipped, and,
 * when tracing builds are not watched (no BPF), one that has tracing
 * TUs as untraced.
 */
#ifndef WPP_TOP_COUNT_H
#define WPP_TOP_COUNT_H

#include <sys/types.h>

#include "symbolizer/symbolizer.h"
#include "record/top_rows.h"

struct top_count;

/* NULL without memory. */
struct top_count *top_count_new(void);
void top_count_free(struct top_count *c);

/* -p PID: read its registry; when its runtime keeps counters, it is
 * watched here from now on.  0, with *tracing set when it has TUs that
 * trace (top_trace.c watches those) and *counting when it has TUs that
 * count; or -1 after one line (no such process, not instrumented, not
 * readable, nothing to watch). */
int top_count_add_pid(struct top_count *c, struct wpp_symbolizer *sym, pid_t pid, int *tracing,
		      int *counting);

/* -a: look at every process not looked at yet.  tracing_watched: tracing
 * builds are watched elsewhere; if not, processes with tracing TUs are
 * counted as untraced. */
void top_count_discover(struct top_count *c, struct wpp_symbolizer *sym, int tracing_watched);

/* One interval: each watched process's paths since the previous read
 * into rows (and the process into rows->pids); processes that exited say
 * so on stderr and are dropped.  *skipped, *untraced: the live processes
 * -a could not read, or found tracing unwatched.  0, or -1 without
 * memory. */
int top_count_interval(struct top_count *c, struct wpp_symbolizer *sym, struct top_rows *rows,
		       unsigned *skipped, unsigned *untraced);

/* Processes still watched. */
int top_count_live(const struct top_count *c);

#endif
