/* SPDX-License-Identifier: MIT */
/*
 * report_session.h — what the report commands share before rendering: open
 * a trace (session.h: integrity and metadata checks, one line each) and
 * reduce the selected threads to a profile.
 */
#ifndef WPP_REPORT_REPORT_SESSION_H
#define WPP_REPORT_REPORT_SESSION_H

#include "profile.h"
#include "session.h"

/* 0, or an exit status after one error line. */
int rpt_open(struct session *s, struct rpt_profile *p, const char *file,
	     const struct thread_filter *f);
void rpt_close(struct session *s, struct rpt_profile *p);

/* --cost COUNTER: make the profile's cost the counter events attributed
 * to each path (costs.h) and write a one-line summary (estimate, samples,
 * unattributed share, exact counted total) to summary.  NULL counter or
 * "insns": nothing changes.  0, or an exit status after one error line. */
int rpt_apply_counter(struct session *s, struct rpt_profile *p, const char *counter,
		      const struct thread_filter *f, char *summary, size_t len);

#endif
