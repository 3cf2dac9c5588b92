/* SPDX-License-Identifier: MIT */
/*
 * out_file.c — see out_file.h.  Why a temporary and a rename rather than
 * opening the target with O_EXCL|O_NOFOLLOW: O_EXCL alone would refuse to
 * write over last run's run.wpp, and removing it first would lose it when
 * the new run then fails to start; the rename keeps the old file until the
 * new one is worth having, and is just as safe against a planted name (the
 * temporary is O_EXCL, rename never follows the target).
 */
#include "common/out_file.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/in_file.h"
#include "common/log.h"

/* Longest part of the target's name kept in the temporary's (NAME_MAX 255
 * minus the dot and ".XXXXXX"). */
#define TMP_BASE_MAX 200

static void say(const char *who, const char *fmt, const char *path, const char *why)
{
	char line[1024];

	snprintf(line, sizeof(line), fmt, path, why);
	if (who)
		wpp_err("%s: %s", who, line);
	else
		wpp_err("%s", line);
}

/* Would rename() over target (an existing file of owner uid) be refused
 * for the sticky bit of its directory?  Root (CAP_FOWNER) may; others may
 * only replace their own files or files in their own directory. */
static int sticky_refuses(const char *dir, uid_t owner)
{
	struct stat d;
	uid_t me = geteuid();

	return me != 0 && owner != me && stat(dir, &d) == 0 && (d.st_mode & S_ISVTX) &&
	       d.st_uid != me;
}

/* An existing FIFO or character device: written in place when it is the
 * caller's or root's.  The open cannot block (O_NONBLOCK: a FIFO without a
 * reader fails with ENXIO) and what was opened is checked again (the name
 * may have changed since lstat). */
static int open_in_place(struct out_file *f, const struct stat *seen, const char *who)
{
	struct stat st;
	char why[96];
	int fd;

	if (seen->st_uid != 0 && seen->st_uid != geteuid()) {
		snprintf(why, sizeof(why), "it is a %s of another user (uid %u)",
			 S_ISFIFO(seen->st_mode) ? "FIFO" : "device", (unsigned)seen->st_uid);
		say(who, "cannot write %s: %s", f->path, why);
		return -1;
	}
	fd = open(f->path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		say(who, "cannot write %s: %s", f->path,
		    errno == ENXIO ? "a FIFO nobody reads" : strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || st.st_dev != seen->st_dev || st.st_ino != seen->st_ino ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		close(fd);
		say(who, "cannot write %s: %s", f->path, "it changed while being opened");
		return -1;
	}
	f->fd = fd;
	return 0;
}

/* The temporary next to the target: ".NAME.XXXXXX" in its directory. */
static int open_temporary(struct out_file *f, const char *dir, const char *base, const char *who)
{
	size_t len = strlen(dir) + strlen(base) + 16;

	f->tmp = malloc(len);
	if (!f->tmp) {
		say(who, "cannot create %s: %s", f->path, strerror(ENOMEM));
		return -1;
	}
	snprintf(f->tmp, len, "%s/.%.*s.XXXXXX", dir, TMP_BASE_MAX, base);
	/* mkostemp: O_CREAT|O_EXCL, mode 0600 (the umask can only take away). */
	f->fd = mkostemp(f->tmp, O_CLOEXEC);
	if (f->fd < 0) {
		/* (the error is the directory's: /proc says ENOENT for a file
		 * that exists, a read-only mount EROFS for one that does not) */
		char why[1024]; /* (say() cuts the line at 1024 bytes too) */
		snprintf(why, sizeof(why), "no new file can be made in %s (%s)", dir,
			 strerror(errno));
		say(who, "cannot create %s: %s", f->path, why);
		free(f->tmp);
		f->tmp = NULL;
		return -1;
	}
	return 0;
}

int out_file_create(struct out_file *f, const char *path, const char *who)
{
	char *dcopy = strdup(path), *bcopy = strdup(path);
	struct stat st;
	int rc = -1;

	*f = (struct out_file){.fd = -1, .path = strdup(path)};
	if (!dcopy || !bcopy || !f->path) {
		say(who, "cannot create %s: %s", path, strerror(ENOMEM));
		goto out;
	}
	const char *dir = dirname(dcopy), *base = basename(bcopy);
	if (lstat(path, &st) == 0) {
		if (S_ISLNK(st.st_mode)) {
			say(who, "cannot write %s: %s", path,
			    "it is a symbolic link (not followed: name the file itself)");
		} else if (S_ISDIR(st.st_mode)) {
			say(who, "cannot write %s: %s", path, "it is a directory");
		} else if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
			rc = open_in_place(f, &st, who);
		} else if (!S_ISREG(st.st_mode)) {
			say(who, "cannot write %s: %s", path, "not a regular file");
		} else if (in_file_was_opened(st.st_dev, st.st_ino)) {
			say(who, "cannot write %s: %s", path,
			    "it is an input of this command (name another output file)");
		} else if (sticky_refuses(dir, st.st_uid)) {
			say(who, "cannot replace %s: %s", path,
			    "it belongs to another user, in a directory that lets only its "
			    "owner remove it");
		} else {
			rc = open_temporary(f, dir, base, who);
		}
	} else if (errno != ENOENT) {
		say(who, "cannot create %s: %s", path, strerror(errno));
	} else if (path[0] == '\0' || path[strlen(path) - 1] == '/') {
		say(who, "cannot create %s: %s", path, "not a file name");
	} else {
		rc = open_temporary(f, dir, base, who);
	}
out:
	free(dcopy);
	free(bcopy);
	if (rc < 0) {
		free(f->path);
		*f = (struct out_file){.fd = -1};
	}
	return rc;
}

