/* SPDX-License-Identifier: MIT */
/* costlines.c — per-line costs from sampled ips (tests/e2e/report-costlines.sh):
 * touch() writes argv[1] fresh pages on one line, argv[2] on another and
 * argv[3] through an inlined helper called from a third line (transparent
 * huge pages off: one page, one fault), so page-faults sampled at period 1
 * must land exactly NA, NB and NC on those lines of touch (inlined code is
 * charged to the line that called it). */
#include <stdlib.h>
#include <sys/mman.h>

#define PAGE 4096L

static inline __attribute__((always_inline)) void poke(volatile char *q)
{
	*q = 3;
}

__attribute__((noinline)) static void touch(volatile char *p, long na, long nb, long nc)
{
	for (long i = 0; i < na; i++)
		p[i * PAGE] = 1; /* LINE_A */
	for (long i = 0; i < nb; i++)
		p[(na + i) * PAGE] = 2; /* LINE_B */
	for (long i = 0; i < nc; i++)
		poke(p + (na + nb + i) * PAGE); /* LINE_C */
}

int main(int argc, char **argv)
{
	long na = argc > 1 ? atol(argv[1]) : 300, nb = argc > 2 ? atol(argv[2]) : 700;
	long nc = argc > 3 ? atol(argv[3]) : 50;
	char *r = mmap(NULL, (na + nb + nc) * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (r == MAP_FAILED)
		return 1;
	madvise(r, (na + nb + nc) * PAGE, MADV_NOHUGEPAGE);
	touch(r, na, nb, nc);
	return 0;
}
