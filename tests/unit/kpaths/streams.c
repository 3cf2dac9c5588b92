/* SPDX-License-Identifier: MIT */
/*
 * streams.c — test stream generators (see streams.h).
 */
#include "streams.h"

uint64_t test_rand(uint64_t *s)
{
	/* splitmix64 */
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

size_t stream_random(uint64_t seed, struct ev *out, size_t n, unsigned nfids, unsigned nvalues,
		     unsigned mark_pct)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t r = test_rand(&seed);
		if (r % 100 < mark_pct)
			out[i] = (struct ev){.mark = 1};
		else
			out[i] = (struct ev){.fid = 1 + (uint32_t)((r >> 8) % nfids),
					     .value = (r >> 24) % nvalues};
	}
	return n;
}

static size_t emit(struct ev *out, size_t i, size_t n, uint32_t fid, uint64_t value)
{
	if (i < n)
		out[i++] = (struct ev){.fid = fid, .value = value};
	return i;
}

size_t stream_loopy(uint64_t seed, struct ev *out, size_t n)
{
	size_t i = 0;
	/* A big id now and then, as wide functions produce. */
	uint64_t wide = (test_rand(&seed) | (UINT64_C(1) << 62)) & ~(UINT64_C(1) << 63);

	while (i < n) {
		uint64_t r = test_rand(&seed);
		uint32_t fn = 1 + (uint32_t)(r % 3);
		unsigned trips = 1 + (unsigned)((r >> 8) % 12);

		i = emit(out, i, n, fn, 0); /* entry path */
		for (unsigned t = 0; t < trips && i < n; t++) {
			uint64_t b = test_rand(&seed) % 100;
			/* Dominant body, a rare alternative, sometimes a call. */
			i = emit(out, i, n, fn, b < 80 ? 1 : b < 95 ? 2 : 3);
			if (b >= 90) {
				i = emit(out, i, n, 7, b & 1);
				i = emit(out, i, n, fn, 4); /* resume after the call */
			}
			if (b == 42)
				i = emit(out, i, n, 9, wide);
		}
		i = emit(out, i, n, fn, 5); /* exit path */
		if (i < n && test_rand(&seed) % 50 == 0)
			out[i++] = (struct ev){.mark = 1};
	}
	return i;
}
