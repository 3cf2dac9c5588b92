/* SPDX-License-Identifier: MIT */
/*
 * work.c — the traced program of the hardening tests (tests/e2e/harden-*):
 * a deterministic workload whose output depends on every step it takes
 * (a checksum over ROUNDS rounds of Collatz steps), so a run that lost or
 * changed work prints something else.  It also says whether it runs with
 * privileges it did not start with (setuid), since the setuid test must
 * know that the kernel really gave it AT_SECURE.  Exit status 7, so a
 * status taken from somewhere else (a crash, a wrapper) shows.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <unistd.h>

static unsigned step(unsigned x)
{
	return (x & 1) ? 3 * x + 1 : x / 2;
}

int main(int argc, char **argv)
{
	unsigned long rounds = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	unsigned long sum = 0;

	for (unsigned long n = 0; n < rounds; n++)
		for (unsigned i = 0; i < 1000; i++) {
			unsigned x = (unsigned)(n * 1000 + i) | 1;
			for (int k = 0; k < 20; k++)
				x = step(x);
			sum = sum * 31 + x;
		}
	printf("checksum %lx after %lu rounds\n", sum, rounds);
	printf("secure %lu, euid %s ruid\n", getauxval(AT_SECURE),
	       geteuid() == getuid() ? "==" : "!=");
	return 7;
}
