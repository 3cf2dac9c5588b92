/* SPDX-License-Identifier: MIT */
/*
 * in_file.h — opening a file wpptrace reads (a .wpp, a raw symbol stream, a
 * source file named in debug info) so that what stands at the name cannot
 * hang the reader: the open does not block (O_NONBLOCK: a FIFO would wait
 * for a writer, a tty for carrier) and anything but a regular file is
 * refused in one line (docs/security.md, "Files").
 */
#ifndef WPP_IN_FILE_H
#define WPP_IN_FILE_H

#include <sys/stat.h>

/* A read-only descriptor (blocking again, close-on-exec) for the regular
 * file at path, its stat in *st.  -1 when it cannot be opened or is not a
 * regular file, with one line printed when who is not NULL
 * ("wpp: X: not a regular file"; who "" for no prefix). */
int in_file_open(const char *path, const char *who, struct stat *st);

/* From now on, remember every file in_file_open opens, so that
 * out_file_create refuses to replace one: an output must not be renamed
 * over a command's own input.  wpptrace's main turns it on for every
 * command; a library user (a test that writes, reads back and rewrites one
 * file) is not bound by it. */
void in_file_guard_inputs(void);
/* 1 if, since in_file_guard_inputs, in_file_open opened the file
 * (device, inode). */
int in_file_was_opened(dev_t dev, ino_t ino);

#endif
