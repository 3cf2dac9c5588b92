/* SPDX-License-Identifier: MIT */
/*
 * test_ppp.c — preferential path numbering (user/instrument/ppp.h) against
 * the paper's worked example and against brute force on random DAGs:
 *   - Figure 3 of the PPP paper: Ball-Larus ids 0, 1, 5 for sacdt, sact,
 *     sbct become 0, 1, 2, with the paper's edge weights, and the two
 *     uninteresting paths alias the ids the paper says they do;
 *   - random DAGs (parallel edges included) and random interesting sets:
 *     every path enumerated by depth-first search, its preferential id the
 *     sum of the weights along it; the interesting ids are distinct, fill
 *     [0, interval) with the smallest at 0 and the largest at interval - 1,
 *     agree with what wpp_ppp_number reports, and the same ids come out of
 *     increments placed on the Ball-Larus register's chords;
 *     each of the fixed ways (reverse, edge orders, fill, compaction and
 *     their mixes) and four with shuffled edge orders is checked so on its
 *     own (compaction's moves are checked by the same oracle), and
 *     wpp_ppp_number's pick: never a larger interval than any fixed way;
 *   - a DAG where the paper's way leaves a hole and the others close it;
 *   - every path interesting: the numbering is Ball-Larus itself (Γ = 1);
 *   - one path: interval 1; no path: interval 0; bad ids: an error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "instrument/dag.h"
#include "instrument/numbering.h"
#include "instrument/placement.h"
#include "instrument/ppp.h"
#include "wpp/meta_format.h"

#define TEST_RNG_SEED UINT64_C(0x2545f4914f6cdd1d)
#include "test_rng.h"

#define MAXN	 24
#define MAXE	 96
#define MAXPATHS 4096
#define BIG	 (UINT64_C(1) << 62)

/* A DAG over nblocks blocks, ENTRY = nblocks, EXIT = nblocks + 1. */
static void dag_init(struct wpp_dag *d, uint32_t nblocks)
{
	memset(d, 0, sizeof(*d));
	d->nblocks = nblocks;
	d->edges = calloc(MAXE, sizeof(*d->edges));
	d->cap = MAXE;
	assert_non_null(d->edges);
}

static void dag_edge(struct wpp_dag *d, uint32_t src, uint32_t dst)
{
	assert_true(d->nedges < MAXE);
	d->edges[d->nedges++] =
	    (struct wpp_dag_edge){.src = src, .dst = dst, .kind = WPP_EDGE_REAL};
}

/* Every ENTRY->EXIT path as its edges (depth-first, brute force). */
struct paths {
	uint32_t n;
	uint32_t len[MAXPATHS];
	uint32_t edge[MAXPATHS][MAXN + 2];
};

static void enumerate(const struct wpp_dag *d, uint32_t v, uint32_t *stack, uint32_t depth,
		      struct paths *ps)
{
	if (v == WPP_DAG_EXIT(d->nblocks)) {
		assert_true(ps->n < MAXPATHS);
		ps->len[ps->n] = depth;
		memcpy(ps->edge[ps->n], stack, depth * sizeof(uint32_t));
		ps->n++;
		return;
	}
	for (uint32_t e = 0; e < d->nedges; e++)
		if (d->edges[e].src == v) {
			stack[depth] = e;
			enumerate(d, d->edges[e].dst, stack, depth + 1, ps);
		}
}

static uint64_t sum_val(const struct wpp_dag *d, const struct paths *ps, uint32_t p)
{
	uint64_t s = 0;
	for (uint32_t k = 0; k < ps->len[p]; k++)
		s += d->edges[ps->edge[p][k]].val;
	return s;
}

static int64_t sum_weight(const struct wpp_ppp *pp, const struct paths *ps, uint32_t p)
{
	int64_t s = 0;
	for (uint32_t k = 0; k < ps->len[p]; k++)
		s += pp->weight[ps->edge[p][k]];
	return s;
}

