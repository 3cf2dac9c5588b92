/* SPDX-License-Identifier: MIT */
/* fork: the child does different deterministic work (and forks a grandchild
 * of its own), exits with a status the parent reports; the parent keeps
 * working after the fork. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corpus.h"

static uint32_t parent_work(uint32_t st, int rounds)
{
	uint32_t h = CORPUS_HASH_INIT;
	for (int i = 0; i < rounds; i++) {
		uint32_t r = corpus_next(&st);
		h = (r % 3 == 0) ? corpus_mix(h, r) : h + (r >> 7);
	}
	return h;
}

static int child_work(int n)
{
	int primes = 0;
	for (int v = 2; v < n; v++) {
		int prime = 1;
		for (int d = 2; d * d <= v; d++)
			if (v % d == 0) {
				prime = 0;
				break;
			}
		primes += prime;
	}
	return primes;
}

static int wait_status(pid_t pid)
{
	int status;
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int main(void)
{
	uint32_t st = corpus_seed();
	printf("parent before: %08x\n", parent_work(st, 100));
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		printf("fork failed\n");
		return 1;
	}
	if (pid == 0) {
		int primes = child_work(600);
		pid_t g = fork();
		if (g == 0) {
			printf("grandchild: %d\n", child_work(200));
			fflush(stdout);
			exit(5);
		}
		int gs = wait_status(g);
		printf("child: primes=%d grandchild_status=%d\n", primes, gs);
		fflush(stdout);
		exit(7);
	}
	uint32_t after = parent_work(st ^ 1, 300);
	int cs = wait_status(pid);
	printf("parent after: %08x child_status=%d\n", after, cs);
	return 0;
}
