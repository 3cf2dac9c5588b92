/* SPDX-License-Identifier: MIT */
/*
 * forker — an instrumented process that, told to (SIGUSR1), starts N
 * threads one after another, each ending at once, and then exits: N thread
 * start and N + 1 exit records in a burst, more than the collector's
 * lifecycle ring holds while the collector is held up, so that some of
 * them, its own exit among them, are lost.  `record -p` must end all the
 * same once it is gone.
 *   forker PIDFILE N
 * It writes its pid to PIDFILE once it waits for the signal.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

static void *nothing(void *arg)
{
	return arg;
}

static __attribute__((noinline)) int spawn_one(void)
{
	pthread_t t;
	return pthread_create(&t, NULL, nothing, NULL) || pthread_join(t, NULL);
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	long n = atol(argv[2]);
	sigset_t usr1, old;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, &old);
	signal(SIGUSR1, on_usr1);
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 1;
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	while (!go)
		sigsuspend(&old);
	int failed = 0;
	for (long i = 0; i < n; i++)
		failed += spawn_one();
	return failed != 0;
}