static uint64_t sum_inc(const uint64_t *inc, const struct paths *ps, uint32_t p)
{
	uint64_t s = 0;
	for (uint32_t k = 0; k < ps->len[p]; k++)
		s += inc[ps->edge[p][k]];
	return s;
}

/* The paper's Figure 3: s=ENTRY, a..d = blocks 0..3, t=EXIT; edges in the
 * order that gives its Ball-Larus numbers. */
static void test_paper_figure3(void **state)
{
	(void)state;
	enum { A, B, C, D, S, T };
	struct wpp_dag d;
	struct wpp_ppp pp;
	char why[128];

	dag_init(&d, 4);
	dag_edge(&d, S, A); /* 0 */
	dag_edge(&d, S, B); /* 1 */
	dag_edge(&d, A, C); /* 2 */
	dag_edge(&d, A, B); /* 3 */
	dag_edge(&d, B, C); /* 4 */
	dag_edge(&d, C, D); /* 5 */
	dag_edge(&d, C, T); /* 6 */
	dag_edge(&d, D, T); /* 7 */
	assert_int_equal(wpp_dag_number(&d, BIG, BIG), 0);
	assert_int_equal(d.npaths, 6);
	/* Ball-Larus: sacdt 0, sact 1, sabcdt 2, sabct 3, sbcdt 4, sbct 5. */
	const uint64_t bl_val[8] = {0, 4, 0, 2, 0, 0, 1, 0};
	for (uint32_t e = 0; e < 8; e++)
		assert_int_equal(d.edges[e].val, bl_val[e]);

	const uint64_t interesting[3] = {5, 0, 1}; /* sbct, sacdt, sact */
	assert_int_equal(wpp_ppp_number(&d, interesting, 3, &pp, why, sizeof(why)), 0);
	/* Figure 3(b): W(s,a)=0 W(s,b)=2 W(a,c)=0 W(b,c)=-1 W(c,d)=0 W(c,t)=1
	 * W(d,t)=0; (a,b) carries no interesting path (0 here). */
	const int64_t want[8] = {0, 2, 0, 0, -1, 0, 1, 0};
	for (uint32_t e = 0; e < 8; e++)
		assert_int_equal(pp.weight[e], want[e]);
	assert_int_equal(pp.interval, 3);
	assert_int_equal(pp.npaths, 3);
	/* slots by Ball-Larus id: sacdt, sact, sbct -> 0, 1, 2 */
	assert_int_equal(pp.slot_bl[0], 0);
	assert_int_equal(pp.slot_ppp[0], 0);
	assert_int_equal(pp.slot_bl[1], 1);
	assert_int_equal(pp.slot_ppp[1], 1);
	assert_int_equal(pp.slot_bl[2], 5);
	assert_int_equal(pp.slot_ppp[2], 2);
	/* Aliases: sabct (edges 0,3,4,6) has id 0 like sacdt; sbcdt (1,4,5,7)
	 * has id 1 like sact. */
	assert_int_equal(pp.weight[0] + pp.weight[3] + pp.weight[4] + pp.weight[6], 0);
	assert_int_equal(pp.weight[1] + pp.weight[4] + pp.weight[5] + pp.weight[7], 1);
	assert_true(wpp_ppp_compactness(&pp) == 1.0);
	wpp_ppp_free(&pp);
	free(d.edges);
}

/* A random DAG: blocks in topological order, each with 1-3 out-edges to
 * later blocks or EXIT (sometimes twice to the same target), ENTRY to
 * 1-3 blocks. */
