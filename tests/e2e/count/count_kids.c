/* SPDX-License-Identifier: MIT */
/*
 * count_kids.c — processes of a count build that end badly while record
 * runs them, for tests/e2e/count-kill.sh; each mode has an oracle twin that
 * ends normally at the same point (a paths build run in it records the
 * same paths with the same counts):
 *   f  counts in gamma(), forks a child that counts in delta() on its main
 *      thread and on a second thread, prints "paused 1 CHILD" and waits for
 *      a line on stdin (the test kills it there); the parent waits for the
 *      child, counts in gamma() again and exits
 *   F  the same, but the child exits where f's child waits
 *   e  counts in gamma(), then execs itself as "e2", which counts in
 *      delta(), prints "paused 1 PID" and waits (killed there)
 *   E  the same, but the new image ("E2") exits where e2 waits
 *   a  counts in gamma(), prints "paused 1 PID", waits, then calls abort()
 *      (which drains: its counts come once, from its stream)
 *   G  counts in gamma() as a does, and exits
 *   v  counts in gamma(), vforks a child that prints "paused 1 CHILD" and
 *      waits (killed there: it shares its parent's memory, so its parent's
 *      counters are what a reader of its memory finds); the parent then
 *      counts in gamma() again and exits
 *   V  the same, but the child _exits at once
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile uint32_t acc;

__attribute__((noinline)) static void gamma_(uint32_t x)
{
	if (x & 1)
		acc += 3;
	else if (x & 4)
		acc ^= x;
	if (x & 8)
		acc -= 1;
}

__attribute__((noinline)) static void delta(uint32_t x)
{
	for (int b = 0; b < 6; b++)
		if (x >> b & 1)
			acc += (uint32_t)b;
	if (x % 3 == 0)
		acc ^= 5;
}

static uint32_t next(uint32_t s)
{
	return s * 1664525u + 1013904223u;
}

static void run(void (*fn)(uint32_t), uint32_t seed, int n)
{
	for (int i = 0; i < n; i++)
		fn(seed = next(seed));
}

static void *second(void *arg)
{
	(void)arg;
	run(delta, 11, 2500);
	return NULL;
}

/* The child's work: two threads, both done counting when it pauses. */
static void child_counts(void)
{
	pthread_t th;
	pthread_create(&th, NULL, second, NULL);
	run(delta, 5, 4000);
	pthread_join(th, NULL);
}

static void pause_here(void)
{
	char line[16];
	printf("paused 1 %d\n", (int)getpid());
	fflush(stdout);
	if (!fgets(line, sizeof(line), stdin))
		return;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "F";

	if (!strcmp(mode, "e2") || !strcmp(mode, "E2")) {
		run(delta, 5, 4000);
		if (mode[0] == 'e')
			pause_here();
		printf("acc %u\n", (unsigned)acc);
		return 0;
	}
	run(gamma_, 7, 3000);
	if (mode[0] == 'a') {
		pause_here();
		abort();
	}
	if (mode[0] == 'G')
		return 0;
	if (mode[0] == 'e' || mode[0] == 'E') {
		fflush(stdout);
		execl("/proc/self/exe", argv[0], mode[0] == 'e' ? "e2" : "E2", (char *)NULL);
		perror("exec");
		return 1;
	}
	if (mode[0] == 'v' || mode[0] == 'V') {
		char line[64];
		pid_t kid = vfork();
		if (kid == 0) {
			/* only system calls in a vfork child */
			if (mode[0] == 'v') {
				int n = snprintf(line, sizeof(line), "paused 1 %d\n", (int)getpid());
				if (write(1, line, (size_t)n) == n && read(0, line, sizeof(line)) < 0)
					_exit(1);
			}
			_exit(0);
		}
		waitpid(kid, NULL, 0);
		run(gamma_, 8, 2000);
		printf("acc %u\n", (unsigned)acc);
		return 0;
	}
	pid_t kid = fork();
	if (kid == 0) {
		child_counts();
		if (mode[0] == 'f')
			pause_here();
		exit(0);
	}
	int status = 0;
	waitpid(kid, &status, 0);
	run(gamma_, 8, 2000);
	printf("child %s, acc %u\n", WIFSIGNALED(status) ? "killed" : "exited", (unsigned)acc);
	return 0;
}
