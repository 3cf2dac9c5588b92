/* SPDX-License-Identifier: MIT */
/*
 * top_phases.c — the program `wpptrace top` watches in tests/e2e/top-trace.sh:
 * one deterministic phase whose hot path is known, then checks of its own.
 *
 * The phase runs on a worker thread that ends with it (so everything it
 * traced is published when it is joined): phase() calls step() PHASE_N
 * times (its two paths 1 and 6 times in 7: two volatile stores, no select)
 * and, every 1000th time, spin(), whose call-free loop runs one path about
 * SPIN_N times (fewer if unrolled; REPEAT words, if the pass counts runs
 * there): spin's loop path is the phase's hottest, ten times the next.
 * Meanwhile the main thread calls counted() (tests/e2e/top/top_counted.c,
 * built with -fwpp-mode=count: a program mixing both modes) COUNTED_N
 * times; its counts stay in the main thread's memory until exit.
 *
 * Argument:
 *   r   run the phase at once, check, exit (to be recorded, or found by -a)
 *   w   print "ready PID", wait for a line on stdin, run the phase, print
 *       "phase done", wait for another line, then run the phase again
 *       (untraced by then) and check
 *   s   a steady load until killed, for scripts/bench-top: every 10 ms,
 *       STEADY_N calls of step() and counted() (the argument after s
 *       scales it)
 * The check: the sums equal their values computed in closed form; exit 0
 * and "ok" if so, 1 otherwise.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define PHASE_N	  280000u
#define SPIN_N	  40000u
#define COUNTED_N 50000u
#define STEADY_N  1000u

void counted(uint32_t x); /* top_counted.c */
extern volatile uint64_t counted_acc;

/* External and not inlined, so that their names and paths are the same in
 * every build (no specialised clones). */
void step(uint32_t i);
void spin(uint32_t n);
void *phase(void *arg);

static volatile uint64_t acc, acc7;

__attribute__((noinline)) void step(uint32_t i)
{
	if (i % 7 == 0)
		acc7 += 3;
	else
		acc += 1;
}

__attribute__((noinline)) void spin(uint32_t n)
{
	for (uint32_t j = 0; j < n; j++)
		acc += 2;
}

__attribute__((noinline)) void *phase(void *arg)
{
	(void)arg;
	for (uint32_t i = 0; i < PHASE_N; i++) {
		step(i);
		if (i % 1000 == 0)
			spin(SPIN_N);
	}
	return NULL;
}

static void run_phase(void)
{
	pthread_t th;
	if (pthread_create(&th, NULL, phase, NULL) != 0) {
		perror("pthread_create");
		_exit(2);
	}
	for (uint32_t i = 0; i < COUNTED_N; i++)
		counted(i);
	pthread_join(th, NULL);
}

static void wait_line(void)
{
	char line[32];
	if (!fgets(line, sizeof(line), stdin))
		return;
}

/* acc and acc7 after `phases` phases, in closed form. */
static int as_expected(unsigned phases)
{
	uint64_t sevens = (PHASE_N + 6) / 7, spins = (PHASE_N + 999) / 1000;
	return acc == phases * ((PHASE_N - sevens) + 2ull * SPIN_N * spins) &&
	       acc7 == phases * 3 * sevens;
}

int main(int argc, char **argv)
{
	char mode = argc > 1 ? argv[1][0] : 'r';
	unsigned phases = 1;

	if (mode == 's') {
		uint32_t n = STEADY_N * (argc > 2 ? (uint32_t)atoi(argv[2]) : 1u);
		for (;;) {
			for (uint32_t i = 0; i < n; i++) {
				step(i);
				counted(i);
			}
			usleep(10000);
		}
	}
	if (mode == 'w') {
		printf("ready %d\n", (int)getpid());
		fflush(stdout);
		wait_line();
	}
	run_phase();
	if (mode == 'w') {
		printf("phase done\n");
		fflush(stdout);
		wait_line();
		run_phase();
		phases = 2;
	}
	int ok = as_expected(phases) && counted_acc == phases * (uint64_t)COUNTED_N * 2;
	printf("%s acc %llu\n", ok ? "ok" : "WRONG", (unsigned long long)acc);
	return ok ? 0 : 1;
}
