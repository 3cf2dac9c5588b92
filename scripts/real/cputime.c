/* SPDX-License-Identifier: MIT */
/*
 * cputime — run a command and record the CPU time it and its waited-for
 * descendants used, without disturbing it: stdin, stdout, stderr and the
 * environment pass straight through and cputime exits with the command's
 * status (128 + signal number if it was killed).
 *
 * Usage: cputime OUTFILE -- PROGRAM [ARGS...]
 * OUTFILE gets one line: "USER_SECONDS SYS_SECONDS WALL_SECONDS".
 *
 * The benchmark nests it: cputime total -- wpptrace record ... -- cputime
 * prog -- ./program, so the inner file holds the traced program's own CPU
 * time and the outer one the program plus the collector; the collector's
 * share is the difference.  It is never instrumented itself.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	if (argc < 4 || strcmp(argv[2], "--") != 0) {
		fprintf(stderr, "usage: cputime OUTFILE -- PROGRAM [ARGS...]\n");
		return 2;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		perror("cputime: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		fprintf(stderr, "cputime: cannot run %s: %s\n", argv[3], strerror(errno));
		_exit(127);
	}
	int status;
	struct rusage ru;
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			perror("cputime: wait4");
			return 2;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	FILE *out = fopen(argv[1], "w");
	if (!out) {
		fprintf(stderr, "cputime: cannot write %s: %s\n", argv[1], strerror(errno));
		return 2;
	}
	double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	fprintf(out, "%.6f %.6f %.6f\n", seconds(ru.ru_utime), seconds(ru.ru_stime), wall);
	if (fclose(out) != 0)
		return 2;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
