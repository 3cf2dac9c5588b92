/* SPDX-License-Identifier: MIT */
/*
 * annotate.h — `wpptrace annotate`: a function's source with per-line and
 * per-branch counts, lines of its hottest paths marked (A = hottest, B, C).
 * A line's count is the count of the busiest block covering it (a line split
 * over several blocks, like a for header, is not counted twice); a branch is
 * shown on the last line of a block with several CFG successors.  The
 * source is read from the file named by the debug info; when it is gone the
 * counts are still printed, with one warning.
 */
#ifndef WPP_REPORT_ANNOTATE_H
#define WPP_REPORT_ANNOTATE_H

#include <stdio.h>

#include "report/profile.h"

#define ANNOTATE_HOT_PATHS 3

/* 0, or -1 (message printed) when no function of that name ran. */
int rpt_annotate(FILE *out, const struct rpt_profile *p, const char *name, int json,
		 enum rpt_sort sort);

#endif
