/* SPDX-License-Identifier: MIT */
/*
 * ppp_mix.c — preferential path counting in one deterministic program
 * (tests/e2e/ppp-mode.sh).  Its input picks which paths run, so a
 * recording of one input gives an interesting set that another input
 * leaves paths outside of (residual paths):
 *
 *   ./prog train   the inputs the set is recorded from
 *   ./prog field   the same and more: more bits reach many_paths, and
 *                  rare() takes branches train never takes
 *
 * many_paths has 2^31 Ball-Larus paths (the runtime's hash in counting
 * mode; preferential numbering in ppp mode: its interesting paths are
 * few), few_paths and rare a handful (Ball-Larus arrays unless every
 * function is forced to PPP).  Threads (one leaving through pthread_exit)
 * and a signal handler count too.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile uint32_t sink;
static volatile uint32_t mask = 0x0f0f; /* the bits of x many_paths sees (volatile:
					 * many_paths must not learn which) */

/* 31 independent branches, 2^31 paths (volatile: no selects), more than
 * an array range takes (2^29). */
static volatile uint32_t r;
/* external: the optimizer may not assume its callers leave high bits of x
 * zero and drop their branches */
__attribute__((noinline)) uint32_t many_paths(uint32_t x);
__attribute__((noinline)) uint32_t many_paths(uint32_t x)
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
	if (x & 16384)
		r += 53;
	if (x & 32768)
		r ^= 59;
	if (x & 65536)
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

__attribute__((noinline)) static uint32_t few_paths(uint32_t x)
{
	if (x % 3) {
		__asm__ volatile(""); /* a branch, not a select */
		return x * 7;
	}
	return x + 1;
}

static int field;

__attribute__((noinline)) static uint32_t rare(uint32_t x)
{
	if (field && x % 97 == 0)
		return x / 3; /* never in training */
	if (x % 5 == 0)
		return x + 2;
	return x;
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
		sink += many_paths((s >> 8) & mask) + few_paths(s >> 20) + rare(s >> 12);
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

int main(int argc, char **argv)
{
	pthread_t th[3];
	if (argc != 2 || (strcmp(argv[1], "train") && strcmp(argv[1], "field"))) {
		fprintf(stderr, "usage: ppp_mix train|field\n");
		return 2;
	}
	field = !strcmp(argv[1], "field");
	if (field)
		mask = 0x1f3f;
	signal(SIGUSR1, on_usr1);
	work(1, 30000);
	raise(SIGUSR1);
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	work(9, 3000);
	printf("done\n"); /* (sink: threads race on it) */
	return 0;
}
