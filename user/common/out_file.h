/* SPDX-License-Identifier: MIT */
/*
 * out_file.h — creating the files wpptrace writes (every command's -o, and
 * wpp's --raw-out), so that no other local user can steer where the bytes go
 * or who reads them (docs/security.md, "Files").
 *
 * The bytes go to a fresh temporary in the target's directory, created with
 * O_CREAT|O_EXCL (mkostemp) and mode 0600 whatever the umask; the
 * temporary replaces the target by rename() when the caller says the output
 * is good (out_file_publish).  So:
 *   - a file someone else prepared at the target is never opened: rename
 *     replaces the name, the other inode (its owner, mode, hard links) gets
 *     nothing of ours; a symbolic link there is refused up front;
 *   - until publish the previous file stays as it was: a command that fails
 *     before it (a program that cannot start, an export that fails
 *     half-way) leaves it untouched and removes its temporary;
 *   - a reader never sees a half-written report under the target's name.
 * `record` publishes as soon as the program runs, then keeps appending: a
 * killed recording leaves its readable prefix under the target's name, as
 * it always has (data already collected is never only in a hidden file).
 *
 * An existing character device or FIFO (-o /dev/null, a pipe a consumer
 * reads) is written in place, if it belongs to the caller or root: a FIFO
 * another user made could be read by them.  A target whose rename would
 * fail (a directory, another user's file in a sticky directory such as
 * /tmp) is refused at create time, before anything runs.
 */
#ifndef WPP_OUT_FILE_H
#define WPP_OUT_FILE_H

#include <stdio.h>

struct out_file {
	int fd;
	FILE *fp;     /* from out_file_stdio(), or NULL */
	char *path;   /* the target */
	char *tmp;    /* the temporary while not published; NULL once published
		       * or when written in place */
	int stranded; /* publishing failed: tmp holds the bytes and is kept */
};

/* Create the output for path.  who prefixes messages ("export"; NULL for
 * none).  0, or -1 with one line printed and nothing left behind. */
int out_file_create(struct out_file *f, const char *path, const char *who);
/* A stdio stream over f->fd (kept in f->fp; commit and discard close it).
 * NULL with one line printed. */
FILE *out_file_stdio(struct out_file *f, const char *who);
/* Put the temporary in place (rename over the target).  A no-op once done
 * or for an output written in place.  0, or -1 with one line printed
 * naming where the bytes are (the temporary is kept, f->fd stays open). */
int out_file_publish(struct out_file *f, const char *who);
/* Flush (f->fp), fsync, close, then publish: the end of a successful
 * output written all at once.  0, or -1 with one line printed when a write
 * failed (the temporary is then removed) or publishing failed (kept). */
int out_file_commit(struct out_file *f, const char *who);
/* Close; an unpublished temporary is removed (the target keeps what it had). */
void out_file_discard(struct out_file *f);
/* Close only (the file stays where it is: published, or the temporary a
 * failed publish left).  0 or -errno. */
int out_file_close(struct out_file *f);

#endif
