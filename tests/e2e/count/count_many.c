/* SPDX-License-Identifier: MIT */
/*
 * count_many.c — N threads that count and then wait, for
 * scripts/bench-snapshot (what record's periodic read of a count build
 * costs per thread).  Each thread runs two small functions 20000 times
 * (about 20 paths a thread), then all wait; the main thread prints
 * "ready PID" and waits until killed.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile uint32_t acc;
static pthread_barrier_t counted;

__attribute__((noinline)) static void bits(uint32_t x)
{
	if (x & 1)
		acc += 1;
	if (x & 2)
		acc ^= x;
	if (x & 4)
		acc -= 3;
	if (x & 8)
		acc += 7;
}

__attribute__((noinline)) static void loop(uint32_t x)
{
	for (int b = 0; b < 8; b++)
		if (x >> b & 1)
			acc += (uint32_t)b;
}

static void *counter(void *arg)
{
	uint32_t s = (uint32_t)(uintptr_t)arg;
	for (int i = 0; i < 20000; i++) {
		s = s * 1664525u + 1013904223u;
		bits(s);
		loop(s >> 3);
	}
	pthread_barrier_wait(&counted);
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	pthread_t th;

	if (n < 1 || n > 4096)
		return 2;
	pthread_barrier_init(&counted, NULL, (unsigned)n + 1);
	for (int i = 0; i < n; i++)
		pthread_create(&th, NULL, counter, (void *)(uintptr_t)(i + 1));
	pthread_barrier_wait(&counted);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (;;)
		pause();
}
