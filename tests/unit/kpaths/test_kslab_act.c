/* SPDX-License-Identifier: MIT */
/*
 * test_kslab_act.c — the per-activation view (kslab_act.h) against the
 * brute-force n-gram count of each activation's own path sequence, which
 * the run generator knows from its simulated call stack (act_streams.h):
 * every node, every count, k = 1..32, runs with recursion, uninstrumented
 * calls, signal handlers, longjmps and marks; pruning with many suspended
 * activations keeps the error bound; the documented rules for unknown
 * kinds and for an ambiguous longjmp; k-path costs (kipf_cost.h), and
 * per-instance costs fed a run at once (kipf_inst_cost_run) against the
 * same run fed item by item.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "act_streams.h"
#include "forest_check.h"
#include "analysis/kpaths/kipf.h"
#include "analysis/kpaths/kipf_cost.h"
#include "analysis/kpaths/kipf_inst_cost.h"
#include "analysis/kpaths/kslab.h"
#include "analysis/kpaths/kslab_act.h"
#include "ngram_ref.h"

static struct kipf *forest_of_run(const struct act_ev *e, size_t n, unsigned k, uint64_t max_nodes,
				  struct kslab_stats *st)
{
	struct kslab *s = kslab_new(k, max_nodes);
	struct kipf *f = kipf_new(k);
	struct kact a;

	assert_non_null(s);
	assert_non_null(f);
	kact_init(&a, s);
	for (size_t i = 0; i < n; i++) {
		if (e[i].mark)
			kact_mark(&a);
		else
			assert_int_equal(kact_item(&a, e[i].fid, e[i].value, e[i].flags), 0);
	}
	if (st)
		*st = *kslab_stats(s);
	assert_int_equal(kipf_add_kslab(f, s), 0);
	assert_int_equal(kipf_sort(f), 0);
	kact_fini(&a);
	kslab_free(s);
	return f;
}

static struct ngram_ref *truth_of(const struct act_run *r, unsigned k)
{
	return ngram_ref_build((const struct ev *const *)r->segs, r->seg_len, r->nsegs, k);
}

static void test_random_runs_all_k(void **state)
{
	uint64_t longjmps = 0, signals = 0, marks = 0, depth = 0;
	(void)state;

	for (unsigned k = 1; k <= KSLAB_MAX_K; k++)
		for (uint64_t seed = 1; seed <= 4; seed++) {
			struct act_run r;
			act_run_generate(&r, seed * 7919 + k, 300 + 150 * seed,
					 1 + (unsigned)(seed % 4), 1 + (unsigned)((seed + k) % 4));
			struct ngram_ref *ref = truth_of(&r, k);
			struct kipf *f = forest_of_run(r.ev, r.n, k, 0, NULL);
			forest_check(f, ref, 0);
			longjmps += r.longjmps;
			signals += r.signals;
			marks += r.marks;
			depth = r.max_depth > depth ? r.max_depth : depth;
			kipf_free(f);
			ngram_ref_free(ref);
			act_run_free(&r);
		}
	/* The runs did exercise what they are meant to. */
	assert_true(longjmps > 50);
	assert_true(signals > 50);
	assert_true(marks > 50);
	assert_true(depth > 8);
}

/* Deep recursion: many suspended streams, and pruning must keep every one
 * of their nodes (kslab_prune.c pins them) while keeping the bounds: the
 * error bound, memory within max(M, 2 * pinned) + 2 where each cursor pins
 * at most 3(k-1) nodes (its top path, its bottom path with the slab above
 * it), and sweeps O(1) amortized (each sweep follows >= M/2 new nodes, an
 * item makes at most 2), even when the pinned nodes alone exceed M/2 (the
 * smallest cap, 8k). */
