/* SPDX-License-Identifier: MIT */
/* in_file.c — see in_file.h. */
#include "common/in_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"

static void say(const char *who, const char *path, const char *why)
{
	if (!who)
		return;
	if (*who)
		wpp_err("%s: %s: %s", who, path, why);
	else
		wpp_err("%s: %s", path, why);
}

/* Every regular file opened, so out_file_create can refuse to replace one
 * (`report run.wpp --html -o run.wpp` would rename the report over the
 * recording).  Commands open a handful of inputs; a list that cannot grow
 * forgets nothing it already has and only weakens the check. */
static struct opened {
	dev_t dev;
	ino_t ino;
} *opened;
static size_t nopened, capopened;
static int guarding;

void in_file_guard_inputs(void)
{
	guarding = 1;
}

static void remember(const struct stat *st)
{
	if (!guarding || in_file_was_opened(st->st_dev, st->st_ino))
		return;
	if (nopened == capopened) {
		size_t cap = capopened ? 2 * capopened : 16;
		struct opened *grown = realloc(opened, cap * sizeof(*grown));
		if (!grown)
			return;
		opened = grown;
		capopened = cap;
	}
	opened[nopened++] = (struct opened){st->st_dev, st->st_ino};
}

int in_file_was_opened(dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < nopened; i++)
		if (opened[i].dev == dev && opened[i].ino == ino)
			return 1;
	return 0;
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
	remember(st);
	return fd;
}
