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
int rpt_open(struct session *s, struct rpt_profile *p, const char *file, const struct thread_filter *f);
void rpt_close(struct session *s, struct rpt_profile *p);

#endif
