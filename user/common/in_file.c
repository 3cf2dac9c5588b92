/* SPDX-License-Identifier: MIT */
/* in_file.c — see in_file.h. */
#include "in_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "log.h"

static void say(const char *who, const char *path, const char *why)
{
	if (!who)
		return;
	if (*who)
		wpp_err("%s: %s: %s", who, path, why);
	else
		wpp_err("%s: %s", path, why);
}

int in_file_open(const char *path, const char *who, struct stat *st)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		say(who, path, strerror(errno));
		return -1;
	}
	if (fstat(fd, st) < 0) {
		say(who, path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		say(who, path, S_ISDIR(st->st_mode) ? "is a directory" : "not a regular file");
		close(fd);
		return -1;
	}
	/* Regular files ignore O_NONBLOCK; cleared anyway so that a stdio
	 * stream over fd never sees EAGAIN. */
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		say(who, path, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}
