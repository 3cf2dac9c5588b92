/* SPDX-License-Identifier: MIT */
/* spin.c — for tests/e2e/dual-attach.sh: a frame that is in its loops
 * before a collector attaches and leaves them only after (SIGUSR1).  The
 * outer loop calls (nanosleep), so its back edge is no cut and the dual
 * build tests the flag at the call's path start; the inner loop's back
 * edge is a cut, but the loop ends by itself (a counted loop that calls
 * nothing) and has no test of its own: the frame switches at the call's
 * test and records the inner back edge's paths from then on. */
#include <signal.h>
#include <stdio.h>
#include <time.h>

static volatile sig_atomic_t stop;

static void on_usr1(int sig)
{
	(void)sig;
	stop = 1;
}

__attribute__((noinline)) static unsigned long spin(unsigned long x)
{
	struct timespec ms = {0, 100000};
	unsigned long n = 0;
	while (!stop) {
		for (int i = 0; i < 200; i++) {
			x = (x & 1) ? 3 * x + 1 : x / 2;
			if (x == 1)
				x = 27;
			n++;
		}
		nanosleep(&ms, NULL);
	}
	return n + x;
}

int main(void)
{
	signal(SIGUSR1, on_usr1);
	printf("ready\n");
	fflush(stdout);
	unsigned long n = spin(27);
	printf("done %d\n", n > 0);
	return 0;
}
