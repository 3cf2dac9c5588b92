/* SPDX-License-Identifier: MIT */
/*
 * mtwork — deterministic multi-threaded work for the BPF end-to-end tests:
 * NTHREADS threads, thread i runs ROUNDS rounds of a branchy integer loop
 * seeded by i, so each thread's block sequence depends on nothing but i and
 * ROUNDS (threads are told apart by content, whatever their tids).  Every
 * function has few paths, so each path is one trace word.
 *   mtwork NTHREADS ROUNDS [PAUSE_MS]
 * With PAUSE_MS, every thread stops half way and waits until the main thread
 * has slept that long (a tracer attaching meanwhile sees the second half
 * only); the work, and so the trace, is the same.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static unsigned step(unsigned x)
{
	if (x & 1)
		return 3 * x + 1;
	if (x % 3 == 0)
		return x / 3 + 5;
	return x / 2;
}

static unsigned long rounds;
static int pausing;
static pthread_barrier_t half_way;

static void *worker(void *arg)
{
	unsigned x = 7u + (unsigned)(unsigned long)arg * 1000u, sum = 0;
	for (unsigned long r = 0; r < rounds; r++) {
		if (pausing && r == rounds / 2)
			pthread_barrier_wait(&half_way);
		x = step(x) + (unsigned)r;
		sum += x & 0xff;
	}
	return (void *)(unsigned long)sum;
}

int main(int argc, char **argv)
{
	if (argc != 3 && argc != 4)
		return 2;
	int n = atoi(argv[1]);
	rounds = strtoul(argv[2], NULL, 10);
	long pause_ms = argc == 4 ? atol(argv[3]) : 0;
	if (n < 1 || n > 64 || rounds < 2 || pause_ms < 0)
		return 2;
	pthread_t th[64];
	unsigned long total = 0;
	pausing = pause_ms > 0;
	if (pausing)
		pthread_barrier_init(&half_way, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, worker, (void *)(unsigned long)i);
	if (pausing) {
		struct timespec ts = {pause_ms / 1000, pause_ms % 1000 * 1000000};
		nanosleep(&ts, NULL);
		pthread_barrier_wait(&half_way);
	}
	for (int i = 0; i < n; i++) {
		void *r;
		pthread_join(th[i], &r);
		total += (unsigned long)r;
	}
	printf("%lu\n", total);
	return 0;
}
