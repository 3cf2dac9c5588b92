/* SPDX-License-Identifier: MIT */
/*
 * cfg_dot.h — `wpptrace cfg`: a function's CFG in Graphviz dot, blocks
 * labelled with their source lines and counts, edges with how often they
 * were taken (width grows with the count), the hottest paths drawn in
 * colour (red = hottest, orange, gold).  SVG is made by running Graphviz's
 * `dot -Tsvg` on it.
 */
#ifndef WPP_REPORT_CFG_DOT_H
#define WPP_REPORT_CFG_DOT_H

#include <stdio.h>

#include "report/profile.h"

#define CFG_HOT_PATHS 3

/* 0, or -1 (message printed) when no function of that name ran. */
int rpt_cfg_dot(FILE *out, const struct rpt_profile *p, const char *name, enum rpt_sort sort);

/* Write the dot text of rpt_cfg_dot through `dot -Tsvg` into svg_fd (dot's
 * standard output; svg_path names it in messages).  0 or -1 (message printed). */
int rpt_cfg_svg(int svg_fd, const char *svg_path, const struct rpt_profile *p, const char *name,
		enum rpt_sort sort);

#endif
