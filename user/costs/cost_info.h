/* SPDX-License-Identifier: MIT */
/*
 * cost_info.h — the counters section of `wpptrace info` (docs/counters.md):
 * per counter, the summary line and the samples of every miss class
 * (text), or the member "counters", an array of cost_tally objects
 * (costs.h), of info's JSON document.
 */
#ifndef WPP_REPORT_COST_INFO_H
#define WPP_REPORT_COST_INFO_H

#include <stdio.h>

#include "common/json_out.h"
#include "decode/module_map.h"
#include "decode/trace_file.h"

/* Attribute every counter of trace t (its program's metadata in mods) and
 * print the section: as text to out, or, j not NULL, as the member
 * "counters" of the object j has open.  t NULL: the caller could not load
 * the metadata; the section says so (JSON: null), which is not an error.
 * 0, or -1 on allocation failure (message printed). */
int cost_info_print(FILE *out, struct json_out *j, struct wpp_trace *t, struct wpp_modules *mods);

#endif