int out_file_publish(struct out_file *f, const char *who)
{
	char why[1024];

	if (!f->tmp)
		return 0;
	if (f->stranded)
		return -1;
	if (rename(f->tmp, f->path) < 0) {
		snprintf(why, sizeof(why), "%s; what was written is in %s", strerror(errno),
			 f->tmp);
		say(who, "cannot put %s in place: %s", f->path, why);
		f->stranded = 1;
		return -1;
	}
	free(f->tmp);
	f->tmp = NULL;
	return 0;
}

FILE *out_file_stdio(struct out_file *f, const char *who)
{
	f->fp = fdopen(f->fd, "w");
	if (!f->fp)
		say(who, "cannot write %s: %s", f->path, strerror(errno));
	return f->fp;
}

/* Close the stream or the descriptor; -errno of the first failure. */
static int close_fd(struct out_file *f)
{
	int err = 0;

	if (f->fp) {
		if (fclose(f->fp) != 0)
			err = -(errno ? errno : EIO);
	} else if (f->fd >= 0 && close(f->fd) < 0) {
		err = -errno;
	}
	f->fp = NULL;
	f->fd = -1;
	return err;
}

int out_file_close(struct out_file *f)
{
	int err = close_fd(f);

	free(f->path);
	free(f->tmp);
	f->path = f->tmp = NULL;
	return err;
}

int out_file_commit(struct out_file *f, const char *who)
{
	/* The bytes are on disk before the name points at them: a crash
	 * leaves the old file or the new one, never an empty new one.
	 * EINVAL: a device or FIFO written in place has nothing to sync. */
	int err = 0;

	if (f->fp && (fflush(f->fp) != 0 || ferror(f->fp)))
		err = -(errno ? errno : EIO);
	if (!err && fsync(f->fd) < 0 && errno != EINVAL)
		err = -errno;
	int cerr = close_fd(f);
	if (err || cerr) {
		say(who, "writing %s failed: %s", f->path, strerror(-(err ? err : cerr)));
		out_file_discard(f);
		return -1;
	}
	int rc = out_file_publish(f, who);
	out_file_close(f);
	return rc;
}

void out_file_discard(struct out_file *f)
{
	close_fd(f);
	if (f->tmp && !f->stranded)
		unlink(f->tmp);
	out_file_close(f);
}
