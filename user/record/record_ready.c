/* SPDX-License-Identifier: MIT */
/*
 * record_ready.c — see record_ready.h.  Kept apart from the recorders so
 * both transports say "ready" the same way.
 */
#include "record/record_ready.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"

int record_ready_parse(const char *cmd, const char *arg, int *fd)
{
	char *end;
	long v = strtol(arg, &end, 10);
	int flags;

	if (!*arg || *end || v < 0 || v > 0x7fffffff) {
		wpp_err("%s: --ready-fd needs a file descriptor number, got '%s'", cmd, arg);
		return -1;
	}
	flags = fcntl((int)v, F_GETFD);
	if (flags < 0) {
		wpp_err("%s: --ready-fd %ld: %s", cmd, v, strerror(errno));
		return -1;
	}
	/* stdin, stdout and stderr stay the program's: the line goes to a
	 * close-on-exec copy, and only the copy is closed. */
	if (v <= 2)
		*fd = fcntl((int)v, F_DUPFD_CLOEXEC, 3);
	else
		*fd = fcntl((int)v, F_SETFD, flags | FD_CLOEXEC) < 0 ? -1 : (int)v;
	if (*fd < 0) {
		wpp_err("%s: --ready-fd %ld: %s", cmd, v, strerror(errno));
		return -1;
	}
	return 0;
}

void record_ready(int fd, const char *what)
{
	if (wpp_verbosity >= 2)
		wpp_info("record: recording: %s", what);
	record_ready_say(fd);
}

void record_ready_say(int fd)
{
	static const char line[] = "ready\n";

	if (fd < 0)
		return;
	/* A reader that went away must not end the recording: the SIGPIPE
	 * such a write raises is aimed at this thread, so it is blocked here
	 * and taken back before the mask is restored. */
	sigset_t pipe, old;
	struct timespec now = {0, 0};
	ssize_t n;
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, &old);
	do
		n = write(fd, line, sizeof(line) - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno == EPIPE)
		sigtimedwait(&pipe, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(fd);
}