static void random_dag(struct wpp_dag *d)
{
	uint32_t n = 2 + rnd_below(MAXN - 2), exit = n + 1;
	dag_init(d, n);
	uint32_t k = 1 + rnd_below(3);
	dag_edge(d, n, 0);
	for (uint32_t i = 1; i < k; i++)
		dag_edge(d, n, rnd_below(n));
	for (uint32_t b = 0; b < n; b++) {
		uint32_t outs = 1 + rnd_below(3);
		for (uint32_t i = 0; i < outs && d->nedges < MAXE - 1; i++) {
			uint32_t span = n - b; /* later blocks and EXIT */
			uint32_t t = b + 1 + rnd_below(span);
			dag_edge(d, b, t >= n ? exit : t);
		}
	}
}

/* ENTRY -> A twice (parallel edges), A -> B, A -> EXIT, B -> EXIT twice:
 * 2 x 3 paths; all but Ball-Larus id 4 interesting.  The paper's way
 * leaves a hole (interval 6 for 5 paths): at A the two prefixes' suffix
 * sets differ and the join pads one.  Numbered top-down the two
 * contexts at A are suffixes and nothing pads: interval 5. */
static void test_closing_a_hole(void **state)
{
	(void)state;
	enum { A, B, S, T };
	struct wpp_dag d;
	struct wpp_ppp pp;
	char why[128];

	dag_init(&d, 2);
	dag_edge(&d, S, A);
	dag_edge(&d, S, A);
	dag_edge(&d, A, B);
	dag_edge(&d, A, T);
	dag_edge(&d, B, T);
	dag_edge(&d, B, T);
	assert_int_equal(wpp_dag_number(&d, BIG, BIG), 0);
	assert_int_equal(d.npaths, 6);
	const uint64_t set[5] = {0, 1, 2, 3, 5};
	const struct wpp_ppp_way paper = {0}, reverse = {.reverse = 1};
	assert_int_equal(wpp_ppp_number_way(&d, set, 5, &paper, &pp, why, sizeof(why)), 0);
	assert_int_equal(pp.interval, 6);
	wpp_ppp_free(&pp);
	assert_int_equal(wpp_ppp_number_way(&d, set, 5, &reverse, &pp, why, sizeof(why)), 0);
	assert_int_equal(pp.interval, 5);
	wpp_ppp_free(&pp);
	assert_int_equal(wpp_ppp_number(&d, set, 5, &pp, why, sizeof(why)), 0);
	assert_int_equal(pp.interval, 5);
	assert_true(pp.way.reverse || pp.way.order || pp.way.fill || pp.way.compact);
	wpp_ppp_free(&pp);
	free(d.edges);
}

/* One numbering (way, or wpp_ppp_number's pick when way is NULL) of the
 * chosen paths against brute force; returns its interval. */
static uint64_t check_way(struct wpp_dag *d, const struct paths *ps, const uint8_t *chosen,
			  const struct wpp_ppp_way *way)
{
	uint64_t ids[2 * MAXPATHS];
	uint32_t n = 0;
	struct wpp_ppp pp;
	char why[128] = "";

	for (uint32_t p = 0; p < ps->n; p++)
		if (chosen[p]) {
			ids[n++] = sum_val(d, ps, p);
			if (rnd_below(4) == 0)
				ids[n++] = sum_val(d, ps, p); /* duplicates are one path */
		}
	if (way)
		assert_int_equal(wpp_ppp_number_way(d, ids, n, way, &pp, why, sizeof(why)), 0);
	else
		assert_int_equal(wpp_ppp_number(d, ids, n, &pp, why, sizeof(why)), 0);

	uint64_t *inc = malloc(d->nedges * sizeof(uint64_t));
	uint64_t *w = malloc(d->nedges * sizeof(uint64_t));
	for (uint32_t e = 0; e < d->nedges; e++)
		w[e] = (uint64_t)pp.weight[e];
	assert_int_equal(wpp_dag_place_values(d, w, inc), 0);

	uint8_t *seen = calloc(pp.interval + 1, 1);
	uint32_t count = 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	for (uint32_t p = 0; p < ps->n; p++) {
		if (!chosen[p])
			continue;
		int64_t id = sum_weight(&pp, ps, p);
		assert_true(id >= 0 && (uint64_t)id < pp.interval);
		assert_false(seen[id]);
		seen[id] = 1;
		count++;
		lo = id < lo ? id : lo;
		hi = id > hi ? id : hi;
		/* what wpp_ppp_number says, found by Ball-Larus id */
		uint64_t bl = sum_val(d, ps, p);
		uint32_t k = 0;
		while (k < pp.npaths && pp.slot_bl[k] != bl)
			k++;
		assert_true(k < pp.npaths);
		assert_int_equal(pp.slot_ppp[k], (uint64_t)id);
		/* the register updated on chords only gives the same id */
		assert_int_equal(sum_inc(inc, ps, p), (uint64_t)id);
	}
	assert_int_equal(count, pp.npaths);
	if (count) {
		assert_int_equal(lo, 0);
		assert_int_equal((uint64_t)hi + 1, pp.interval);
		assert_true(wpp_ppp_compactness(&pp) >= 1.0);
	} else {
		assert_int_equal(pp.interval, 0);
	}
	if (way)
		assert_memory_equal(&pp.way, way, sizeof(*way));
	uint64_t interval = pp.interval;
	free(seen);
	free(inc);
	free(w);
	wpp_ppp_free(&pp);
	return interval;
}

