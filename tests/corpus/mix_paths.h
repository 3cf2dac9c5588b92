/* SPDX-License-Identifier: MIT */
/*
 * mix_paths.h — what the two "mix" programs share: tests/e2e/count/count_mix.c
 * (counting mode's runtime paths) and tests/e2e/ppp/ppp_mix.c (preferential
 * path counting).  Both need functions with more Ball-Larus paths than a
 * counting array range holds, fed by a deterministic stream, and run by
 * every kind of caller the runtime must count for: the main thread, a
 * signal handler (raise: synchronous, so every run is the same) and three
 * threads, one of them leaving through pthread_exit from instrumented code.
 *
 * MIX_CHAIN24(x) and MIX_CHAIN31(x) are chains of independent branches on
 * bits of x (2^24 and 2^31 paths); a branch stores to the volatile r, so
 * the optimizer cannot turn it into a select.  The including file defines
 * work(seed, n), the loop each caller runs; mix_run() is the run's shape.
 */
#ifndef WPP_TESTS_MIX_PATHS_H
#define WPP_TESTS_MIX_PATHS_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

static volatile uint32_t sink;
static volatile uint32_t r;

#define MIX_IF(x, b)                                                                               \
	if ((x) & (UINT32_C(1) << (b)))                                                            \
		r ^= (b) + 3;
#define MIX_IF4(x, b)  MIX_IF(x, b) MIX_IF(x, (b) + 1) MIX_IF(x, (b) + 2) MIX_IF(x, (b) + 3)
#define MIX_IF8(x, b)  MIX_IF4(x, b) MIX_IF4(x, (b) + 4)
#define MIX_CHAIN24(x) MIX_IF8(x, 0) MIX_IF8(x, 8) MIX_IF8(x, 16)
#define MIX_CHAIN31(x) MIX_CHAIN24(x) MIX_IF4(x, 24) MIX_IF(x, 28) MIX_IF(x, 29) MIX_IF(x, 30)

static uint32_t step(uint32_t s)
{
	return s * 1103515245u + 12345u;
}

static void work(uint32_t seed, int n); /* the including program's */

static void on_usr1(int sig)
{
	(void)sig;
	work(77, 500);
}

static void *worker(void *arg)
{
	int index = (int)(intptr_t)arg;
	work(1000 + (uint32_t)index, 20000 + 1000 * index);
	if (index == 1)
		pthread_exit(NULL); /* from instrumented code */
	return NULL;
}

/* The main thread's work, the signal handler's, then three threads'. */
static void mix_run(void)
{
	pthread_t th[3];
	signal(SIGUSR1, on_usr1);
	work(1, 30000);
	raise(SIGUSR1);
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
}

#endif
