/* SPDX-License-Identifier: MIT */
/*
 * count_mix.c — counting mode's runtime paths in one deterministic program
 * (tests/e2e/count-mode.sh): a function with 16384 paths (counted through
 * the runtime's hash) and one with few (an array range), run by the main
 * thread, by threads that return or leave through pthread_exit from
 * instrumented code, by a signal handler (raise: synchronous, so the run
 * is the same every time), and by a fork child whose inherited counts
 * must not be counted twice.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile uint32_t sink;

/* 14 independent branches: 16384 Ball-Larus paths (volatile stores: the
 * optimizer cannot turn them into selects). */
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
	return r;
}

__attribute__((noinline)) static uint32_t few_paths(uint32_t x)
{
	return x % 3 ? x * 7 : x + 1;
}

static uint32_t step(uint32_t s)
{
	return s * 1103515245u + 12345u;
}

static void work(uint32_t seed, int n)
{
	uint32_t s = seed;
	for (int i = 0; i < n; i++) {
		s = step(s);
		sink += many_paths(s >> 8) + few_paths(s >> 20);
	}
}

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

int main(void)
{
	pthread_t th[3];
	signal(SIGUSR1, on_usr1);
	work(1, 30000);
	raise(SIGUSR1);
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	fflush(stdout);
	pid_t child = fork();
	if (child == 0) {
		work(5, 7000); /* on top of the parent's counts, inherited */
		raise(SIGUSR1);
		exit(0);
	}
	int status;
	waitpid(child, &status, 0);
	work(9, 3000);
	printf("done %u\n", (unsigned)(WIFEXITED(status) ? WEXITSTATUS(status) : 99));
	return 0;
}
