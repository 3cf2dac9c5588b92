/* SPDX-License-Identifier: MIT */
/* vfork: children that share the parent's memory until they exec or _exit.
 * Each vfork child runs instrumented code of its own before leaving (so its
 * paths must land in its own stream, never in the parent's), then:
 *   1. execs another instrumented corpus program (`recursion`);
 *   2. _exits with a status computed by that code;
 *   3. fails to exec (no such file) and _exits with 127;
 * and finally posix_spawn (glibc: clone(CLONE_VM|CLONE_VFORK), no
 * instrumented code in the child) runs this program again, as "spawned".  The parent keeps
 * working between the children, so a vfork that disturbed its cursor would
 * show in its own stream. */
#include <libgen.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corpus.h"

extern char **environ;

/* noinline: the child's paths are its own function's, not main's. */
__attribute__((noinline)) static int child_steps(uint32_t st, int n)
{
	int odd = 0;
	for (int i = 0; i < n; i++)
		if (corpus_next(&st) & 1)
			odd++;
	return odd;
}

static uint32_t parent_work(uint32_t st, int rounds)
{
	uint32_t h = CORPUS_HASH_INIT;
	for (int i = 0; i < rounds; i++) {
		uint32_t r = corpus_next(&st);
		h = (r % 5 < 2) ? corpus_mix(h, r) : h ^ (r >> 3);
	}
	return h;
}

static int wait_status(pid_t pid)
{
	int status;
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* vfork a child that runs child_steps(n), then execs path (or _exits with
 * that count when path is NULL, or 127 when the exec fails). */
static int run_vfork_child(const char *path, char *const argv[], int n)
{
	uint32_t st = corpus_seed() + (uint32_t)n;
	pid_t pid;

	fflush(stdout);
	pid = vfork();
	if (pid == 0) {
		int odd = child_steps(st, n);
		if (path)
			execv(path, argv);
		_exit(path ? 127 : odd);
	}
	return wait_status(pid);
}

int main(int argc, char **argv_in)
{
	char self[PATH_MAX], target[PATH_MAX + 16];
	ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
	uint32_t st = corpus_seed();

	if (argc > 1) {
		printf("%s: %08x\n", argv_in[1], parent_work(st ^ 3, 20));
		return 3;
	}
	if (len < 0) {
		printf("readlink failed\n");
		return 1;
	}
	self[len] = 0;
	char *spawn_argv[] = {argv_in[0], "spawned", NULL};
	snprintf(target, sizeof target, "%s/recursion", dirname(strdup(self)));
	char arg[] = "7";
	char *argv[] = {"recursion", arg, NULL};

	printf("before: %08x\n", parent_work(st, 40));
	printf("vfork+exec: status %d\n", run_vfork_child(target, argv, 30));
	printf("between: %08x\n", parent_work(st ^ 7, 25));
	printf("vfork+_exit: status %d\n", run_vfork_child(NULL, argv, 50));
	printf("vfork+failed exec: status %d\n",
	       run_vfork_child("/nonexistent/wpp-corpus", argv, 20));
	fflush(stdout);
	pid_t pid;
	int err = posix_spawn(&pid, self, NULL, NULL, spawn_argv, environ);
	printf("posix_spawn: %s, status %d\n", err ? "failed" : "ok", err ? -1 : wait_status(pid));
	printf("after: %08x\n", parent_work(st ^ 9, 30));
	return 0;
}
