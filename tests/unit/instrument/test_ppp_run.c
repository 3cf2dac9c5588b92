/* SPDX-License-Identifier: MIT */
/*
 * test_ppp_run.c — preferential path counting as the instrumented code
 * runs it (ppp_plan.h; trace_abi.h "Preferential path counting"), against
 * brute force on random CFGs with loops, call heads and indirect branches:
 *
 *   - an interpreter walks random executions of the CFG and applies the
 *     placed increments of BOTH registers exactly where the pass emits
 *     them (chords add, cuts end a path and restart both registers), then
 *     at each path end decides as the emitted code does:
 *         ppp < interval && slot_bl[ppp] == bl  -> counts[ppp] += 1
 *         otherwise                             -> residual[bl] += 1;
 *   - the oracle is the Ball-Larus id summed from the numbering's values
 *     (val, not the placed increments) along the DAG edges walked: the
 *     Ball-Larus register must equal it, every interesting path must land
 *     on its own slot, every other path must go to the residual table, and
 *     the counts per path (slots turned back into Ball-Larus ids as the
 *     runtime does) must equal the oracle's, path by path;
 *   - interesting sets are the paths of other ("training") walks, thinned
 *     at random, plus random ids, so residual paths occur;
 *   - the plan's decisions: empty set, stale set, paths fitting an array,
 *     an interval above the array limit;
 *   - the cost model that weighs PPP against the path cache (ppp_cost.h):
 *     PPP increments per path as the walks apply them, cache pairs lost
 *     by comparing every two keys, and known cases.
 */
#include <math.h>
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
#include "instrument/ppp_plan.h"
#include "wpp/meta_format.h"
#include "wpp/trace_abi.h"

#define TEST_RNG_SEED UINT64_C(0x6a09e667f3bcc908)
#include "test_rng.h"

#define MAXB	  40
#define MAXE	  120
#define MAXSTEPS  200
#define MAXEND	  (MAXSTEPS + 2)
#define MAXTABLE  4096 /* interesting ids at most */
#define NO_LIMIT  (UINT64_C(1) << 40)
#define MAX_SLOTS (UINT64_C(1) << 16) /* array limit of the random rounds */
#define BIG_LIMIT (UINT64_C(1) << 62)

struct test_cfg {
	struct wpp_cfg cfg;
	uint32_t src[MAXE], dst[MAXE];
	uint8_t flags[MAXB], exits[MAXB];
};

static void add_edge(struct test_cfg *t, uint32_t u, uint32_t v)
{
	for (uint32_t e = 0; e < t->cfg.nedges; e++)
		if (t->src[e] == u && t->dst[e] == v)
			return;
	if (t->cfg.nedges >= MAXE)
		return;
	t->src[t->cfg.nedges] = u;
	t->dst[t->cfg.nedges] = v;
	t->cfg.nedges++;
}

/* Blocks with 1-3 successors, mostly forward, some back (loops), some
 * returns, call heads (cut in-edges) and indirect-branch sources (their
 * targets pinned). */
static void random_cfg(struct test_cfg *t)
{
	uint32_t n = 3 + rnd_below(MAXB - 3);
	memset(t, 0, sizeof(*t));
	for (uint32_t u = 0; u < n; u++) {
		if (u == n - 1 || (u && rnd_below(9) == 0)) {
			t->exits[u] = rnd_below(5) ? WPP_CFG_EXIT_RETURN : WPP_CFG_EXIT_NORETURN;
			continue;
		}
		uint32_t nsucc = 1 + rnd_below(3);
		for (uint32_t k = 0; k < nsucc; k++) {
			uint32_t left = n - u - 1, span = left < 4 ? left : 4;
			uint32_t v =
			    rnd_below(5) == 0 ? 1 + rnd_below(n - 1) : u + 1 + rnd_below(span);
			add_edge(t, u, v);
		}
		if (rnd_below(15) == 0)
			t->flags[u] |= WPP_CFGB_INDIRECT_SRC;
	}
	for (uint32_t v = 1; v < n; v++)
		if (rnd_below(7) == 0)
			t->flags[v] |= WPP_CFGB_CALL_HEAD;
	for (uint32_t e = 0; e < t->cfg.nedges; e++)
		if (t->flags[t->src[e]] & WPP_CFGB_INDIRECT_SRC)
			t->flags[t->dst[e]] |= WPP_CFGB_PINNED;
	t->cfg.nblocks = n;
	t->cfg.edge_src = t->src;
	t->cfg.edge_dst = t->dst;
	t->cfg.block_flags = t->flags;
	t->cfg.block_exit = t->exits;
}

