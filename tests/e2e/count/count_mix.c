/* SPDX-License-Identifier: MIT */
/*
 * count_mix.c — counting mode's runtime paths in one deterministic program
 * (tests/e2e/count-mode.sh): a function with 2^24 paths (a sparse array
 * range), one with 2^31 (counted through the runtime's hash) and one with
 * few (a small array range), run by the main
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

/* Independent branches (volatile stores: the optimizer cannot turn them
 * into selects).  many_paths: 24 of them, 2^24 Ball-Larus paths, an array
 * range of 128 MiB of which a run touches a few pages (the drain and the
 * live snapshot read only those, rt_count_pages.h).  huge_paths: 31, 2^31
 * paths, more than an array range takes: the runtime's hash. */
static volatile uint32_t r;
__attribute__((noinline)) static uint32_t many_paths(uint32_t x)
{
	r = 0;
	if (x & UINT32_C(1))
		r += 3;
	if (x & UINT32_C(2))
		r ^= 5;
	if (x & UINT32_C(4))
		r += 7;
	if (x & UINT32_C(8))
		r ^= 11;
	if (x & UINT32_C(16))
		r += 13;
	if (x & UINT32_C(32))
		r ^= 17;
	if (x & UINT32_C(64))
		r += 19;
	if (x & UINT32_C(128))
		r ^= 23;
	if (x & UINT32_C(256))
		r += 29;
	if (x & UINT32_C(512))
		r ^= 31;
	if (x & UINT32_C(1024))
		r += 37;
	if (x & UINT32_C(2048))
		r ^= 41;
	if (x & UINT32_C(4096))
		r += 43;
	if (x & UINT32_C(8192))
		r ^= 47;
	if (x & UINT32_C(16384))
		r += 53;
	if (x & UINT32_C(32768))
		r ^= 59;
	if (x & UINT32_C(65536))
		r += 61;
	if (x & UINT32_C(131072))
		r ^= 67;
	if (x & UINT32_C(262144))
		r += 71;
	if (x & UINT32_C(524288))
		r ^= 73;
	if (x & UINT32_C(1048576))
		r += 79;
	if (x & UINT32_C(2097152))
		r ^= 83;
	if (x & UINT32_C(4194304))
		r += 89;
	if (x & UINT32_C(8388608))
		r ^= 97;
	return r;
}

/* external: the optimizer may not assume its callers leave bits of x zero
 * and drop their branches */
__attribute__((noinline)) uint32_t huge_paths(uint32_t x);
__attribute__((noinline)) uint32_t huge_paths(uint32_t x)
{
	r = 0;
	if (x & UINT32_C(1))
		r += 3;
	if (x & UINT32_C(2))
		r ^= 5;
	if (x & UINT32_C(4))
		r += 7;
	if (x & UINT32_C(8))
		r ^= 11;
	if (x & UINT32_C(16))
		r += 13;
	if (x & UINT32_C(32))
		r ^= 17;
	if (x & UINT32_C(64))
		r += 19;
	if (x & UINT32_C(128))
		r ^= 23;
	if (x & UINT32_C(256))
		r += 29;
	if (x & UINT32_C(512))
		r ^= 31;
	if (x & UINT32_C(1024))
		r += 37;
	if (x & UINT32_C(2048))
		r ^= 41;
	if (x & UINT32_C(4096))
		r += 43;
	if (x & UINT32_C(8192))
		r ^= 47;
	if (x & UINT32_C(16384))
		r += 53;
	if (x & UINT32_C(32768))
		r ^= 59;
	if (x & UINT32_C(65536))
		r += 61;
	if (x & UINT32_C(131072))
		r ^= 67;
	if (x & UINT32_C(262144))
		r += 71;
	if (x & UINT32_C(524288))
		r ^= 73;
	if (x & UINT32_C(1048576))
		r += 79;
	if (x & UINT32_C(2097152))
		r ^= 83;
	if (x & UINT32_C(4194304))
		r += 89;
	if (x & UINT32_C(8388608))
		r ^= 97;
	if (x & UINT32_C(16777216))
		r += 101;
	if (x & UINT32_C(33554432))
		r ^= 103;
	if (x & UINT32_C(67108864))
		r += 107;
	if (x & UINT32_C(134217728))
		r ^= 109;
	if (x & UINT32_C(268435456))
		r += 113;
	if (x & UINT32_C(536870912))
		r ^= 127;
	if (x & UINT32_C(1073741824))
		r += 131;
	return r;
}

/* 8 bits of s, every third branch of many_paths: 256 paths spread over
 * its whole range (few pages touched); huge_paths gets 12 bits. */
static uint32_t spread(uint32_t s)
{
	uint32_t x = 0;
	for (int i = 0; i < 8; i++)
		x |= ((s >> i) & 1u) << (3 * i);
	return x;
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
		sink += many_paths(spread(s >> 8)) + huge_paths((s >> 20) << 19) + few_paths(s >> 20);
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
