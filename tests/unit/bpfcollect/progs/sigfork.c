/* SPDX-License-Identifier: MIT */
/*
 * sigfork N: the main loop raises SIGUSR1 N times; the handler does some
 * instrumented work and forks a child that works on inside the handler and
 * _exits there, so the child's first and only batch is a signal-level one.
 * Deterministic: shm and BPF must decode alike (tests/e2e/bpf-lifecycle.sh).
 */
#include <signal.h>
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

static void on_usr1(int sig)
{
	(void)sig;
	work(50);
	pid_t child = fork();
	if (child == 0) {
		work(300);
		_exit(0);
	}
	if (child > 0)
		waitpid(child, NULL, 0);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10;
	long t = 0;

	signal(SIGUSR1, on_usr1);
	for (int i = 0; i < n; i++) {
		t += work(2000 + i);
		raise(SIGUSR1);
	}
	printf("%ld\n", t);
	return 0;
}