/* One path end as the walk saw it: both registers, the oracle's id, and
 * how many non-zero PPP increments the path added after its start. */
struct path_end {
	uint64_t bl, ppp, oracle;
	uint32_t nppp;
};

/* A random execution from the entry block; the path ends it records. */
static uint32_t walk(const struct test_cfg *t, const struct wpp_dag *d, const uint64_t *pinc,
		     struct path_end *out)
{
	uint32_t b = 0, nout = 0;
	uint32_t first = d->entry_edge[0];
	uint64_t bl = d->edges[first].inc, ppp = pinc ? pinc[first] : 0;
	uint64_t oracle = d->edges[first].val;
	uint32_t nppp = 0;

	for (uint32_t step = 0;; step++) {
		uint32_t outs[MAXE], no = 0;
		for (uint32_t e = 0; e < t->cfg.nedges; e++)
			if (t->src[e] == b)
				outs[no++] = e;
		if (t->exits[b] != WPP_CFG_EXIT_NONE || no == 0 || step >= MAXSTEPS) {
			uint32_t x = d->exit_edge[b];
			/* only a return records its path (unreachable ends nothing) */
			if (t->exits[b] == WPP_CFG_EXIT_RETURN && x != WPP_NONE)
				out[nout++] = (struct path_end){
				    bl + d->edges[x].inc, ppp + (pinc ? pinc[x] : 0),
				    oracle + d->edges[x].val, nppp + (pinc && pinc[x])};
			return nout;
		}
		uint32_t e = outs[rnd_below(no)], v = t->dst[e];
		uint32_t de = d->cfg_edge_dag[e];
		if (d->edges[de].kind == WPP_EDGE_REAL) {
			bl += d->edges[de].inc;
			ppp += pinc ? pinc[de] : 0;
			nppp += pinc && pinc[de];
			oracle += d->edges[de].val;
		} else {
			out[nout++] =
			    (struct path_end){bl + d->edges[de].inc, ppp + (pinc ? pinc[de] : 0),
					      oracle + d->edges[de].val, nppp + (pinc && pinc[de])};
			uint32_t re = d->entry_edge[v];
			assert_true(re != WPP_NONE);
			bl = d->edges[re].inc;
			ppp = pinc ? pinc[re] : 0;
			oracle = d->edges[re].val;
			nppp = 0;
		}
		b = v;
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

static int is_interesting(const uint64_t *ids, size_t n, uint64_t id)
{
	return bsearch(&id, ids, n, sizeof(uint64_t), cmp_u64) != NULL;
}

/* The interesting set: paths of training walks, thinned, plus random ids;
 * increasing and distinct, as the set reader hands them to the pass. */
static size_t random_set(const struct test_cfg *t, const struct wpp_dag *d, uint64_t *ids)
{
	static struct path_end ends[MAXEND];
	size_t n = 0;
	uint32_t keep = 1 + rnd_below(4); /* keep one in `keep` */
	for (int w = 0; w < 6; w++) {
		uint32_t ne = walk(t, d, NULL, ends);
		for (uint32_t k = 0; k < ne && n < MAXTABLE - 8; k++)
			if (rnd_below(keep) == 0)
				ids[n++] = ends[k].oracle;
	}
	for (uint32_t k = 1 + rnd_below(3); k && d->npaths; k--)
		ids[n++] = rnd() % d->npaths;
	qsort(ids, n, sizeof(uint64_t), cmp_u64);
	size_t m = 0;
	for (size_t k = 0; k < n; k++)
		if (!m || ids[m - 1] != ids[k])
			ids[m++] = ids[k];
	return m;
}

static uint64_t runs_checked, interesting_hits, residual_hits, aliased_residuals;

#define WALKS  12
#define MAXIDS (WALKS * MAXEND)

/* Walks with the plan's increments; checks each path end, then that the
 * executions counted (slots turned back into Ball-Larus ids, as the
 * runtime drains them, plus the residual ones) are the oracle's, path by
 * path: the two sorted lists of ids are equal. */
static void run_plan(const struct test_cfg *t, const struct wpp_dag *d, const uint64_t *ids,
		     size_t nids, const struct wpp_ppp_plan *plan)
{
	static struct path_end ends[MAXEND];
	static uint64_t oracle[MAXIDS], counted[MAXIDS];
	uint32_t noracle = 0, ncounted = 0;
	uint64_t *counts = calloc(plan->interval + 1, sizeof(uint64_t));
	assert_non_null(counts);

	/* the slot table: each interesting path once, holes elsewhere */
	uint32_t filled = 0;
	for (uint64_t k = 0; k < plan->interval; k++) {
		if (plan->slot_bl[k] == WPP_PPP_HOLE)
			continue;
		assert_true(is_interesting(ids, nids, plan->slot_bl[k]));
		filled++;
	}
	assert_int_equal(filled, nids); /* so no id twice: nids distinct ids fill nids slots */

	for (int r = 0; r < WALKS; r++) {
		uint32_t ne = walk(t, d, plan->inc, ends);
		for (uint32_t k = 0; k < ne; k++) {
			const struct path_end *pe = &ends[k];
			assert_true(pe->oracle < d->npaths);
			assert_int_equal(pe->bl, pe->oracle); /* the Ball-Larus register */
			oracle[noracle++] = pe->oracle;
			int hit = pe->ppp < plan->interval && plan->slot_bl[pe->ppp] == pe->bl;
			if (is_interesting(ids, nids, pe->oracle)) {
				assert_true(hit); /* on its own slot */
				counts[pe->ppp]++;
				interesting_hits++;
			} else {
				assert_false(hit); /* never counted for another path */
				counted[ncounted++] = pe->bl;
				residual_hits++;
				aliased_residuals += pe->ppp < plan->interval &&
						     plan->slot_bl[pe->ppp] != WPP_PPP_HOLE;
			}
			runs_checked++;
		}
	}
	for (uint64_t k = 0; k < plan->interval; k++)
		for (uint64_t c = 0; c < counts[k]; c++)
			counted[ncounted++] = plan->slot_bl[k];
	assert_int_equal(ncounted, noracle);
	qsort(oracle, noracle, sizeof(uint64_t), cmp_u64);
	qsort(counted, ncounted, sizeof(uint64_t), cmp_u64);
	for (uint32_t k = 0; k < noracle; k++)
		assert_int_equal(counted[k], oracle[k]);
	free(counts);
}

static void test_random_cfgs(void **state)
{
	(void)state;
	static uint64_t ids[MAXTABLE];
	uint32_t arrays = 0, wide = 0;

	for (int round = 0; round < 1500; round++) {
		struct test_cfg t;
		struct wpp_dag d;
		struct wpp_ppp_plan plan;
		random_cfg(&t);
		assert_int_equal(wpp_dag_build(&d, &t.cfg), 0);
		/* small limits now and then: truncation cuts and wide ids too */
		uint64_t limit = rnd_below(6) == 0 ? 64 : BIG_LIMIT;
		assert_int_equal(wpp_dag_number(&d, limit, limit), 0);
		double *w = malloc(((size_t)d.nedges + 1) * sizeof(double));
		for (uint32_t e = 0; e < d.nedges; e++)
			w[e] = (double)rnd_below(100);
		assert_int_equal(wpp_dag_place(&d, w), 0);
		free(w);

		size_t nids = random_set(&t, &d, ids);
		const struct wpp_ppp_policy pol = {0, MAX_SLOTS, 0, 0};
		assert_int_equal(wpp_ppp_plan_make(&d, ids, NULL, nids, 0, &pol, &plan), 0);
		if (!nids) {
			assert_int_equal(plan.how, WPP_PPP_EMPTY);
		} else if (plan.how == WPP_PPP_WIDE) {
			wide++; /* 63-bit overflow, or an interval above the limit */
			assert_true(plan.why[0] != 0 || plan.interval > MAX_SLOTS);
			assert_null(plan.slot_bl);
		} else {
			assert_int_equal(plan.how, WPP_PPP_ARRAY);
			assert_int_equal(plan.nids, nids);
			assert_true(plan.interval >= nids);
			run_plan(&t, &d, ids, nids, &plan);
			arrays++;
		}
		wpp_ppp_plan_free(&plan);
		wpp_dag_free(&d);
	}
	print_message("%u PPP functions (%u too wide), %llu path ends: %llu interesting, "
		      "%llu residual (%llu sharing an interesting path's PPP id)\n",
		      arrays, wide, (unsigned long long)runs_checked,
		      (unsigned long long)interesting_hits, (unsigned long long)residual_hits,
		      (unsigned long long)aliased_residuals);
	/* the check must have seen both kinds, and aliases resolved by the
	 * Ball-Larus register */
	assert_true(arrays > 750);
	assert_true(interesting_hits > 1000 && residual_hits > 1000);
	assert_true(aliased_residuals > 0);
}

/* Two diamonds in a row: 4 paths. */
static void diamond_chain(struct test_cfg *t, struct wpp_dag *d)
{
	memset(t, 0, sizeof(*t));
	add_edge(t, 0, 1), add_edge(t, 0, 2), add_edge(t, 1, 3), add_edge(t, 2, 3);
	add_edge(t, 3, 4), add_edge(t, 3, 5), add_edge(t, 4, 6), add_edge(t, 5, 6);
	t->exits[6] = WPP_CFG_EXIT_RETURN;
	t->cfg.nblocks = 7;
	t->cfg.edge_src = t->src;
	t->cfg.edge_dst = t->dst;
	t->cfg.block_flags = t->flags;
	t->cfg.block_exit = t->exits;
	assert_int_equal(wpp_dag_build(d, &t->cfg), 0);
	assert_int_equal(wpp_dag_number(d, BIG_LIMIT, BIG_LIMIT), 0);
	assert_int_equal(wpp_dag_place(d, NULL), 0);
	assert_int_equal(d->npaths, 4);
}

/* The plan's choices on one diamond chain (4 paths). */
static void test_decisions(void **state)
{
	(void)state;
	struct test_cfg t;
	struct wpp_dag d;
	struct wpp_ppp_plan plan;
	diamond_chain(&t, &d);
	const uint64_t two[2] = {1, 3};

	const struct wpp_ppp_policy any = {0, NO_LIMIT, 0, 0}, fits = {4, NO_LIMIT, 0, 0};
	const struct wpp_ppp_policy narrow = {3, 1, 0, 0}, two_slots = {3, 2, 0, 0};
	assert_int_equal(wpp_ppp_plan_make(&d, two, NULL, 0, 0, &any, &plan), 0);
	assert_int_equal(plan.how, WPP_PPP_EMPTY);
	wpp_ppp_plan_free(&plan);
	assert_int_equal(wpp_ppp_plan_make(&d, two, NULL, 2, 1, &any, &plan), 0);
	assert_int_equal(plan.how, WPP_PPP_STALE);
	assert_null(plan.inc);
	wpp_ppp_plan_free(&plan);
	/* 4 paths fit an array of 4: Ball-Larus counting, Γ still known */
	assert_int_equal(wpp_ppp_plan_make(&d, two, NULL, 2, 0, &fits, &plan), 0);
	assert_int_equal(plan.how, WPP_PPP_PLAIN);
	assert_int_equal(plan.interval, 2);
	assert_true(plan.gamma == 1.0);
	assert_null(plan.slot_bl);
	wpp_ppp_plan_free(&plan);
	/* an interval of 2 above a limit of 1 */
	assert_int_equal(wpp_ppp_plan_make(&d, two, NULL, 2, 0, &narrow, &plan), 0);
	assert_int_equal(plan.how, WPP_PPP_WIDE);
	wpp_ppp_plan_free(&plan);
	assert_int_equal(wpp_ppp_plan_make(&d, two, NULL, 2, 0, &two_slots, &plan), 0);
	assert_int_equal(plan.how, WPP_PPP_ARRAY);
	assert_int_equal(plan.interval, 2);
	assert_true(plan.slot_bl[0] != plan.slot_bl[1]);
	assert_true(plan.slot_bl[0] == 1 || plan.slot_bl[0] == 3);
	assert_true(plan.slot_bl[1] == 1 || plan.slot_bl[1] == 3);
	wpp_ppp_plan_free(&plan);
	wpp_dag_free(&d);
}

/* The cost model (ppp_cost.h) against brute force: the PPP increments
 * each path adds as the interpreter walks it with the placed increments,
 * and the cache pairs lost found by comparing every two keys.  The set is
 * the walked paths with their walk counts (some scaled to 0: unknown). */
static void test_cost_random(void **state)
{
	(void)state;
	static uint64_t ids[MAXTABLE];
	static struct path_end ends[MAXEND];
	static uint64_t got_ids[MAXIDS], got_n[MAXIDS];
	static uint32_t got_chords[MAXIDS];
	uint32_t rounds = 0, with_conflicts = 0, chosen_ppp = 0, chosen_cache = 0;

	for (int round = 0; round < 600; round++) {
		struct test_cfg t;
		struct wpp_dag d;
		struct wpp_ppp_plan plan;
		random_cfg(&t);
		assert_int_equal(wpp_dag_build(&d, &t.cfg), 0);
		assert_int_equal(wpp_dag_number(&d, BIG_LIMIT, BIG_LIMIT), 0);
		assert_int_equal(wpp_dag_place(&d, NULL), 0);
		size_t nids = random_set(&t, &d, ids);
		const struct wpp_ppp_policy pol = {0, MAX_SLOTS, 0, 0};
		assert_int_equal(wpp_ppp_plan_make(&d, ids, NULL, nids, 0, &pol, &plan), 0);
		if (plan.how != WPP_PPP_ARRAY) {
			wpp_ppp_plan_free(&plan);
			wpp_dag_free(&d);
			continue;
		}
		/* the walked paths, with their executions and PPP increments */
		uint32_t n = 0;
		for (int r = 0; r < WALKS; r++) {
			uint32_t ne = walk(&t, &d, plan.inc, ends);
			for (uint32_t k = 0; k < ne; k++) {
				uint32_t i = 0;
				while (i < n && got_ids[i] != ends[k].oracle)
					i++;
				if (i == n) {
					got_ids[n] = ends[k].oracle;
					got_chords[n] = ends[k].nppp;
					got_n[n++] = 0;
				}
				assert_int_equal(got_chords[i],
						 ends[k].nppp); /* one path, one count */
				got_n[i]++;
			}
		}
		if (!n) {
			wpp_ppp_plan_free(&plan);
			wpp_dag_free(&d);
			continue;
		}
		/* increasing ids, as the set hands them over */
		for (uint32_t i = 1; i < n; i++)
			for (uint32_t j = i; j && got_ids[j - 1] > got_ids[j]; j--) {
				uint64_t x = got_ids[j];
				got_ids[j] = got_ids[j - 1], got_ids[j - 1] = x;
				x = got_n[j], got_n[j] = got_n[j - 1], got_n[j - 1] = x;
				uint32_t c = got_chords[j];
				got_chords[j] = got_chords[j - 1], got_chords[j - 1] = c;
			}
		int unknown = rnd_below(4) == 0;
		unsigned log2 = rnd_below(5); /* 0: no cache; small: conflicts */
		double total = 0, chords = 0, missed = 0;
		uint32_t conflicts = 0;
		for (uint32_t i = 0; i < n; i++) {
			double x = unknown ? 1.0 : (double)got_n[i];
			total += x;
			chords += x * got_chords[i];
			/* it loses its pair to a more executed key, or to an
			 * equally executed one listed first */
			for (uint32_t j = 0; log2 && j < n; j++) {
				double y = unknown ? 1.0 : (double)got_n[j];
				if (j != i &&
				    wpp_cache_pair(got_ids[j] + 1, log2) ==
					wpp_cache_pair(got_ids[i] + 1, log2) &&
				    (y > x || (y == x && j < i))) {
					conflicts++;
					missed += x;
					break;
				}
			}
		}
		struct wpp_ppp_cost c;
		uint64_t zeros[MAXIDS] = {0};
		assert_int_equal(
		    wpp_ppp_cost(&d, plan.inc, got_ids, unknown ? zeros : got_n, n, log2, &c), 0);
		assert_int_equal(c.conflicts, conflicts);
		assert_true(fabs(c.chords - chords / total) < 1e-9);
		assert_true(fabs(c.missed - (log2 ? missed / total : 1.0)) < 1e-9);
		assert_true(fabs(c.ppp - (WPP_COST_PPP_START + WPP_COST_PPP_END +
					  WPP_COST_PPP_CHORD * chords / total)) < 1e-9);
		double count = log2 ? WPP_COST_CACHE_HIT * (total - missed) / total +
					  WPP_COST_CACHE_MISS * missed / total
				    : WPP_COST_HASH_PROBE;
		assert_true(fabs(c.count - count) < 1e-9);
		with_conflicts += conflicts > 0;
		rounds++;

		/* the plan follows the comparison */
		const struct wpp_ppp_policy decide = {0, MAX_SLOTS, 1, log2};
		struct wpp_ppp_plan p2;
		assert_int_equal(
		    wpp_ppp_plan_make(&d, got_ids, unknown ? NULL : got_n, n, 0, &decide, &p2), 0);
		if (p2.how == WPP_PPP_ARRAY || p2.cache) {
			assert_true(p2.costed);
			assert_int_equal(p2.cache, !(p2.cost.ppp < p2.cost.count));
			assert_int_equal(p2.how, p2.cache ? WPP_PPP_PLAIN : WPP_PPP_ARRAY);
			assert_true(p2.cache ? !p2.inc && !p2.slot_bl : p2.inc && p2.slot_bl);
			assert_string_equal(wpp_ppp_plan_counted(&p2), p2.cache ? "cache" : "ppp");
			chosen_cache += p2.cache;
			chosen_ppp += !p2.cache;
		}
		wpp_ppp_plan_free(&p2);
		wpp_ppp_plan_free(&plan);
		wpp_dag_free(&d);
	}
	print_message("cost model: %u functions, %u with cache conflicts; %u chose PPP, %u the "
		      "cache\n",
		      rounds, with_conflicts, chosen_ppp, chosen_cache);
	assert_true(rounds > 300 && with_conflicts > 30);
	assert_true(chosen_ppp > 30 && chosen_cache > 30);
}

/* Known cases on the diamond chain: without conflicts the cache is
 * cheaper (a hit costs what PPP's path end costs, and PPP adds its
 * start); two hot keys on one pair, or no cache, make PPP cheaper. */
static void test_cost_known(void **state)
{
	(void)state;
	struct test_cfg t;
	struct wpp_dag d;
	struct wpp_ppp_plan plan;
	diamond_chain(&t, &d);
	const uint64_t two[2] = {1, 3}, hot[2] = {1000, 1000}, skewed[2] = {1000000, 1};

	/* a cache size where the keys 2 and 4 share a pair, and one where
	 * they do not */
	unsigned shared = 0, apart = 0;
	for (unsigned l = 1; l < 20; l++) {
		int same = wpp_cache_pair(2, l) == wpp_cache_pair(4, l);
		if (same && !shared)
			shared = l;
		if (!same && !apart)
			apart = l;
	}
	assert_true(shared && apart);
	struct wpp_ppp_policy pol = {0, NO_LIMIT, 1, apart};
	assert_int_equal(wpp_ppp_plan_make(&d, two, hot, 2, 0, &pol, &plan), 0);
	assert_true(plan.costed && plan.cache);
	assert_int_equal(plan.how, WPP_PPP_PLAIN);
	assert_int_equal(plan.cost.conflicts, 0);
	assert_true(plan.cost.count == WPP_COST_CACHE_HIT);
	assert_true(plan.cost.ppp >= WPP_COST_PPP_START + WPP_COST_PPP_END);
	assert_int_equal(plan.interval, 2); /* still numbered: --wpp-stats */
	wpp_ppp_plan_free(&plan);

	pol.cache_log2 = shared;
	assert_int_equal(wpp_ppp_plan_make(&d, two, hot, 2, 0, &pol, &plan), 0);
	assert_int_equal(plan.how, WPP_PPP_ARRAY);
	assert_int_equal(plan.cost.conflicts, 1);
	assert_true(plan.cost.missed == 0.5);
	wpp_ppp_plan_free(&plan);
	/* the loser runs once in a million: a hit's cost, nearly */
	assert_int_equal(wpp_ppp_plan_make(&d, two, skewed, 2, 0, &pol, &plan), 0);
	assert_int_equal(plan.cost.conflicts, 1);
	assert_true(plan.cost.missed < 1e-5 && plan.cost.count < WPP_COST_CACHE_HIT + 1e-3);
	assert_int_equal(plan.cache, !(plan.cost.ppp < plan.cost.count));
	wpp_ppp_plan_free(&plan);

	pol.cache_log2 = 0;
	assert_int_equal(wpp_ppp_plan_make(&d, two, NULL, 2, 0, &pol, &plan), 0);
	assert_int_equal(plan.how, WPP_PPP_ARRAY);
	assert_true(plan.cost.count == WPP_COST_HASH_PROBE);
	wpp_ppp_plan_free(&plan);
	/* not asked to decide: PPP */
	pol.decide = 0;
	pol.cache_log2 = apart;
	assert_int_equal(wpp_ppp_plan_make(&d, two, hot, 2, 0, &pol, &plan), 0);
	assert_int_equal(plan.how, WPP_PPP_ARRAY);
	assert_false(plan.costed);
	wpp_ppp_plan_free(&plan);
	wpp_dag_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_cfgs),
	    cmocka_unit_test(test_decisions),
	    cmocka_unit_test(test_cost_random),
	    cmocka_unit_test(test_cost_known),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
