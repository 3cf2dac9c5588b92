/* SPDX-License-Identifier: MIT */
/* multi.c — several processes for tests/e2e/report-multi.sh: the parent
 * forks NCHILD children that each run work(k) for a different k, and one
 * more child that execs argv[1] (another traced binary); then it works
 * itself.  Deterministic: every count depends only on the arguments. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define NCHILD 3

__attribute__((noinline)) static long work(int k)
{
	long s = 0;
	for (int i = 0; i < 100 * k; i++)
		s += i % 3 ? i : -i;
	return s;
}

int main(int argc, char **argv)
{
	for (int c = 1; c <= NCHILD; c++) {
		pid_t p = fork();
		if (p == 0) {
			printf("child %d: %ld\n", c, work(c));
			return 0;
		}
		waitpid(p, NULL, 0);
	}
	if (argc > 1) {
		pid_t p = fork();
		if (p == 0) {
			execl(argv[1], argv[1], "7", (char *)NULL);
			_exit(127);
		}
		waitpid(p, NULL, 0);
	}
	printf("parent: %ld\n", work(5));
	return 0;
}
