/* Loops for runs (WPP_CTRL_REPEAT): one path repeated, paths alternating
 * with periods 2 and 3, runs of changing length, a loop left in the middle
 * (break, goto, return), nested loops (the whole nest is one region: inner
 * and outer back edges count against the same last word), a chain walk
 * whose usual step repeats one path around a nested compare loop (zlib's
 * longest_match in miniature), a triple nest left from its innermost loop
 * by a return, loops run zero to three times, a loop with a call (it
 * records every iteration), loops that call on some trips only (an
 * instrumented callee with runs of its own, a library call that calls back
 * into instrumented code), and loops of a wide function (their runs repeat
 * two-word records).  Deterministic. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned sink;
static unsigned data[4096];

__attribute__((noinline)) static unsigned same_path(unsigned n)
{
	unsigned s = 0;
	for (unsigned i = 0; i < n; i++)
		s += data[i & 4095] * 3u;
	return s;
}

__attribute__((noinline)) static unsigned alternate(unsigned n, unsigned period)
{
	unsigned s = 0;
	for (unsigned i = 0; i < n; i++) {
		if (i % period == 0)
			s += data[i & 4095];
		else
			s ^= i;
		sink = s;
	}
	return s;
}

/* Runs of length 1, 2, 3 ... of two paths in turn. */
__attribute__((noinline)) static unsigned changing_runs(unsigned n)
{
	unsigned s = 0, run = 1, left = 1, side = 0;
	for (unsigned i = 0; i < n; i++) {
		if (side)
			s += i;
		else
			s ^= i * 7u;
		sink = s;
		if (--left == 0) {
			side ^= 1;
			left = ++run;
		}
	}
	return s;
}

__attribute__((noinline)) static int find_first(const unsigned *a, unsigned n, unsigned key)
{
	for (unsigned i = 0; i < n; i++)
		if (a[i] == key)
			return (int)i; /* leaves the loop: the exit edge writes the count */
	return -1;
}

__attribute__((noinline)) static unsigned exit_middle(unsigned n, unsigned stop)
{
	unsigned s = 0, i = 0;
	for (;;) {
		if (i >= n)
			break;
		if (data[i] == stop)
			goto found;
		s += data[i];
		sink = s;
		i++;
	}
	return s;
found:
	return s + 1000000u;
}

__attribute__((noinline)) static unsigned nested(unsigned rows, unsigned cols)
{
	unsigned s = 0;
	for (unsigned r = 0; r < rows; r++) {
		for (unsigned c = 0; c < cols; c++) {
			s += data[(r * cols + c) & 4095];
			sink = s;
		}
		if (r & 1)
			s ^= r;
	}
	return s;
}

__attribute__((noinline)) static unsigned chain_walk(unsigned cur, unsigned steps)
{
	unsigned best = 0;
	do {
		if (data[cur & 4095] % 8 != 0)
			continue; /* quick reject: the repeated path */
		unsigned len = 0;
		while (len < 20 && data[(cur + len) & 4095] <= data[(cur + len + 1) & 4095] + 16)
			len++;
		if (len > best) {
			best = len;
			if (len >= 19)
				break;
		}
	} while ((cur = cur * 5 + 1) && --steps);
	return best;
}

__attribute__((noinline)) static int find_in_cube(unsigned n, unsigned key)
{
	for (unsigned a = 0; a < n; a++)
		for (unsigned b = 0; b < n; b++)
			for (unsigned c = 0; c < n; c++)
				if (data[(a * n * n + b * n + c) & 4095] == key)
					return (int)(a * 10000 + b * 100 + c);
	return -1;
}

__attribute__((noinline)) static unsigned with_call(unsigned n)
{
	unsigned s = 0;
	for (unsigned i = 0; i < n; i++)
		s += (unsigned)abs((int)data[i & 4095] - 3);
	return s;
}

__attribute__((noinline)) static unsigned callee_loop(unsigned k)
{
	unsigned s = 0;
	for (unsigned i = 0; i < k; i++)
		s += data[(k + i) & 4095];
	return s;
}

/* Calls on some trips (runs.h, "Calls"): the edge into the call writes
 * the pending count before the callee records; after the call the loop
 * counts again from nothing.  phase moves the call to the first trip. */
__attribute__((noinline)) static unsigned rare_call(unsigned n, unsigned phase)
{
	unsigned s = 0;
	for (unsigned i = 0; i < n; i++) {
		if (((i + phase) & 15) == 15)
			s += callee_loop(i & 63);
		else if (i % 100 < 50)
			s += data[i & 4095];
		else
			s ^= i;
		sink = s;
	}
	return s;
}

static int by_value(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}

/* A library call on some trips that calls back into instrumented code. */
__attribute__((noinline)) static unsigned rare_qsort(unsigned n)
{
	unsigned s = 0, v[6];
	for (unsigned i = 0; i < n; i++) {
		if ((i & 63) == 0) {
			for (unsigned k = 0; k < 6; k++)
				v[k] = data[(i + 7 * k) & 4095];
			qsort(v, 6, sizeof(v[0]), by_value);
			s += v[0];
		}
		s += data[i & 4095] * 7u;
		sink = s;
	}
	return s;
}

/* 48 independent branches ahead of the loops: more than 2^40 paths, so
 * the function is wide and each record is a [ctrl, id] pair. */
#define WB(k)                                                                                      \
	if (v & ((uint64_t)1 << (k))) {                                                            \
		__asm__ volatile("" ::: "memory");                                                 \
		s++;                                                                               \
	}
#define WB8(k) WB(k) WB(k + 1) WB(k + 2) WB(k + 3) WB(k + 4) WB(k + 5) WB(k + 6) WB(k + 7)

__attribute__((noinline)) static unsigned wide_loops(uint64_t v, unsigned n)
{
	unsigned s = 0;
	WB8(0) WB8(8) WB8(16) WB8(24) WB8(32) WB8(40)
	for (unsigned i = 0; i < n; i++) /* one path */
		s += data[i & 4095] * 5u;
	for (unsigned i = 0; i < n; i++) { /* period 3 */
		if (i % 3 == 0)
			s += data[i & 4095];
		else
			s ^= i;
		sink = s;
	}
	return s;
}

int main(void)
{
	unsigned s = 0;
	for (unsigned i = 0; i < 4096; i++)
		data[i] = (i * 2654435761u) >> 27;
	data[700] = 99;
	for (unsigned n = 0; n < 4; n++) /* zero, one, two, three iterations */
		s +=
		    same_path(n) + alternate(n, 2) + nested(n, n) + (unsigned)find_in_cube(n, 1000);
	s += same_path(20000);
	s += alternate(3000, 2) + alternate(3000, 3);
	s += changing_runs(2000);
	s += (unsigned)find_first(data, 4096, 99) + (unsigned)find_first(data, 16, 1000);
	s += exit_middle(4096, 99) + exit_middle(500, 99);
	s += nested(40, 50);
	s += chain_walk(1, 5000) + chain_walk(7, 3);
	s += (unsigned)find_in_cube(9, 99) + (unsigned)find_in_cube(5, 1000);
	s += with_call(300);
	s += rare_call(1000, 0) + rare_call(40, 1) + rare_call(3, 0) + rare_qsort(500);
	s += wide_loops(0x123456789abcull, 3000) + wide_loops(~(uint64_t)0, 2);
	printf("%u\n", s);
	return 0;
}
