/* SPDX-License-Identifier: MIT */
/* Result formatting, built as libfmt.so (cc_project test). */
#ifndef CC_PROJECT_FMT_H
#define CC_PROJECT_FMT_H
/* Writes "expr = value" (or an error) to stdout. */
void fmt_result(const char *expr, long value, int ok);
#endif
