/* One path repeated argv[1] times (more than 2^32 for the REPEAT split):
 * the loop body is an add and an empty asm that keeps it a real loop. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static uint64_t spin(uint64_t n)
{
	uint64_t acc = 0;
	for (uint64_t i = 0; i < n; i++) {
		acc += i;
		__asm__ volatile("" : "+r"(acc));
	}
	return acc;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 0) : 10;
	printf("%llu\n", (unsigned long long)spin(n));
	return 0;
}
