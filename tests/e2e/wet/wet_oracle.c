/* SPDX-License-Identifier: MIT */
/*
 * wet_oracle — the independent oracle of tests/e2e/wet-record.sh: chosen
 * loads, stores and external calls (each alone on a line tagged WET:NAME)
 * whose addresses and values the program itself writes down, per thread,
 * in execution order, to DIR/oracle.<n>.txt ("tid T" first, then
 * "NAME ADDR VALUE" lines, ADDR "-" for a call).  The values of a wet
 * recording's `wet dump` for those lines must be these.
 *
 * Volatile accesses pin one load or store per source line at any -O.  The
 * values cover narrow signed ints (sign extension), pointers, doubles (by
 * their bits) and 64-bit values whose magnitude needs the escape word.  A
 * signal handler, run by raise() in the middle of the loop, stores too;
 * two threads run the same loop on data of their own.
 *
 * usage: wet_oracle DIR [ROUNDS]
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 64

struct lane {
	int index;
	int rounds;
	const char *dir;
	volatile int ints[N];
	volatile signed char chars[N];
	volatile double dbls[N];
	volatile uint64_t bigs[N];
	int *volatile ptrs[N];
	FILE *log;
};

static struct lane *signal_lane; /* the main thread's, for the handler */
static volatile int handled[N];

static void on_signal(int sig)
{
	struct lane *l = signal_lane;
	int k = sig % N;
	handled[k] = sig + 1000; /* WET:sig_store */
	fprintf(l->log, "sig_store %p %d\n", (void *)&handled[k], sig + 1000);
}

static void run(struct lane *l)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/oracle.%d.txt", l->dir, l->index);
	l->log = fopen(path, "w");
	if (!l->log) {
		perror(path);
		exit(2);
	}
	fprintf(l->log, "tid %ld\n", (long)gettid());
	srand(7 + (unsigned)l->index);
	for (int i = 0; i < N; i++) {
		l->ints[i] = (i * 37 + l->index * 11) % 101 - 50;
		l->chars[i] = (signed char)(i * 5 - 100);
		l->dbls[i] = i * 0.25 - 3.5;
		l->bigs[i] = (UINT64_C(1) << 63) | ((uint64_t)i << 40) | (uint64_t)l->index;
		l->ptrs[i] = (int *)&l->ints[(i * 7) % N];
	}
	for (int r = 0; r < l->rounds; r++) {
		for (int i = 0; i < N; i += 3) {
			int k = (i * 13 + r) % N;
			int x = l->ints[k]; /* WET:load_int */
			fprintf(l->log, "load_int %p %d\n", (void *)&l->ints[k], x);
			signed char c = l->chars[k]; /* WET:load_char */
			fprintf(l->log, "load_char %p %d\n", (void *)&l->chars[k], c);
			double dv = x * 0.5 + c;
			l->dbls[k] = dv; /* WET:store_double */
			int64_t bits;
			memcpy(&bits, &dv, sizeof(bits));
			fprintf(l->log, "store_double %p %" PRId64 "\n", (void *)&l->dbls[k], bits);
			uint64_t big = l->bigs[k] + (uint64_t)r; /* WET:load_big */
			fprintf(l->log, "load_big %p %" PRId64 "\n", (void *)&l->bigs[k],
				(int64_t)(big - (uint64_t)r));
			int *p = l->ptrs[k]; /* WET:load_ptr */
			fprintf(l->log, "load_ptr %p %" PRId64 "\n", (void *)&l->ptrs[k],
				(int64_t)(intptr_t)p);
			int rv = rand(); /* WET:call_rand */
			fprintf(l->log, "call_rand - %d\n", rv);
			l->ints[(k + 1) % N] = x + rv % 7; /* WET:store_int */
			fprintf(l->log, "store_int %p %d\n", (void *)&l->ints[(k + 1) % N],
				x + rv % 7);
			if (l->index == 0 && i % 15 == 0)
				raise(i & 1 ? SIGUSR2 : SIGUSR1);
		}
	}
	fclose(l->log);
}

static void *thread_main(void *arg)
{
	run(arg);
	return NULL;
}

int main(int argc, char **argv)
{
	static struct lane lanes[3];
	pthread_t t[2];
	int rounds = argc > 2 ? atoi(argv[2]) : 4;

	if (argc < 2) {
		fprintf(stderr, "usage: wet_oracle DIR [ROUNDS]\n");
		return 2;
	}
	for (int i = 0; i < 3; i++) {
		lanes[i].index = i;
		lanes[i].rounds = rounds;
		lanes[i].dir = argv[1];
	}
	signal_lane = &lanes[0];
	signal(SIGUSR1, on_signal);
	signal(SIGUSR2, on_signal);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, thread_main, &lanes[1 + i]) != 0)
			return 2;
	run(&lanes[0]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	return 0;
}