static void test_pruning_with_suspended_activations(void **state)
{
	static const unsigned ks[] = {2, 5, 16};
	(void)state;

	for (unsigned ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++)
		for (unsigned tight = 0; tight < 2; tight++) {
			unsigned k = ks[ki];
			uint64_t cap = tight ? 8u * k : 40u * k, pinned;
			struct act_run r;
			act_run_generate(&r, 99 + k, 6000, 3, 5);
			struct ngram_ref *ref = truth_of(&r, k);
			struct kslab_stats st;
			struct kipf *f = forest_of_run(r.ev, r.n, k, cap, &st);

			pinned = 3 * (uint64_t)(k < 2 ? 1 : k - 1) * (r.max_depth + 1);
			assert_true(st.prunes > 0);
			assert_true(st.lost_items > 0);
			assert_true(st.peak_nodes <= (cap > 2 * pinned ? cap : 2 * pinned) + 2);
			assert_true(st.prunes <= 1 + 4 * st.items / cap);
			/* Each k-SF node roots <= its k-level subtree in the k-IPF:
			 * the conversion is bounded too. */
			assert_true(f->nnodes <= (uint64_t)k * st.nodes);
			forest_check(f, ref, st.lost_items);
			kipf_free(f);
			ngram_ref_free(ref);
			act_run_free(&r);
		}
}

/* 200 nested activations, each with its own labels: the nodes their
 * suspended cursors pin (up to 3(k-1) each) dwarf the smallest cap, so a
 * sweep cannot reach M/2.  Sweeps must stay O(1) amortized (not one per
 * item) and memory within max(M, 2 * pinned) + 2; counts keep the bound. */
static void test_pruning_deep_recursion(void **state)
{
	enum { LEVELS = 200, ITERS = 20 };
	static struct act_ev run[LEVELS * (ITERS + 2)];
	static struct ev seq[LEVELS][ITERS + 2];
	const struct ev *segs[LEVELS];
	size_t lens[LEVELS], n = 0;
	(void)state;

	for (uint32_t l = 0; l < LEVELS; l++) {
		seq[l][0] = (struct ev){.fid = l + 1, .value = 100};
		run[n++] = (struct act_ev){.fid = l + 1, .value = 100, .flags = KACT_ENTRY};
		for (uint32_t i = 1; i <= ITERS; i++) {
			seq[l][i] = (struct ev){.fid = l + 1, .value = i % 7};
			run[n++] = (struct act_ev){.fid = l + 1, .value = i % 7};
		}
		segs[l] = seq[l];
		lens[l] = ITERS + 2;
	}
	for (uint32_t l = LEVELS; l-- > 0;) {
		seq[l][ITERS + 1] = (struct ev){.fid = l + 1, .value = 200};
		run[n++] = (struct act_ev){.fid = l + 1, .value = 200, .flags = KACT_RETURN};
	}
	for (unsigned k = 4; k <= 16; k += 12) {
		struct ngram_ref *ref = ngram_ref_build(segs, lens, LEVELS, k);
		uint64_t cap = 8u * k, pinned = 3u * (k - 1) * LEVELS;
		struct kslab_stats st;
		struct kipf *f = forest_of_run(run, n, k, cap, &st);

		assert_true(st.peak_nodes > cap); /* the pinned nodes did not fit */
		assert_true(st.peak_nodes <= 2 * pinned + 2);
		assert_true(st.prunes <= 1 + 4 * st.items / cap);
		assert_true(f->nnodes <= (uint64_t)k * st.nodes);
		forest_check(f, ref, st.lost_items);
		kipf_free(f);
		ngram_ref_free(ref);
	}
}

/* Records without kinds: a function not live is a callee (pushed on top),
 * a live one continues and unwinds what is above it. */
static void test_unknown_kinds(void **state)
{
	const unsigned U = KACT_UNKNOWN;
	const struct act_ev run[] = {
	    {.fid = 1, .value = 0, .flags = U}, {.fid = 2, .value = 0, .flags = U},
	    {.fid = 3, .value = 0, .flags = U}, {.fid = 1, .value = 1, .flags = U},
	    {.fid = 2, .value = 5, .flags = U},
	};
	/* fid 1: 0 1 then fid 2 starts anew; 2: 0 alone; 3: 0 alone. */
	const struct ev a1[] = {{.fid = 1, .value = 0}, {.fid = 1, .value = 1}},
			a2[] = {{.fid = 2, .value = 0}}, a3[] = {{.fid = 3, .value = 0}},
			a4[] = {{.fid = 2, .value = 5}};
	const struct ev *segs[] = {a1, a2, a3, a4};
	const size_t lens[] = {2, 1, 1, 1};
	(void)state;

	for (unsigned k = 1; k <= 4; k++) {
		struct ngram_ref *ref = ngram_ref_build(segs, lens, 4, k);
		struct kipf *f = forest_of_run(run, 5, k, 0, NULL);
		forest_check(f, ref, 0);
		kipf_free(f);
		ngram_ref_free(ref);
	}
}

