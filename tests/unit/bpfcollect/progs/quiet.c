/* SPDX-License-Identifier: MIT */
/*
 * quiet — a tracing process that records a few hundred paths a second,
 * far fewer than fill the runtime's 8192-word batch in a short recording,
 * for `record -p` at detach (tests/e2e/bpf-detach.sh).  It writes its pid
 * to argv[1], then reads commands from stdin: "run N" calls tick() N times,
 * 2 ms apart, and prints "done N" (the independent count the test compares
 * the recording with); end of input returns from main.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile unsigned state = 1;

/* One path per call, two paths in turn. */
static __attribute__((noinline)) void tick(unsigned i)
{
	if (i & 1)
		state = state * 3 + 1;
	else
		state = state / 2 + 7;
}

int main(int argc, char **argv)
{
	char line[64];
	if (argc < 2)
		return 2;
	FILE *f = fopen(argv[1], "w");
	if (!f)
		return 2;
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	while (fgets(line, sizeof(line), stdin)) {
		unsigned n;
		if (sscanf(line, "run %u", &n) != 1)
			continue;
		for (unsigned i = 0; i < n; i++) {
			tick(i);
			usleep(2000);
		}
		printf("done %u\n", n);
		fflush(stdout);
	}
	return 0;
}