/* The ways checked one by one: every fixed way, and shuffled edge orders
 * (fill forward and reversed, and the paper's join shuffled). */
#define NCHECKED (WPP_PPP_NWAYS + 4)
static struct wpp_ppp_way checked_way(int k)
{
	static const struct wpp_ppp_way shuffled[4] = {
	    {0, WPP_PPP_ORDER_BL, 1, 1, 7},
	    {1, WPP_PPP_ORDER_LARGEST, 1, 0, 8},
	    {0, WPP_PPP_ORDER_BL, 0, 0, 9},
	    {1, WPP_PPP_ORDER_HOLES, 0, 1, 10},
	};
	return k < WPP_PPP_NWAYS ? wpp_ppp_ways[k] : shuffled[k - WPP_PPP_NWAYS];
}

/* Intervals summed over the random sets, per way and for the pick. */
static uint64_t total_interval[NCHECKED + 1], total_paths;

/* Every way on its own, then the pick: no larger than any fixed way's. */
static void check_set(struct wpp_dag *d, const struct paths *ps, const uint8_t *chosen)
{
	uint64_t best = UINT64_MAX;
	for (int k = 0; k < NCHECKED; k++) {
		struct wpp_ppp_way way = checked_way(k);
		uint64_t got = check_way(d, ps, chosen, &way);
		if (k < WPP_PPP_NWAYS && got < best)
			best = got;
		total_interval[k] += got;
	}
	uint64_t pick = check_way(d, ps, chosen, NULL);
	total_interval[NCHECKED] += pick;
	for (uint32_t p = 0; p < ps->n; p++)
		total_paths += chosen[p];
	assert_true(pick <= best);
}