/* f enters, calls g, g calls f (recursion), the inner f longjmps out to a
 * point in the OUTER f: the records cannot tell, and the innermost live f
 * (the inner one) continues, as documented.  Then a resumed g that is not
 * live, with known kinds, drops everything and starts alone. */
static void test_ambiguous_longjmp_and_outer_resume(void **state)
{
	const unsigned E = KACT_ENTRY, R = KACT_RETURN;
	const struct act_ev run[] = {
	    {.fid = 1, .value = 0, .flags = E}, /* outer f, ends at a call */
	    {.fid = 2, .value = 0, .flags = E}, /* g, ends at a call */
	    {.fid = 1, .value = 1, .flags = E}, /* inner f, calls longjmp */
	    {.fid = 1, .value = 2, .flags = 0}, /* resumes: taken as the inner f */
	    {.fid = 1, .value = 3, .flags = R}, /* inner f returns */
	    {.fid = 2, .value = 1, .flags = 0}, /* g continues */
	    {.fid = 3, .value = 0, .flags = 0}, /* h, not live: outer to all */
	    {.fid = 1, .value = 4, .flags = 0}, /* f, no longer live: alone */
	};
	const struct ev o[] = {{.fid = 1, .value = 0}},
			g[] = {{.fid = 2, .value = 0}, {.fid = 2, .value = 1}},
			in[] = {{.fid = 1, .value = 1},
				{.fid = 1, .value = 2},
				{.fid = 1, .value = 3}},
			h[] = {{.fid = 3, .value = 0}}, f2[] = {{.fid = 1, .value = 4}};
	const struct ev *segs[] = {o, g, in, h, f2};
	const size_t lens[] = {1, 2, 3, 1, 1};
	(void)state;

	for (unsigned k = 1; k <= 4; k++) {
		struct ngram_ref *ref = ngram_ref_build(segs, lens, 5, k);
		struct kipf *f = forest_of_run(run, sizeof(run) / sizeof(run[0]), k, 0, NULL);
		forest_check(f, ref, 0);
		kipf_free(f);
		ngram_ref_free(ref);
	}
}

/* A cost for record i of a run: most records unsampled, the others 1..5. */
static double inst_weight(uint64_t i)
{
	return ((i * 2654435761u) >> 7) % 6 == 0 ? (double)(1 + i % 5) : 0;
}

/* The brute force: every window of <= k items of every sequence, its cost
 * the sum of its instances' weights, added to the k-IPF node of its
 * labels (which must exist). */
static void windows_cost(struct kipf *f, const struct ev *seq, size_t n, unsigned k, double *want)
{
	for (size_t s = 0; s < n; s++) {
		uint32_t node = 0;
		double sum = 0;
		for (size_t e = s; e < n && e - s < k; e++) {
			node = kipf_find(f, node, seq[e].fid, seq[e].value);
			assert_true(node != 0);
			sum += inst_weight(seq[e].at);
			want[node] += sum;
		}
	}
}

/* kipf_inst_cost.h: per-instance costs in both views equal the brute force
 * over the truth's sequences (per activation: the generator's own; flat:
 * the records between marks), node by node; and they differ from count x
 * per-path average costs, which only an estimate would give. */
