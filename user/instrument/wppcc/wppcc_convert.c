/* SPDX-License-Identifier: MIT */
/* wppcc_convert.c — resolve, convert and check a file option (see wppcc_convert.h). */
#include "instrument/wppcc/wppcc_convert.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/exit_status.h"
#include "instrument/stable_hash.h"
#include "wpp/wpp_file.h"

static int is_recording(const char *path)
{
	char magic[sizeof(WPP_FILE_MAGIC) - 1];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, magic, sizeof(magic));
	close(fd);
	return n == (ssize_t)sizeof(magic) && memcmp(magic, WPP_FILE_MAGIC, sizeof(magic)) == 0;
}

/* $XDG_CACHE_HOME/wpptrace or $HOME/.cache/wpptrace, created 0700. */
static int cache_dir(const char *command, char *out, size_t outlen, char *why, size_t whylen)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char base[PATH_MAX];

	if (xdg && *xdg == '/')
		snprintf(base, sizeof(base), "%s", xdg);
	else if (home && *home == '/')
		snprintf(base, sizeof(base), "%s/.cache", home);
	else {
		snprintf(why, whylen,
			 "no cache directory for converting a recording (set HOME, or convert it "
			 "with `wpptrace %s FILE -o OUT`)",
			 command);
		return -1;
	}
	if ((mkdir(base, 0700) && errno != EEXIST) ||
	    (size_t)snprintf(out, outlen, "%s/wpptrace", base) >= outlen ||
	    (mkdir(out, 0700) && errno != EEXIST)) {
		snprintf(why, whylen, "cannot create the cache directory %s/wpptrace: %s", base,
			 strerror(errno));
		return -1;
	}
	return 0;
}

/* Run bindir/wpptrace COMMAND -q rec -o out; 0 on success. */
static int convert(const char *command, const char *rec, const char *bindir, const char *out,
		   char *why, size_t whylen)
{
	char tool[PATH_MAX + 16];
	int status;

	snprintf(tool, sizeof(tool), "%s/wpptrace", bindir);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "cannot run %s: %s", tool, strerror(errno));
		return -1;
	}
	if (pid == 0) {
		char *argv[] = {tool, (char *)command, "-q", (char *)rec, "-o", (char *)out, NULL};
		execv(tool, argv);
		fprintf(stderr, "wppcc: cannot run %s: %s\n", tool, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			snprintf(why, whylen, "waiting for %s: %s", tool, strerror(errno));
			return -1;
		}
	/* A cut recording converts (what is intact), but a build should not
	 * rest on part of a run unasked; the warning above says only that the
	 * file ends early, so say why that stops the build and the way on. */
	if (WIFEXITED(status) && WEXITSTATUS(status) == WPP_EXIT_INCOMPLETE) {
		snprintf(why, whylen,
			 "%s ends early: wppcc uses only whole recordings (`wpptrace %s %s -o "
			 "FILE` converts what is intact, and wppcc takes FILE)",
			 rec, command, rec);
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(why, whylen, "`wpptrace %s %s` failed (its message is above)", command,
			 rec);
		return -1;
	}
	return 0;
}

int wppcc_convert_resolve(const struct wppcc_converter *k, const char *given, const char *bindir,
			  char *out, size_t outlen, char *why, size_t whylen)
{
	char real[PATH_MAX], dir[PATH_MAX], detail[256];
	struct stat st;

	if (!realpath(given, real) || stat(real, &st) < 0) {
		snprintf(why, whylen, "%s %s: %s", k->option, given, strerror(errno));
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s %s: not a regular file", k->option, given);
		return -1;
	}
	if (!is_recording(real)) {
		snprintf(out, outlen, "%s", real);
	} else {
		uint64_t h = wpp_hash_str(WPP_HASH_INIT, real, strlen(real));
		h = wpp_hash_u64(h, (uint64_t)st.st_dev);
		h = wpp_hash_u64(h, (uint64_t)st.st_ino);
		h = wpp_hash_u64(h, (uint64_t)st.st_size);
		h = wpp_hash_u64(h, (uint64_t)st.st_mtim.tv_sec);
		h = wpp_hash_u64(h, (uint64_t)st.st_mtim.tv_nsec);
		if (cache_dir(k->command, dir, sizeof(dir), why, whylen))
			return -1;
		if ((size_t)snprintf(out, outlen, "%s/%s-%016" PRIx64 ".txt", dir, k->command,
				     wpp_hash_final(h)) >= outlen) {
			snprintf(why, whylen, "%s: cache path too long", k->option);
			return -1;
		}
		/* a cached conversion that does not parse is made again */
		if (access(out, R_OK) == 0 && k->check(out, detail, sizeof(detail)) == 0)
			return 0;
		if (convert(k->command, real, bindir, out, why, whylen))
			return -1;
	}
	if (k->check(out, detail, sizeof(detail))) {
		snprintf(why, whylen, "%s %s: %s", k->option, given, detail);
		return -1;
	}
	return 0;
}
