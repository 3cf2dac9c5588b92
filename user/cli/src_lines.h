/* SPDX-License-Identifier: MIT */
/*
 * src_lines.h — lines of source files, for commands that show the source
 * of what they list (`wpptrace wet slice`).  The files are named by debug
 * info: only regular files are read (opened without blocking, so a FIFO
 * put in a source's place cannot hang the command), at most 16 MiB each,
 * a few kept at a time.  A file that is gone or unreadable has no lines:
 * its callers show positions alone.
 */
#ifndef WPP_CLI_SRC_LINES_H
#define WPP_CLI_SRC_LINES_H

#include <stddef.h>
#include <stdint.h>

struct src_lines;

/* NULL when out of memory. */
struct src_lines *src_lines_new(void);
/* Line `line` (from 1) of file, without its newline, its length in *len;
 * NULL when the file or the line is not there.  Valid until the next call. */
const char *src_lines_get(struct src_lines *s, const char *file, uint32_t line, size_t *len);
void src_lines_free(struct src_lines *s);

#endif
