/* SPDX-License-Identifier: MIT */
/* faults.c — touches argv[1] fresh pages in touch_a, then argv[2] in touch_b,
 * then argv[3] (default 0) in touch_c, whose last iteration writes its page
 * from a block of its own (transparent huge pages off, so one page = one
 * fault): the exact attribution test of tests/e2e/counters-attribution.sh. */
#include <stdlib.h>
#include <sys/mman.h>
#define PAGE 4096L
__attribute__((noinline)) void touch_a(volatile char *p, long n) { for (long i = 0; i < n; i++) p[i * PAGE] = 1; }
__attribute__((noinline)) void touch_b(volatile char *p, long n) { for (long i = 0; i < n; i++) p[i * PAGE] = 2; }
__attribute__((noinline)) void touch_c(volatile char *p, long n) {
	for (long i = 0; i < n; i++) {
		if (i == n - 1) /* a wider store: the branches stay two blocks */
			*(volatile short *)&p[i * PAGE] = 4;
		else
			p[i * PAGE] = 3;
	}
}
int main(int argc, char **argv) {
	long na = argc > 1 ? atol(argv[1]) : 300, nb = argc > 2 ? atol(argv[2]) : 700;
	long nc = argc > 3 ? atol(argv[3]) : 0;
	char *r = mmap(NULL, (na + nb + nc) * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r == MAP_FAILED) return 1;
	madvise(r, (na + nb + nc) * PAGE, MADV_NOHUGEPAGE);
	touch_a(r, na);
	touch_b(r + na * PAGE, nb);
	touch_c(r + (na + nb) * PAGE, nc);
	return 0;
}
