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
 * The many-path functions are chains of branches (branch_chain.h) adding
 * to the volatile r.  The including file defines
 * work(seed, n), the loop each caller runs; mix_run() is the run's shape.
 */
#ifndef WPP_TESTS_MIX_PATHS_H
#define WPP_TESTS_MIX_PATHS_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#include "branch_chain.h"

static volatile uint32_t sink;
static volatile uint32_t r;

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
