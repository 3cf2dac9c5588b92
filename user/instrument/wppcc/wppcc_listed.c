/* SPDX-License-Identifier: MIT */
/*
 * wppcc_listed.c — run clang with a report of the listed names compiled,
 * then warn about the ones no unit had (see wppcc_listed.h).  The report
 * is a memfd: nothing on disk another user could plant or read, inherited
 * by clang and its cc1 processes, appended to by each unit in one write.
 */
#include "instrument/wppcc/wppcc_listed.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "instrument/listed_seen.h"

/* More than any build's units times listed names could write. */
#define MAX_REPORT_BYTES ((off_t)256 << 20)

static pid_t child;

/* A stop request for wppcc is one for the compile it runs. */
static void forward(int sig)
{
	if (child > 0)
		kill(child, sig);
}

/* The report's bytes (NUL-terminated, malloc'd), or NULL. */
static char *read_report(int fd)
{
	struct stat st;
	char *buf;
	size_t got = 0;

	if (fstat(fd, &st) < 0 || st.st_size > MAX_REPORT_BYTES ||
	    !(buf = malloc((size_t)st.st_size + 1)))
		return NULL;
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, buf + got, (size_t)st.st_size - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = 0;
	return buf;
}

/* One line: how many list lines named functions no unit compiled, and
 * the first of them by file and line. */
static void warn_unseen(const struct wpp_interesting *set, const char *report)
{
	unsigned char *seen = calloc(set->nfns + 1, 1);
	const struct wpp_interesting_fn *first = NULL;
	uint32_t first_k = 0, units = 0;
	uint64_t lines = 0;

	if (!seen)
		return;
	for (const char *p = report; *p;) {
		size_t len = strcspn(p, "\n");
		char name[4096];
		if (len < sizeof(name)) {
			memcpy(name, p, len);
			name[len] = 0;
			const struct wpp_interesting_fn *l = wpp_interesting_listed(set, name);
			if (strcmp(name, WPP_LISTED_SEEN_UNIT) == 0)
				units++;
			else if (l)
				seen[l - set->fns] = 1;
		}
		p += len + (p[len] == '\n');
	}
	for (size_t i = set->nrecorded; units && i < set->nfns; i++) {
		const struct wpp_interesting_fn *f = &set->fns[i];
		if (seen[i])
			continue;
		lines += f->nlines;
		for (uint32_t k = 0; k < f->nids; k++)
			if (!first || f->list_files[k] < first->list_files[first_k] ||
			    (f->list_files[k] == first->list_files[first_k] &&
			     f->list_lines[k] < first->list_lines[first_k])) {
				first = f;
				first_k = k;
			}
	}
	if (first)
		fprintf(stderr,
			"wppcc: warning: --wpp-interesting: %llu listed line%s name%s no function "
			"this wppcc run compiled (first: %s, line %u of %s): misspelt, inlined "
			"away, or compiled by another run?\n",
			(unsigned long long)lines, lines == 1 ? "" : "s", lines == 1 ? "s" : "",
			first->name, first->list_lines[first_k],
			set->files[first->list_files[first_k]]);
	free(seen);
}

int wppcc_listed_run(const char *clang, char **argv, const struct wpp_interesting *set)
{
	struct sigaction fwd = {.sa_handler = forward, .sa_flags = SA_RESTART};
	char num[16];
	int status, fd = memfd_create("wppcc-listed", 0); /* inherited by clang */

	if (fd < 0)
		return -1;
	snprintf(num, sizeof(num), "%d", fd);
	if (fcntl(fd, F_SETFL, O_APPEND) < 0 || setenv(WPP_LISTED_SEEN_FD_ENV, num, 1)) {
		close(fd);
		unsetenv(WPP_LISTED_SEEN_FD_ENV);
		return -1;
	}
	fflush(NULL);
	if ((child = fork()) < 0) {
		close(fd);
		unsetenv(WPP_LISTED_SEEN_FD_ENV);
		return -1;
	}
	if (child == 0) {
		execv(clang, argv);
		fprintf(stderr, "wppcc: cannot run clang: %s\n", strerror(errno));
		_exit(1);
	}
	/* as system(3): the terminal's ^C and ^\ reach clang too */
	signal(SIGINT, SIG_IGN);
	signal(SIGQUIT, SIG_IGN);
	sigaction(SIGTERM, &fwd, NULL);
	sigaction(SIGHUP, &fwd, NULL);
	while (waitpid(child, &status, 0) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "wppcc: waiting for clang: %s\n", strerror(errno));
			return 1;
		}
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	if (WEXITSTATUS(status) == 0) {
		char *report = read_report(fd);
		if (report)
			warn_unseen(set, report);
		free(report);
	}
	close(fd);
	return WEXITSTATUS(status);
}