static void test_instance_costs(void **state)
{
	static const unsigned ks[] = {1, 2, 3, 5, 16};
	(void)state;

	for (unsigned ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++)
		for (int flat = 0; flat < 2; flat++) {
			unsigned k = ks[ki];
			struct act_run r;
			struct kslab *s = kslab_new(k, 0);
			struct kipf *f = kipf_new(k);
			struct kipf_inst_cost *c = kipf_inst_cost_new(k);
			struct kact a;
			double *got, *want, *avg, *unit;
			int differs = 0;

			assert_non_null(s);
			assert_non_null(f);
			assert_non_null(c);
			act_run_generate(&r, 500 + k, 3000, 3, 4);
			kact_init(&a, s);
			for (size_t i = 0; i < r.n; i++) {
				const struct act_ev *e = &r.ev[i];
				if (e->mark) {
					if (flat)
						kslab_mark(s);
					else
						kact_mark(&a);
					kipf_inst_cost_end(c);
					continue;
				}
				if (flat)
					assert_int_equal(kslab_item(s, e->fid, e->value), 0);
				else
					assert_int_equal(kact_item(&a, e->fid, e->value, e->flags),
							 0);
				assert_int_equal(
				    kipf_inst_cost_item(c, s, e->fid, e->value, inst_weight(i)), 0);
			}
			kipf_inst_cost_end(c);
			assert_int_equal(kipf_add_kslab(f, s), 0);
			assert_int_equal(kipf_sort(f), 0);
			got = calloc(f->nnodes + 1, sizeof(*got));
			want = calloc(f->nnodes + 1, sizeof(*want));
			unit = calloc(f->nnodes + 1, sizeof(*unit));
			assert_non_null(got);
			assert_non_null(want);
			assert_non_null(unit);
			kipf_inst_cost_apply(c, f, got);
			if (flat) {
				struct ev *seq = calloc(r.n, sizeof(*seq));
				size_t n = 0;
				assert_non_null(seq);
				for (size_t i = 0; i <= r.n; i++) {
					if (i == r.n || r.ev[i].mark) {
						windows_cost(f, seq, n, k, want);
						n = 0;
						continue;
					}
					seq[n++] = (struct ev){
					    .fid = r.ev[i].fid, .value = r.ev[i].value, .at = i};
				}
				free(seq);
			} else {
				for (size_t j = 0; j < r.nsegs; j++)
					windows_cost(f, r.segs[j], r.seg_len[j], k, want);
			}
			/* The per-path average each 1-path's cost gives. */
			for (uint32_t i = 0; i < f->nroots; i++)
				unit[f->roots[i]] =
				    want[f->roots[i]] / (double)f->nodes[f->roots[i]].count;
			avg = kipf_node_costs(f, unit);
			assert_non_null(avg);
			for (uint32_t i = 1; i <= f->nnodes; i++) {
				assert_true(got[i] == want[i]);
				differs += avg[i] > want[i] + 0.5 || avg[i] < want[i] - 0.5;
			}
			assert_true(k == 1 || differs > 0);
			free(avg);
			free(unit);
			free(got);
			free(want);
			kipf_inst_cost_free(c);
			kact_fini(&a);
			kipf_free(f);
			kslab_free(s);
			act_run_free(&r);
		}
}

/* kipf_inst_cost_run: a run of one label fed whole (the forest's run step,
 * then the run's sampled instances) costs every node exactly what the run
 * fed item by item does, for runs short and long (up to 5000), sampled
 * densely, sparsely or not at all, in both views, for k = 1..16. */
