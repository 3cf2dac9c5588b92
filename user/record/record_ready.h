/* SPDX-License-Identifier: MIT */
/*
 * record_ready.h — `record --ready-fd N` and the -v "recording" line: tell
 * whoever started record the moment every probe is attached and recording
 * has begun, so a script or test waits for that event instead of guessing
 * a time.  One line "ready\n" is written to fd N, which is then closed; a
 * record that fails before that point closes it unwritten (on exit), so
 * the reader sees end of file with no line.
 */
#ifndef WPP_RECORD_READY_H
#define WPP_RECORD_READY_H

/* Parse --ready-fd's argument (of command cmd): an open descriptor, made close-on-exec so
 * the traced program does not inherit it (its reader would then wait for
 * the program's end, not for record's line); 0-2 are duplicated instead,
 * so the program keeps its stdin, stdout and stderr (the line is written,
 * the descriptor stays open).  0, or -1 after one line. */
int record_ready_parse(const char *cmd, const char *arg, int *fd);

/* Recording has begun: the line on fd (if >= 0) and under -v on stderr. */
void record_ready(int fd, const char *what);
/* The line alone (`top --ready-fd`: watching has begun). */
void record_ready_say(int fd);

#endif
