/* SPDX-License-Identifier: MIT */
/*
 * table_fmt.h — how report tables write numbers and names, shared by every
 * text table (paths, report, annotate, diff) so they read alike:
 *   - counts: exact below 100000, then scaled with k/M/G/T and 3 significant
 *     digits ("1.23M"), so a column of 7 characters holds any uint64;
 *   - shares: "69.2%", "<0.1%" for a non-zero part that rounds to nothing;
 *   - names: cut to a column width, '~' marking where text was left out.
 * Every function writes into a caller buffer and returns it.
 */
#ifndef WPP_REPORT_TABLE_FMT_H
#define WPP_REPORT_TABLE_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Widest text the functions below produce, plus NUL. */
#define FMT_NUM_LEN 24

/* s cut to width columns (width >= 2) with a trailing '~' when too long. */
char *fmt_fit(char *buf, size_t width, const char *s);

/* Cut from the left ("~ng/path.c") — for file names, whose end matters. */
char *fmt_fit_left(char *buf, size_t width, const char *s);

/* Cut in the middle ("std::vec~::push_back") — for function names, whose
 * start and end both matter (namespaces, suffixes like .cold, _impl). */
char *fmt_fit_mid(char *buf, size_t width, const char *s);

/* v as above: "99999", "123k", "1.23M". */
char *fmt_count(char *buf, uint64_t v);

/* part / whole as a percentage with one decimal ("0.0%" when whole is 0). */
char *fmt_pct(char *buf, uint64_t part, uint64_t whole);

/* Signed change in percent of the old value: "+12.5%", "-100.0%", "new". */
char *fmt_change(char *buf, uint64_t before, uint64_t after);

/* Write text to out wrapped at spaces so no line passes width columns, each
 * line indented by indent spaces; a word longer than a line is cut. */
void fmt_wrap(FILE *out, int indent, int width, const char *text);

/* Base name of a path (the part after the last '/'). */
const char *fmt_basename(const char *path);

#endif
