/* SPDX-License-Identifier: MIT */
/*
 * cost_info.h — the counters section of `wpptrace info` (docs/counters.md):
 * per counter, the summary line and the samples of every miss class
 * (text), or a JSON array of cost_tally objects (costs.h).
 */
#ifndef WPP_REPORT_COST_INFO_H
#define WPP_REPORT_COST_INFO_H

#include <stdio.h>

/* Attribute every counter of file and print the section.  Metadata that
 * cannot be loaded is said in the section (JSON: null), not an error.
 * 0, or -1 on allocation failure (message printed). */
int cost_info_print(FILE *out, const char *file, int json);

#endif
