/* SPDX-License-Identifier: MIT */
/*
 * path_text.h — a path as a person reads it: the source lines it covers, in
 * execution order, with every branch decision visible.
 *
 *   "loop: 13 14 [->4, not 15] 4 6 [->8, not 7] 8 14 loop->13"
 *
 * Lines of the function's own file are bare numbers; lines of another file
 * (inlined headers) are "file:line".  Runs of consecutive lines become
 * ranges ("10-12"); a line is not repeated when the next block starts on it.
 * After a block with more than one CFG successor, "[->L, not M N]" names the
 * line the path went to and the lines it did not.  The path begins with its
 * start kind when that is not function entry ("loop:", "after call:",
 * "cut:") and ends with how it ended ("ret", "loop->L", "call", "cut",
 * "noret").  Blocks without a line are "b<index>".
 */
#ifndef WPP_REPORT_PATH_TEXT_H
#define WPP_REPORT_PATH_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "symbolizer/meta_model.h"
#include "report/profile.h"

/* A growable NUL-terminated string. */
struct strbuf {
	char *s;
	size_t len, cap;
};
void sb_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_free(struct strbuf *b);

/* Distinct CFG successors of block u (from its DAG out-edges, dummies
 * resolved to the CFG edge they stand for), at most cap; returns how many. */
uint32_t rpt_cfg_succ(const struct wpp_fn *fn, uint32_t u, uint32_t *succ, uint32_t cap);

/* The CFG successor the path took after its last block, or UINT32_MAX
 * (return, noreturn, or a cut with no single target). */
uint32_t rpt_path_exit_target(const struct rpt_path *r);

/* Append the rendering of r to b. */
void rpt_path_text(const struct rpt_path *r, struct strbuf *b);

/* "12" or "util.h:12" or "b3": how a block is named in renderings. */
void rpt_block_label(const struct wpp_fn *fn, uint32_t block, struct strbuf *b);

/* Append "[16: 692, 15: 3, elsewhere: 2]": path r's sampled cost per line
 * of its function (cost_lines.h; nothing when no sample has a line). */
struct line_costs;
void rpt_path_line_costs(struct strbuf *s, const struct line_costs *lc, const struct rpt_path *r);

#endif
