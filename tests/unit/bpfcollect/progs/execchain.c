/* SPDX-License-Identifier: MIT */
/*
 * execchain N: some instrumented work, then exec itself with N-1, down to
 * 0.  Every fifth image forks a child that continues the chain (and waits
 * for it) instead of exec'ing.  Images exec again faster than a collector
 * delivers the previous exec, so several execs of one pid are pending at
 * once (tests/e2e/bpf-lifecycle.sh).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static long work(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i % 3 == 0 ? i : i % 5 == 0 ? -i : 1;
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 20;
	long r = work(200 + n);
	char next[16];

	if (n <= 0) {
		printf("%ld\n", r);
		return 0;
	}
	snprintf(next, sizeof(next), "%d", n - 1);
	if (n % 5 == 0) {
		pid_t child = fork();
		int status;
		if (child == 0) {
			execl("/proc/self/exe", argv[0], next, (char *)NULL);
			_exit(127);
		}
		if (child < 0 || waitpid(child, &status, 0) != child)
			return 126;
		return WIFEXITED(status) ? WEXITSTATUS(status) : 125;
	}
	execl("/proc/self/exe", argv[0], next, (char *)NULL);
	return 127;
}