static void test_instance_cost_runs(void **state)
{
	static const unsigned ks[] = {1, 2, 3, 4, 7, 16};
	(void)state;

	for (unsigned ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++)
		for (int flat = 0; flat < 2; flat++) {
			unsigned k = ks[ki];
			struct kslab *s1 = kslab_new(k, 0), *s2 = kslab_new(k, 0);
			struct kipf_inst_cost *c1 = kipf_inst_cost_new(k),
					      *c2 = kipf_inst_cost_new(k);
			struct kipf *f = kipf_new(k);
			struct kipf_inst_weight w[64];
			struct kact a1, a2;
			uint64_t rng = 77 + k, event = 0;
			double *got, *want;

			assert_true(s1 && s2 && c1 && c2 && f);
			kact_init(&a1, s1);
			kact_init(&a2, s2);
			for (int run = 0; run < 400; run++) {
				rng = rng * 6364136223846793005u + 1442695040888963407u;
				uint32_t fid = 1 + (uint32_t)(rng >> 60) % 3;
				uint64_t value = (rng >> 50) % 4;
				uint64_t times = (rng >> 33) % 7 == 0 ? 1 + (rng >> 20) % 5000
								      : 1 + (rng >> 40) % 12;
				unsigned density = (unsigned)(rng >> 12) % 4; /* 0: unsampled */
				size_t nw = 0;
				if ((rng >> 8) % 23 == 0) { /* a mark now and then */
					if (flat) {
						kslab_mark(s1);
						kslab_mark(s2);
					} else {
						kact_mark(&a1);
						kact_mark(&a2);
					}
					kipf_inst_cost_end(c1);
					kipf_inst_cost_end(c2);
				}
				for (uint64_t i = 0; i < times; i++) {
					double cost = 0;
					uint64_t h = (event + i) * 2654435761u >> 5;
					if (density &&
					    h % (density == 1	? 2
						 : density == 2 ? 97
								: 1009) ==
						0 &&
					    nw + 2 <= sizeof(w) / sizeof(w[0])) {
						cost = (double)(1 + h % 7);
						w[nw++] =
						    (struct kipf_inst_weight){event + i, cost / 2};
						w[nw++] =
						    (struct kipf_inst_weight){event + i, cost / 2};
					}
					if (flat)
						assert_int_equal(kslab_item(s1, fid, value), 0);
					else
						assert_int_equal(kact_item(&a1, fid, value, 0), 0);
					assert_int_equal(
					    kipf_inst_cost_item(c1, s1, fid, value, cost), 0);
				}
				if (flat)
					assert_int_equal(kslab_item_run(s2, fid, value, times), 0);
				else
					assert_int_equal(kact_item_run(&a2, fid, value, 0, times),
							 0);
				assert_int_equal(
				    kipf_inst_cost_run(c2, s2, fid, value, times, event, w, nw), 0);
				event += times;
			}
			kipf_inst_cost_end(c1);
			kipf_inst_cost_end(c2);
			assert_int_equal(kipf_add_kslab(f, s1), 0);
			assert_int_equal(kipf_sort(f), 0);
			got = calloc(f->nnodes + 1, sizeof(*got));
			want = calloc(f->nnodes + 1, sizeof(*want));
			assert_true(got && want);
			kipf_inst_cost_apply(c1, f, want);
			kipf_inst_cost_apply(c2, f, got);
			for (uint32_t i = 1; i <= f->nnodes; i++)
				assert_true(got[i] == want[i]);
			free(got);
			free(want);
			kact_fini(&a1);
			kact_fini(&a2);
			kipf_free(f);
			kipf_inst_cost_free(c1);
			kipf_inst_cost_free(c2);
			kslab_free(s1);
			kslab_free(s2);
		}
}

/* kipf_cost.h: each node costs count x the sum of its labels' unit costs,
 * recomputed here by walking up from the node. */
static void test_costs(void **state)
{
	struct act_run r;
	(void)state;

	act_run_generate(&r, 4242, 2000, 3, 4);
	struct kipf *f = forest_of_run(r.ev, r.n, 6, 0, NULL);
	double *unit = calloc((size_t)f->nnodes + 1, sizeof(*unit));
	assert_non_null(unit);
	for (uint32_t i = 0; i < f->nroots; i++) {
		const struct kipf_node *nd = &f->nodes[f->roots[i]];
		unit[f->roots[i]] = (double)(nd->fid * 10 + nd->value);
	}
	double *cost = kipf_node_costs(f, unit);
	assert_non_null(cost);
	for (uint32_t i = 1; i <= f->nnodes; i++) {
		uint64_t sum = 0;
		for (uint32_t a = i; a; a = f->nodes[a].parent)
			sum += f->nodes[a].fid * 10u + f->nodes[a].value;
		assert_true(cost[i] == (double)(f->nodes[i].count * sum));
	}
	free(cost);
	free(unit);
	kipf_free(f);
	act_run_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_runs_all_k),
	    cmocka_unit_test(test_pruning_with_suspended_activations),
	    cmocka_unit_test(test_pruning_deep_recursion),
	    cmocka_unit_test(test_unknown_kinds),
	    cmocka_unit_test(test_ambiguous_longjmp_and_outer_resume),
	    cmocka_unit_test(test_costs),
	    cmocka_unit_test(test_instance_costs),
	    cmocka_unit_test(test_instance_cost_runs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
