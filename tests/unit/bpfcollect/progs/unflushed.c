/* SPDX-License-Identifier: MIT */
/*
 * unflushed MODE [N]: threads that end with recorded words the runtime never
 * published.  Over BPF these words exist only in the dying thread's memory;
 * the transport salvages them at exit or exec (bpf/wpp_transport.bpf.c),
 * shm salvages them from shared memory.  Every mode is deterministic, so
 * both must decode alike (tests/e2e/bpf-lifecycle.sh).
 *
 *   threads N        N workers do their work and block; main exits, and
 *                    exit_group kills them with their buffers unpublished
 *   handler-exec N   a chain of N + 1 images: each raises SIGUSR1, whose
 *                    handler works and execs the next image (the interrupted
 *                    level 0 is never published by the runtime)
 *   handler-exit     the handler works and _exits
 *   nested-exit      a handler interrupted by a second one, which _exits
 *                    (two interrupted levels)
 *   thread-exec      workers block; another thread execs the image again
 *                    (with "threads 0") once main blocks too, which kills
 *                    them all
 *   kill             workers block; main works and SIGKILLs the process
 */
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long work(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += i % 3 == 0 ? i : i % 5 == 0 ? -i : 1;
	return s;
}

static volatile long sink;
/*
 * Workers must have recorded everything they will ever record before main
 * goes on to end the process.  A path ends at every call, so no call may
 * follow a worker's "ready" and no polling loop may wait for it (a varying
 * number of iterations).  Each worker posts `ready` while holding `lock`
 * and releases `lock` only by blocking for good in pthread_cond_wait; main
 * takes n posts and then `lock`, which it gets only once every worker is
 * blocked.
 */
static sem_t ready;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;
static char next_arg[16];

static void *worker(void *arg)
{
	sink += work(700 + 100 * (long)(intptr_t)arg);
	pthread_mutex_lock(&lock);
	sem_post(&ready);
	pthread_cond_wait(&never, &lock);
	return NULL;
}

/* Start n workers and wait until each has done its work. */
static void start_workers(int n)
{
	sem_init(&ready, 0, 0);
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, worker, (void *)(intptr_t)i) != 0) {
			perror("pthread_create");
			exit(2);
		}
	}
	for (int i = 0; i < n; i++)
		sem_wait(&ready);
	pthread_mutex_lock(&lock);
}

static void exec_self(const char *mode, const char *arg)
{
	execl("/proc/self/exe", "unflushed", mode, arg, (char *)NULL);
	perror("exec");
	_exit(2);
}

static void on_usr1_exec(int sig)
{
	(void)sig;
	sink += work(77);
	exec_self("handler-exec", next_arg);
}

static void on_usr1_exit(int sig)
{
	(void)sig;
	sink += work(88);
	_exit(3);
}

static void on_usr2_nested(int sig)
{
	(void)sig;
	sink += work(66);
	raise(SIGUSR1); /* handled by on_usr1_exit, nested */
	sink += work(1);
}

/* Execs once main is blocked for good: main releases `lock` only by
 * waiting in pthread_cond_wait, after its last path, so the exec cannot
 * cut that path short on one run and not on another. */
static void *execer(void *arg)
{
	(void)arg;
	sink += work(400);
	pthread_mutex_lock(&lock);
	exec_self("threads", "0");
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "threads";
	int n = argc > 2 ? atoi(argv[2]) : 2;

	sink += work(500 + n);
	if (strcmp(mode, "threads") == 0) {
		start_workers(n);
		printf("threads %d\n", n);
		fflush(stdout);
		exit(0);
	} else if (strcmp(mode, "handler-exec") == 0) {
		printf("image %d\n", n);
		fflush(stdout);
		if (n > 0) {
			snprintf(next_arg, sizeof(next_arg), "%d", n - 1);
			signal(SIGUSR1, on_usr1_exec);
			raise(SIGUSR1);
		}
		return 0;
	} else if (strcmp(mode, "handler-exit") == 0) {
		signal(SIGUSR1, on_usr1_exit);
		raise(SIGUSR1);
	} else if (strcmp(mode, "nested-exit") == 0) {
		signal(SIGUSR1, on_usr1_exit);
		signal(SIGUSR2, on_usr2_nested);
		raise(SIGUSR2);
	} else if (strcmp(mode, "thread-exec") == 0) {
		pthread_t t;
		start_workers(n);
		pthread_create(&t, NULL, execer, NULL);
		pthread_cond_wait(&never, &lock);
	} else if (strcmp(mode, "kill") == 0) {
		start_workers(n);
		sink += work(300);
		raise(SIGKILL);
	}
	fprintf(stderr, "unflushed: unknown mode %s or it returned\n", mode);
	return 2;
}
