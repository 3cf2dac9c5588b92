/* SPDX-License-Identifier: MIT */
/*
 * mix_paths.h — what the two "mix" programs share: tests/e2e/count/count_mix.c
 * (counting mode's runtime paths) and tests/e2e/ppp/ppp_mix.c (preferential
 * path counting).  Both need a function with more Ball-Larus paths than a
 * counting array holds, fed by a deterministic stream, and run by every
 * kind of caller the runtime must count for: the main thread, a signal
 * handler (raise: synchronous, so every run is the same) and three threads,
 * one of them leaving through pthread_exit from instrumented code.
 *
 * The including file defines MIX_BRANCHES (14: 16384 paths, or 17: 2^17)
 * before including this, and defines work(seed, n), the loop each caller
 * runs; mix_run() is that run shape.
 */
#ifndef WPP_TESTS_MIX_PATHS_H
#define WPP_TESTS_MIX_PATHS_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

#if !defined(MIX_BRANCHES) || (MIX_BRANCHES != 14 && MIX_BRANCHES != 17)
#error "define MIX_BRANCHES as 14 or 17 before including mix_paths.h"
#endif

static volatile uint32_t sink;

/* MIX_BRANCHES independent branches: 2^MIX_BRANCHES paths (volatile
 * stores: the optimizer cannot turn them into selects). */
static volatile uint32_t r;
__attribute__((noinline)) static uint32_t many_paths(uint32_t x)
{
	r = 0;
	if (x & 1)
		r += 3;
	if (x & 2)
		r ^= 5;
	if (x & 4)
		r += 7;
	if (x & 8)
		r ^= 11;
	if (x & 16)
		r += 13;
	if (x & 32)
		r ^= 17;
	if (x & 64)
		r += 19;
	if (x & 128)
		r ^= 23;
	if (x & 256)
		r += 29;
	if (x & 512)
		r ^= 31;
	if (x & 1024)
		r += 37;
	if (x & 2048)
		r ^= 41;
	if (x & 4096)
		r += 43;
	if (x & 8192)
		r ^= 47;
#if MIX_BRANCHES == 17
	if (x & 16384)
		r += 53;
	if (x & 32768)
		r ^= 59;
	if (x & 65536)
		r += 61;
#endif
	return r;
}

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
