/* SPDX-License-Identifier: MIT */
/* Synthetic path traces; see tracegen.h for the model. */
#include "tracegen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NFUNC	    600
#define MAX_ITEMS   10
#define MAX_VARIANT 8
#define MAX_DEPTH   7
#define NENTRY	    40

enum item_kind { SEG, CALL, LOOP };

struct item {
	enum item_kind kind;
	uint32_t arg;		   /* SEG: path base; CALL: callee; LOOP: body function */
	uint32_t nvariant;	   /* SEG */
	uint32_t trip_lo, trip_hi; /* LOOP: trip count uniform in [lo, hi] */
	double cdf[MAX_VARIANT];   /* SEG: cumulative variant probabilities */
};

struct func {
	uint32_t nitems;
	struct item items[MAX_ITEMS];
};

struct gen {
	uint64_t rng;
	struct func *f;
	uint32_t *dense; /* raw path id -> dense id + 1 */
	uint32_t ndense;
	uint32_t *out;
	size_t n, pos;
};

static uint64_t next_rand(struct gen *g)
{
	/* splitmix64: small, fast, and fixed across platforms */
	uint64_t z = (g->rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double unit(struct gen *g)
{
	return (next_rand(g) >> 11) * (1.0 / 9007199254740992.0);
}

static uint32_t below(struct gen *g, uint32_t n)
{
	return (uint32_t)(next_rand(g) % n);
}

/* Zipf weights 1/r^s over n variants, as a CDF. */
static void zipf_cdf(double *cdf, uint32_t n, double s)
{
	double sum = 0;

	for (uint32_t r = 0; r < n; r++)
		sum += cdf[r] = 1.0 / pow(r + 1, s);
	double acc = 0;
	for (uint32_t r = 0; r < n; r++)
		cdf[r] = (acc += cdf[r] / sum);
}

static void make_program(struct gen *g)
{
	uint32_t path_base = 0;

	for (uint32_t fi = 0; fi < NFUNC; fi++) {
		struct func *f = &g->f[fi];
		f->nitems = 2 + below(g, MAX_ITEMS - 1);
		for (uint32_t k = 0; k < f->nitems; k++) {
			struct item *it = &f->items[k];
			uint32_t roll = below(g, 100);
			if (fi + 1 < NFUNC && roll < 22) {
				it->kind = CALL;
				it->arg =
				    fi + 1 + below(g, NFUNC - fi - 1 < 40 ? NFUNC - fi - 1 : 40);
			} else if (fi + 1 < NFUNC && roll < 34) {
				it->kind = LOOP;
				it->arg =
				    fi + 1 + below(g, NFUNC - fi - 1 < 20 ? NFUNC - fi - 1 : 20);
				if (below(g, 10) < 6) { /* counted loop */
					it->trip_lo = it->trip_hi = 2 + below(g, 30);
				} else { /* data dependent */
					it->trip_lo = 1 + below(g, 8);
					it->trip_hi = it->trip_lo + below(g, 24);
				}
			} else {
				it->kind = SEG;
				it->arg = path_base;
				/* Most segments are straight or nearly so. */
				uint32_t r = below(g, 100);
				it->nvariant = r < 45	? 1
					       : r < 80 ? 2
							: 2 + below(g, MAX_VARIANT - 1);
				path_base += it->nvariant;
				zipf_cdf(it->cdf, it->nvariant, 2.5 + 3.0 * unit(g));
			}
		}
	}
}

static void emit(struct gen *g, uint32_t raw)
{
	if (g->pos == g->n)
		return;
	if (!g->dense[raw])
		g->dense[raw] = ++g->ndense;
	g->out[g->pos++] = g->dense[raw] - 1;
}

static void run(struct gen *g, uint32_t fi, int depth)
{
	const struct func *f = &g->f[fi];

	for (uint32_t k = 0; k < f->nitems && g->pos < g->n; k++) {
		const struct item *it = &f->items[k];
		switch (it->kind) {
		case SEG: {
			double u = unit(g);
			uint32_t v = 0;
			while (v + 1 < it->nvariant && u > it->cdf[v])
				v++;
			emit(g, it->arg + v);
			break;
		}
		case CALL:
			if (depth < MAX_DEPTH)
				run(g, it->arg, depth + 1);
			break;
		case LOOP: {
			uint32_t trips = it->trip_lo + below(g, it->trip_hi - it->trip_lo + 1);
			for (uint32_t t = 0; t < trips && depth < MAX_DEPTH; t++)
				run(g, it->arg, depth + 1);
			break;
		}
		}
	}
}

long tracegen_make(uint64_t seed, uint32_t *out, size_t n)
{
	struct gen g = {.rng = seed, .out = out, .n = n};
	double entry_cdf[NENTRY];

	g.f = calloc(NFUNC, sizeof(*g.f));
	g.dense = calloc(NFUNC * MAX_ITEMS * MAX_VARIANT, sizeof(*g.dense));
	if (!g.f || !g.dense) {
		free(g.f);
		free(g.dense);
		return -1;
	}
	make_program(&g);
	zipf_cdf(entry_cdf, NENTRY, 1.2);
	while (g.pos < n) {
		double u = unit(&g);
		uint32_t e = 0;
		while (e + 1 < NENTRY && u > entry_cdf[e])
			e++;
		run(&g, e * 3, 0); /* entries spread over the low functions */
	}
	free(g.f);
	free(g.dense);
	return (long)g.ndense;
}

/* Nearly memoryless: the trace of tests/e2e/wpp-raw.sh's shape, where a
 * grammar finds little beyond the alphabet and an entropy coder's
 * modelling decides the size. */
long tracegen_random_loops(uint64_t seed, uint32_t *out, size_t n)
{
	struct gen g = {.rng = seed};
	static const uint32_t loops[5] = {0, 0, 1, 2, 3};
	size_t pos = 0;

#define EMIT(v)                                                                                    \
	do {                                                                                       \
		if (pos < n)                                                                       \
			out[pos++] = (v);                                                          \
	} while (0)
	while (pos < n) {
		uint32_t f = loops[next_rand(&g) % 5];
		uint32_t trips = 1 + (uint32_t)(next_rand(&g) % 40);
		for (uint32_t t = 0; t < trips; t++) {
			EMIT(10 * f + 1);
			EMIT(10 * f + (next_rand(&g) % 4 ? 2 : 3));
			if (next_rand(&g) % 10 == 0)
				EMIT(100 + (uint32_t)(next_rand(&g) % 31));
		}
		EMIT(10 * f + 9);
	}
#undef EMIT
	return 4 * 4 + 31; /* at most: 4 loops x 4 paths, 31 extras */
}
