/* SPDX-License-Identifier: MIT */
/* Threads: several workers each doing different deterministic work (chosen
 * by index), one of which starts a nested thread; main joins and prints. */
#include <pthread.h>
#include <stdio.h>

#include "corpus.h"

enum { NWORKERS = 4 };

struct job {
	int index;
	uint32_t seed;
	uint64_t result;
};

static uint64_t collatz_total(uint32_t from, uint32_t to)
{
	uint64_t total = 0;
	for (uint32_t n = from; n < to; n++) {
		uint64_t v = n;
		while (v != 1) {
			v = (v & 1) ? 3 * v + 1 : v / 2;
			total++;
		}
	}
	return total;
}

static uint64_t hash_stream(uint32_t seed, int count)
{
	uint32_t h = CORPUS_HASH_INIT;
	for (int i = 0; i < count; i++) {
		uint32_t r = corpus_next(&seed);
		if (r & 1)
			h = corpus_mix(h, r);
		else
			h ^= r >> 3;
	}
	return h;
}

static void *nested(void *arg)
{
	struct job *j = arg;
	j->result = hash_stream(j->seed ^ 0x5a5a, 200);
	return NULL;
}

static void *worker(void *arg)
{
	struct job *j = arg;
	switch (j->index % 4) {
	case 0:
		j->result = collatz_total(1, 120);
		break;
	case 1:
		j->result = hash_stream(j->seed, 600);
		break;
	case 2: {
		struct job inner = {.index = 100, .seed = j->seed};
		pthread_t t;
		if (pthread_create(&t, NULL, nested, &inner) != 0)
			return NULL;
		pthread_join(t, NULL);
		j->result = inner.result + 1;
		break;
	}
	default: {
		uint64_t s = 0;
		for (int a = 0; a < 30; a++)
			for (int b = a; b < 30; b++)
				if ((a * b) % 7 == 3)
					s += (uint64_t)(a + b);
		j->result = s;
		break;
	}
	}
	return NULL;
}

int main(void)
{
	uint32_t seed = corpus_seed();
	pthread_t tids[NWORKERS];
	struct job jobs[NWORKERS];
	for (int i = 0; i < NWORKERS; i++) {
		jobs[i] = (struct job){.index = i, .seed = seed + (uint32_t)i, .result = 0};
		if (pthread_create(&tids[i], NULL, worker, &jobs[i]) != 0) {
			printf("pthread_create failed\n");
			return 1;
		}
	}
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(tids[i], NULL);
	for (int i = 0; i < NWORKERS; i++)
		printf("worker %d: %llu\n", i, (unsigned long long)jobs[i].result);
	return 0;
}
