/* SPDX-License-Identifier: MIT */
/*
 * report_session.h — what the report commands share before rendering: open
 * a trace (session.h: integrity and metadata checks, one line each) and
 * reduce the selected threads to a profile.
 */
#ifndef WPP_REPORT_REPORT_SESSION_H
#define WPP_REPORT_REPORT_SESSION_H

#include "report/profile.h"
#include "decode/session.h"

/* 0, or an exit status after one error line (a --pid/--tid filter no
 * thread matches: WPP_EXIT_USAGE, naming the filter and command who). */
int rpt_open(struct session *s, struct rpt_profile *p, const char *file,
	     const struct thread_filter *f, const char *who);
void rpt_close(struct session *s, struct rpt_profile *p);

/* The commands that merge several recordings (edges, interesting): each
 * file opened and profiled in turn and handed to add(ctx, profile), every
 * input read before the caller writes anything (a bad one fails first).
 * 0 with *worst = the largest session exit status seen (a recording that
 * ended early), or an exit status after one error line: an input that
 * cannot be used, add returning < 0 ("WHO: out of memory"), or a
 * --pid/--tid filter no thread of any input matches (WPP_EXIT_USAGE, as
 * no_thread_selected; an input it matches nothing of gets a warning when
 * another one matched). */
int rpt_merge_inputs(char *const *files, int n, const struct thread_filter *f, const char *who,
		     int (*add)(void *ctx, const struct rpt_profile *p), void *ctx, int *worst);

/* --cost COUNTER of command who (cost_select.h): make the profile's cost
 * the counter events attributed to each path and write a one-line summary
 * (estimate, samples, unattributed share, exact counted total) to
 * summary.  NULL counter or "insns": nothing changes.  0, or an exit
 * status after one error line (WPP_EXIT_USAGE: not a counter of the file). */
int rpt_apply_counter(struct session *s, struct rpt_profile *p, const char *counter,
		      const struct thread_filter *f, const char *who, char *summary, size_t len);

#endif
