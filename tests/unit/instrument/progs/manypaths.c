/* Functions with more than 2^40 and more than 2^63 acyclic paths: a chain
 * of independent branches the optimizer cannot turn into selects. */
#include <stdio.h>
#include <stdint.h>
#include <unistd.h>

#define B(k) if (v & ((uint64_t)1 << ((k) % 64))) { __asm__ volatile("" ::: "memory"); n++; }
#define B8(k) B(k) B(k + 1) B(k + 2) B(k + 3) B(k + 4) B(k + 5) B(k + 6) B(k + 7)

int wide48(uint64_t v)
{
	int n = 0;
	B8(0) B8(8) B8(16) B8(24) B8(32) B8(40)
	return n;
}

int trunc72(uint64_t v)
{
	int n = 0;
	B8(0) B8(8) B8(16) B8(24) B8(32) B8(40) B8(48) B8(56) B8(64)
	return n;
}

int main(void)
{
	uint64_t vals[] = {0, ~(uint64_t)0, 0x123456789abcdefull, 0xf0f0f0f0f0f0f0f0ull, 5};
	int t = 0;
	for (int i = 0; i < 5; i++)
		t += wide48(vals[i]) + trunc72(vals[i]);
	printf("%d\n", t);
	fflush(stdout);
	_exit(t == 0); /* words reach the runtime only via __wpp_flush_all */
}
