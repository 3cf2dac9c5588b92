/* SPDX-License-Identifier: MIT */
/*
 * count_phases.c — a program with two known phases for the live-count test
 * (tests/e2e/count-mode.sh): phase A runs alpha() and shared() on the main
 * thread and on a helper thread that stays alive (its counts stay in its
 * own block, undrained); phase B runs beta(), beta_wide() (2^31 paths:
 * the runtime's hash), beta_sparse() (2^24 paths: a sparse array range)
 * and shared().  Argument:
 *   a   phase A only, then exit
 *   b   both phases, then exit
 *   p   both phases, pausing before B and before exit: prints "paused N
 *       PID" and waits for a line on stdin (a live reader looks meanwhile)
 *   q   as p, but the helper is let go and joined right after phase B,
 *       before the second pause (a thread that ends while attached)
 *   k   as p, and after the second pause the helper is let go and joined
 *       before a third ("paused 3 PID": a thread that ended since a
 *       snapshot, before the process is killed)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../corpus/branch_chain.h"

static volatile uint32_t acc;

__attribute__((noinline)) static void shared(uint32_t x)
{
	if (x % 5 == 0)
		acc += 1;
	else if (x % 5 == 1)
		acc ^= x;
	else
		acc -= 2;
}

__attribute__((noinline)) static void alpha(uint32_t x)
{
	if (x & 1)
		acc += 3;
	if (x & 2)
		acc ^= 7;
	shared(x);
}

__attribute__((noinline)) static void beta(uint32_t x)
{
	/* a loop the optimizer may unroll */
	for (int b = 0; b < 12; b++)
		if (x >> b & 1)
			acc += (uint32_t)b;
	shared(x);
}

/* 31 independent branches: 2^31 paths, more than an array range: the hash. */
/* external: the optimizer may not assume its callers leave the high bits
 * of x zero and drop their branches */
__attribute__((noinline)) void beta_wide(uint32_t x);
__attribute__((noinline)) void beta_wide(uint32_t x)
{
	BRANCH_CHAIN31(acc, x)
}

/* 2^24 paths: a sparse array range of 128 MiB, of which phase B writes a
 * few pages (a live reader reads only those, rt_count_pages.h). */
__attribute__((noinline)) static void beta_sparse(uint32_t x)
{
	BRANCH_CHAIN24(acc, x)
}

static uint32_t next(uint32_t s)
{
	return s * 1664525u + 1013904223u;
}

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int helper_done, helper_release;

static void *helper(void *arg)
{
	uint32_t s = 99;
	(void)arg;
	for (int i = 0; i < 3000; i++)
		alpha(s = next(s));
	pthread_mutex_lock(&lock);
	helper_done = 1;
	pthread_cond_broadcast(&cond);
	while (!helper_release)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return NULL;
}

static void release_helper(pthread_t th)
{
	pthread_mutex_lock(&lock);
	helper_release = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(th, NULL);
}

static void pause_here(int n)
{
	char line[16];
	printf("paused %d %d\n", n, (int)getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return;
}

int main(int argc, char **argv)
{
	char mode = argc > 1 ? argv[1][0] : 'b';
	uint32_t s = 7;
	pthread_t th;

	pthread_create(&th, NULL, helper, NULL);
	for (int i = 0; i < 5000; i++)
		alpha(s = next(s));
	pthread_mutex_lock(&lock);
	while (!helper_done)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	int pauses = mode == 'p' || mode == 'q' || mode == 'k';
	if (mode != 'a') {
		if (pauses)
			pause_here(1);
		for (int i = 0; i < 4000; i++) {
			s = next(s);
			beta(s >> 7);
			beta_wide(s >> 9);
			/* 6 bits of s on every fourth branch: 64 paths spread
			 * over the range */
			uint32_t y = 0;
			for (int b = 0; b < 6; b++)
				y |= ((s >> (11 + b)) & 1u) << (4 * b);
			beta_sparse(y);
		}
		if (mode == 'q')
			release_helper(th);
		if (pauses)
			pause_here(2);
	}
	if (mode != 'q')
		release_helper(th);
	if (mode == 'k')
		pause_here(3);
	printf("acc %u\n", (unsigned)acc);
	return 0;
}