static void test_random_dags(void **state)
{
	(void)state;
	static struct paths ps;
	uint8_t chosen[MAXPATHS];
	double worst = 1.0;

	for (int round = 0; round < 600; round++) {
		struct wpp_dag d;
		uint32_t stack[MAXN + 2];
		random_dag(&d);
		assert_int_equal(wpp_dag_number(&d, BIG, BIG), 0);
		double *weight = malloc(d.nedges * sizeof(double));
		for (uint32_t e = 0; e < d.nedges; e++)
			weight[e] = (double)rnd_below(100);
		assert_int_equal(wpp_dag_place(&d, weight), 0);
		free(weight);
		ps.n = 0;
		if (d.npaths > MAXPATHS) {
			free(d.edges);
			continue;
		}
		enumerate(&d, WPP_DAG_ENTRY(d.nblocks), stack, 0, &ps);
		assert_int_equal(ps.n, d.npaths);
		/* Ball-Larus ids are 0..N-1 (the oracle's premise) */
		memset(chosen, 0, sizeof(chosen));
		for (uint32_t p = 0; p < ps.n; p++) {
			uint64_t bl = sum_val(&d, &ps, p);
			assert_true(bl < ps.n && !chosen[bl]);
			chosen[bl] = 1;
		}
		/* sets of several densities, the empty one and a single path */
		for (int density = 0; density <= 4; density++) {
			for (uint32_t p = 0; p < ps.n; p++)
				chosen[p] = density == 0 ? p == rnd_below(ps.n)
					    : density == 4
						? 0
						: rnd_below(8) < (uint32_t)density * 2 - 1;
			check_set(&d, &ps, chosen);
		}
		/* every path: Ball-Larus itself */
		uint64_t ids[MAXPATHS];
		for (uint32_t p = 0; p < ps.n; p++)
			ids[p] = p;
		struct wpp_ppp pp;
		char why[128];
		assert_int_equal(wpp_ppp_number(&d, ids, ps.n, &pp, why, sizeof(why)), 0);
		assert_int_equal(pp.interval, d.npaths);
		for (uint32_t p = 0; p < ps.n; p++)
			assert_int_equal((uint64_t)sum_weight(&pp, &ps, p), sum_val(&d, &ps, p));
		wpp_ppp_free(&pp);
		/* Γ on a random half, for the record */
		uint32_t n = 0;
		for (uint32_t p = 0; p < ps.n; p++)
			if (rnd_below(2))
				ids[n++] = p;
		assert_int_equal(wpp_ppp_number(&d, ids, n, &pp, why, sizeof(why)), 0);
		if (wpp_ppp_compactness(&pp) > worst)
			worst = wpp_ppp_compactness(&pp);
		wpp_ppp_free(&pp);
		free(d.edges);
	}
	print_message("worst compactness on random halves: %.3f\n", worst);
	print_message("sum of intervals over %llu interesting paths: ",
		      (unsigned long long)total_paths);
	for (int k = 0; k < NCHECKED; k++) {
		struct wpp_ppp_way way = checked_way(k);
		print_message("r%do%df%dc%ds%u %llu, ", way.reverse, way.order, way.fill, way.compact,
			      way.shuffle,
			      (unsigned long long)total_interval[k]);
	}
	print_message("picked %llu\n", (unsigned long long)total_interval[NCHECKED]);
	/* the choices pay: the pick beats the paper's way over the sets */
	assert_true(total_interval[NCHECKED] < total_interval[0]);
}

static void test_bad_ids(void **state)
{
	(void)state;
	struct wpp_dag d;
	struct wpp_ppp pp;
	char why[128] = "";

	dag_init(&d, 1);
	dag_edge(&d, 1, 0);
	dag_edge(&d, 0, 2);
	dag_edge(&d, 1, 2);
	assert_int_equal(wpp_dag_number(&d, BIG, BIG), 0);
	assert_int_equal(d.npaths, 2);
	const uint64_t bad[2] = {1, 2};
	assert_int_equal(wpp_ppp_number(&d, bad, 2, &pp, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "path count"));
	assert_null(pp.weight);
	const uint64_t one[1] = {1};
	assert_int_equal(wpp_ppp_number(&d, one, 1, &pp, why, sizeof(why)), 0);
	assert_int_equal(pp.interval, 1);
	/* partial ids count preferential weights from 0: nothing to move */
	for (uint32_t e = 0; e < d.nedges; e++)
		assert_int_equal(pp.weight[e], 0);
	assert_int_equal(pp.slot_ppp[0], 0);
	wpp_ppp_free(&pp);
	free(d.edges);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_paper_figure3),
	    cmocka_unit_test(test_closing_a_hole),
	    cmocka_unit_test(test_random_dags),
	    cmocka_unit_test(test_bad_ids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
