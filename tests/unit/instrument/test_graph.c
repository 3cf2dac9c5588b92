/* SPDX-License-Identifier: MIT */
/*
 * test_graph.c — the LLVM-independent path algorithms (dag, numbering,
 * placement, weights) against brute force on many random CFGs:
 *   - every ENTRY->EXIT path of the DAG gets an id, ids are exactly 0..N-1;
 *   - the sum of placed increments along each path equals its id;
 *   - decoding an id (largest val not above the remainder) gives the path;
 *   - simulated executions of the CFG (random walks with the same register
 *     semantics the pass emits) decode back to the block sequence walked;
 *   - overflow: wide and truncated numbering with small limits and with the
 *     real limits on long chains of diamonds;
 *   - runs (runs.h): the same walks recorded the way qualifying loops
 *     record (count repeats of the last back-edge word, write the count
 *     when the word changes or the loop is left) expand to exactly the
 *     plain records, and no other record ever happens while a count is
 *     pending; loop eligibility on hand-made shapes.
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
#include "instrument/runs.h"
#include "instrument/weights.h"
#include "wpp/meta_format.h"
#include "wpp/trace_abi.h"

#define TEST_RNG_SEED UINT64_C(0x9e3779b97f4a7c15)
#include "test_rng.h"

#define MAXB 256
#define MAXE 512

struct test_cfg {
	struct wpp_cfg cfg;
	uint32_t src[MAXE], dst[MAXE];
	uint8_t flags[MAXB], exits[MAXB];
};

static int has_edge(const struct test_cfg *t, uint32_t u, uint32_t v)
{
	for (uint32_t e = 0; e < t->cfg.nedges; e++)
		if (t->src[e] == u && t->dst[e] == v)
			return 1;
	return 0;
}

static void add_edge(struct test_cfg *t, uint32_t u, uint32_t v)
{
	if (has_edge(t, u, v) || t->cfg.nedges >= MAXE)
		return;
	t->src[t->cfg.nedges] = u;
	t->dst[t->cfg.nedges] = v;
	t->cfg.nedges++;
}

static void finish_cfg(struct test_cfg *t, uint32_t n)
{
	t->cfg.nblocks = n;
	t->cfg.edge_src = t->src;
	t->cfg.edge_dst = t->dst;
	t->cfg.block_flags = t->flags;
	t->cfg.block_exit = t->exits;
}

/* A random CFG shaped like what the IR side produces: blocks with 0..3
 * successors (forward and backward), some returns/unreachables, some call
 * heads, an occasional indirect-branch source whose targets are pinned. */
static void random_cfg_p(struct test_cfg *t, uint32_t n, uint32_t exit_one_in, uint32_t call_one_in,
			 uint32_t back_one_in, uint32_t min_succ)
{
	memset(t, 0, sizeof(*t));
	for (uint32_t u = 0; u < n; u++) {
		uint32_t r = rnd_below(exit_one_in);
		if (r == 0 || u == n - 1) {
			t->exits[u] = rnd_below(4) ? WPP_CFG_EXIT_RETURN : WPP_CFG_EXIT_NORETURN;
			continue;
		}
		uint32_t nsucc = min_succ + rnd_below(4 - min_succ);
		for (uint32_t k = 0; k < nsucc; k++) {
			uint32_t span = rnd_below(2) ? n - u - 1 : (n - u - 1 < 3 ? n - u - 1 : 3);
			uint32_t v = rnd_below(back_one_in) == 0 ? rnd_below(n) : u + 1 + rnd_below(span);
			if (v == 0)
				v = 1 + rnd_below(n - 1);
			add_edge(t, u, v);
		}
		if (rnd_below(12) == 0)
			t->flags[u] |= WPP_CFGB_INDIRECT_SRC;
	}
	for (uint32_t v = 1; v < n; v++)
		if (rnd_below(call_one_in) == 0)
			t->flags[v] |= WPP_CFGB_CALL_HEAD;
	/* targets of indirect sources cannot take code on their in-edges */
	for (uint32_t e = 0; e < t->cfg.nedges; e++)
		if (t->flags[t->src[e]] & WPP_CFGB_INDIRECT_SRC)
			t->flags[t->dst[e]] |= WPP_CFGB_PINNED;
	finish_cfg(t, n);
}

static void random_cfg(struct test_cfg *t, uint32_t n) { random_cfg_p(t, n, 10, 5, 4, 1); }

/* ---- brute force over the DAG ---- */
struct enum_state {
	const struct wpp_dag *d;
	uint32_t path[MAXB + 4];  /* edge indices */
	uint64_t count, limit;
	uint8_t *seen_ids;        /* bitmap over 0..npaths-1 when small */
};

static void check_decode(const struct wpp_dag *d, const uint32_t *ord, uint64_t id, const uint32_t *path,
			 uint32_t len)
{
	uint32_t v = WPP_DAG_ENTRY(d->nblocks), k = 0;
	uint64_t rem = id;
	while (v != WPP_DAG_EXIT(d->nblocks)) {
		uint32_t best = WPP_NONE;
		for (uint32_t i = 0; i < d->nedges; i++) {
			const struct wpp_dag_edge *e = &d->edges[ord[i]];
			if (e->src == v && e->val <= rem)
				best = ord[i]; /* ord is by (src, val): the last one wins */
		}
		assert_true(best != WPP_NONE);
		assert_true(k < len);
		assert_int_equal(best, path[k]);
		rem -= d->edges[best].val;
		v = d->edges[best].dst;
		k++;
	}
	assert_int_equal(k, len);
	assert_int_equal(rem, 0);
}

static void enumerate(struct enum_state *s, const uint32_t *ord, uint32_t v, uint32_t depth)
{
	const struct wpp_dag *d = s->d;
	assert_true(depth <= d->nblocks + 2); /* acyclic: no path longer than the node count */
	if (v == WPP_DAG_EXIT(d->nblocks)) {
		uint64_t id = 0, incsum = 0;
		for (uint32_t k = 0; k < depth; k++) {
			id += d->edges[s->path[k]].val;
			incsum += d->edges[s->path[k]].inc;
		}
		assert_true(id < d->npaths);
		assert_int_equal(incsum, id);
		if (s->seen_ids) {
			assert_false(s->seen_ids[id]);
			s->seen_ids[id] = 1;
		}
		check_decode(d, ord, id, s->path, depth);
		s->count++;
		return;
	}
	for (uint32_t i = 0; i < d->nedges; i++)
		if (d->edges[i].src == v) {
			s->path[depth] = i;
			enumerate(s, ord, d->edges[i].dst, depth + 1);
		}
}

static void random_weights(const struct wpp_dag *d, double *w)
{
	for (uint32_t i = 0; i < d->nedges; i++)
		w[i] = (double)rnd_below(100);
}

/* Structural checks tying the DAG to the CFG. */
static void check_structure(const struct test_cfg *t, const struct wpp_dag *d)
{
	uint32_t n = t->cfg.nblocks;
	for (uint32_t e = 0; e < t->cfg.nedges; e++) {
		const struct wpp_dag_edge *de = &d->edges[d->cfg_edge_dag[e]];
		uint32_t u = t->src[e], v = t->dst[e];
		assert_int_equal(de->src, u);
		if (de->kind == WPP_EDGE_REAL) {
			assert_int_equal(de->dst, v);
			assert_false(d->restart_at_start[v]);
		} else {
			assert_int_equal(de->dst, WPP_DAG_EXIT(n));
			assert_true(d->entry_edge[v] != WPP_NONE);
			if (t->flags[v] & (WPP_CFGB_CALL_HEAD | WPP_CFGB_PINNED))
				assert_true(d->restart_at_start[v]);
		}
		if (t->flags[v] & WPP_CFGB_CALL_HEAD)
			assert_true(de->kind == WPP_EDGE_CALL_EXIT || de->kind == WPP_EDGE_CUT_EXIT);
	}
}

/* Simulates executions: random walks over the CFG with exactly the register
 * semantics the pass emits, then decodes the recorded ids and compares the
 * block sequences. */
/* Run-length recording as the pass emits it (ir_probes.h), into out[]:
 * a record is {word, 0}, a REPEAT word {0, n}.  last holds word + 1 (0 =
 * none), since an id of 0 is a valid word here (no fid bits).
 *
 * mutant: a plausible wrong design for loop nests, one (last, count) pair
 * per back-edge target (loop header) instead of one per region, each
 * flushed only when its own word changes or the region is left.  Its
 * REPEAT words land after other loops' records, so expanding them must
 * fail somewhere: the check below is shown able to catch it. */
struct run_rec {
	uint64_t word, repeat;
};
struct run_sim {
	const struct test_cfg *t;
	const uint8_t *role;
	int mutant;
	struct run_rec out[800];
	uint32_t nout;
	uint64_t last[MAXB], count[MAXB]; /* [0] only, unless mutant */
};

static uint64_t run_loops_seen, repeats_seen; /* the run checks ran at all */
static uint64_t run_calls_seen; /* calls walked to from inside a run */

static void run_flush(struct run_sim *s, uint32_t pair)
{
	if (s->count[pair])
		s->out[s->nout++] = (struct run_rec){0, s->count[pair]};
	s->count[pair] = 0;
}

static void run_edge(struct run_sim *s, uint32_t e)
{
	if (s->role[e] != WPP_RUN_EXIT)
		return;
	for (uint32_t pair = 0; pair < (s->mutant ? MAXB : 1); pair++) {
		run_flush(s, pair);
		s->last[pair] = 0;
	}
}

static void run_record(struct run_sim *s, uint32_t e, uint64_t word)
{
	if (e != WPP_NONE && s->role[e] == WPP_RUN_BACK) {
		uint32_t pair = s->mutant ? s->t->dst[e] : 0;
		if (word + 1 == s->last[pair]) {
			s->count[pair]++;
			repeats_seen++;
			return;
		}
		run_flush(s, pair);
		s->last[pair] = word + 1;
	} else {
		/* any other record: no run may be pending */
		for (uint32_t pair = 0; pair < (s->mutant ? MAXB : 1); pair++) {
			assert_int_equal(s->count[pair], 0);
			assert_int_equal(s->last[pair], 0);
		}
	}
	s->out[s->nout++] = (struct run_rec){word, 0};
}

/* Whether the run records expanded, plus the counts still pending, are
 * exactly the plain records. */
static int runs_expand_to(struct run_sim *s, const uint64_t *rec, uint32_t nrec)
{
	uint32_t k = 0;
	uint64_t prev = 0;
	int have = 0;
	for (uint32_t pair = 0; pair < (s->mutant ? MAXB : 1); pair++)
		run_flush(s, pair);
	for (uint32_t i = 0; i < s->nout; i++) {
		if (s->out[i].repeat) {
			if (!have)
				return 0;
			for (uint64_t j = 0; j < s->out[i].repeat; j++)
				if (k >= nrec || rec[k++] != prev)
					return 0;
			continue;
		}
		if (k >= nrec || rec[k++] != s->out[i].word)
			return 0;
		prev = s->out[i].word, have = 1;
	}
	return k == nrec;
}

static uint64_t mutant_walks_caught; /* walks where the mutant's expansion failed */

/* Run options for the random walks: every combination gets exercised,
 * unless a test forces one. */
static const struct wpp_runs_opts *forced_run_opts;

static struct wpp_runs_opts random_run_opts(void)
{
	if (forced_run_opts)
		return *forced_run_opts;
	static const double min_records[] = {0, 2, 8, 30};
	return (struct wpp_runs_opts){rnd_below(4), min_records[rnd_below(4)],
				      (enum wpp_runs_nests)rnd_below(3), (int)rnd_below(2)};
}

static void simulate(const struct test_cfg *t, const struct wpp_dag *d, const uint32_t *ord)
{
	uint32_t n = t->cfg.nblocks;
	uint8_t *role = malloc(t->cfg.nedges + 1);
	struct wpp_runs_opts opts = random_run_opts();
	int nloops = wpp_runs_find(&t->cfg, d, NULL, &opts, role);
	assert_true(nloops >= 0);
	run_loops_seen += (uint64_t)nloops;
	for (int run = 0; run < 20; run++) {
		uint32_t walked[400], nw = 0, decoded[800], nd = 0;
		uint64_t rec[400];
		uint32_t nrec = 0;
		uint32_t b = 0;
		uint64_t r = d->edges[d->entry_edge[0]].inc;
		struct run_sim *rs = calloc(2, sizeof(*rs));
		rs[0] = (struct run_sim){.t = t, .role = role};
		rs[1] = (struct run_sim){.t = t, .role = role, .mutant = 1};
		for (;;) {
			walked[nw++] = b;
			uint32_t outs[MAXE], no = 0;
			for (uint32_t e = 0; e < t->cfg.nedges; e++)
				if (t->src[e] == b)
					outs[no++] = e;
			int leave = t->exits[b] != WPP_CFG_EXIT_NONE || no == 0;
			if (leave || nw >= 300) {
				uint32_t x = d->exit_edge[b];
				if (x != WPP_NONE && d->edges[x].kind == WPP_EDGE_RETURN) {
					rec[nrec++] = r + d->edges[x].inc;
					run_record(&rs[0], WPP_NONE, r + d->edges[x].inc);
					run_record(&rs[1], WPP_NONE, r + d->edges[x].inc);
				} else
					nw--, walked[nw] = 0; /* path not recorded: drop its blocks below */
				break;
			}
			uint32_t e = outs[rnd_below(no)];
			uint32_t v = t->dst[e];
			const struct wpp_dag_edge *de = &d->edges[d->cfg_edge_dag[e]];
			/* a call reached while the region holds a last word */
			run_calls_seen += de->kind == WPP_EDGE_CALL_EXIT && rs[0].last[0] != 0;
			run_edge(&rs[0], e), run_edge(&rs[1], e);
			if (de->kind == WPP_EDGE_REAL) {
				r += de->inc;
			} else {
				rec[nrec++] = r + de->inc;
				run_record(&rs[0], e, r + de->inc);
				run_record(&rs[1], e, r + de->inc);
				r = d->edges[d->entry_edge[v]].inc;
			}
			b = v;
		}
		/* decode */
		for (uint32_t k = 0; k < nrec; k++) {
			uint32_t v = WPP_DAG_ENTRY(n);
			uint64_t rem = rec[k];
			assert_true(rem < d->npaths);
			while (v != WPP_DAG_EXIT(n)) {
				uint32_t best = WPP_NONE;
				for (uint32_t i = 0; i < d->nedges; i++)
					if (d->edges[ord[i]].src == v && d->edges[ord[i]].val <= rem)
						best = ord[i];
				assert_true(best != WPP_NONE);
				rem -= d->edges[best].val;
				v = d->edges[best].dst;
				if (v < n)
					decoded[nd++] = v;
			}
		}
		/* The walk's last path is unrecorded when it ended in a
		 * NORETURN/indirect dead end or the step cap: compare the prefix. */
		assert_true(nd <= nw + 1);
		for (uint32_t k = 0; k < nd; k++)
			assert_int_equal(decoded[k], walked[k]);
		if (nrec && t->exits[walked[nw ? nw - 1 : 0]] == WPP_CFG_EXIT_RETURN)
			assert_int_equal(nd, nw);
		assert_true(runs_expand_to(&rs[0], rec, nrec));
		mutant_walks_caught += !runs_expand_to(&rs[1], rec, nrec);
		free(rs);
	}
	free(role);
}

static void run_one(struct test_cfg *t, uint64_t narrow, uint64_t wide, int expect_small)
{
	struct wpp_dag d;
	assert_int_equal(wpp_dag_build(&d, &t->cfg), 0);
	check_structure(t, &d);
	assert_int_equal(wpp_dag_number(&d, narrow, wide), 0);
	assert_true(d.npaths >= 1 && d.npaths <= wide);
	if (!d.wide)
		assert_true(d.npaths < narrow);
	double *w = malloc(d.nedges * sizeof(double));
	if (rnd_below(2))
		random_weights(&d, w);
	else
		assert_int_equal(wpp_weights_static(&(struct wpp_weight_input){&t->cfg, &d, NULL}, w), 0);
	assert_int_equal(wpp_dag_place(&d, w), 0);
	free(w);
	/* increments: tree edges carry 0 */
	for (uint32_t i = 0; i < d.nedges; i++)
		if (d.edges[i].in_tree)
			assert_int_equal(d.edges[i].inc, 0);
	uint32_t *ord = wpp_dag_meta_order(&d);
	assert_non_null(ord);
	struct enum_state s = {.d = &d};
	if (expect_small && d.npaths <= 200000) {
		s.seen_ids = calloc(d.npaths, 1);
		enumerate(&s, ord, WPP_DAG_ENTRY(d.nblocks), 0);
		assert_int_equal(s.count, d.npaths);
		free(s.seen_ids);
	}
	simulate(t, &d, ord);
	free(ord);
	wpp_dag_free(&d);
}

static void test_random_cfgs(void **state)
{
	(void)state;
	struct test_cfg *t = malloc(sizeof(*t));
	for (int iter = 0; iter < 3000; iter++) {
		random_cfg(t, 2 + rnd_below(11));
		run_one(t, WPP_NARROW_PATH_LIMIT, WPP_WIDE_PATH_LIMIT, 1);
	}
	free(t);
}

static void test_random_cfgs_tiny_limits(void **state)
{
	(void)state;
	struct test_cfg *t = malloc(sizeof(*t));
	int truncated = 0;
	for (int iter = 0; iter < 3000; iter++) {
		random_cfg_p(t, 8 + rnd_below(23), 40, 30, 20, 2);
		struct wpp_dag d;
		assert_int_equal(wpp_dag_build(&d, &t->cfg), 0);
		assert_int_equal(wpp_dag_number(&d, 4, 256), 0);
		truncated += d.truncated;
		wpp_dag_free(&d);
		run_one(t, 4, 256, 1);
	}
	assert_true(truncated > 10); /* the limits really did bite */
	free(t);
}

/* chain of k diamonds: 2^k paths. */
static void diamonds(struct test_cfg *t, uint32_t k)
{
	memset(t, 0, sizeof(*t));
	uint32_t n = 3 * k + 1;
	for (uint32_t i = 0; i < k; i++) {
		uint32_t a = 3 * i;
		add_edge(t, a, a + 1);
		add_edge(t, a, a + 2);
		add_edge(t, a + 1, a + 3);
		add_edge(t, a + 2, a + 3);
	}
	t->exits[n - 1] = WPP_CFG_EXIT_RETURN;
	finish_cfg(t, n);
}

static void sample_paths(const struct test_cfg *t, struct wpp_dag *d)
{
	uint32_t *ord = wpp_dag_meta_order(d);
	for (int run = 0; run < 200; run++) {
		uint32_t v = WPP_DAG_ENTRY(d->nblocks), path[MAXB + 4], len = 0;
		uint64_t id = 0, incsum = 0;
		while (v != WPP_DAG_EXIT(d->nblocks)) {
			uint32_t outs[MAXB], no = 0;
			for (uint32_t i = 0; i < d->nedges; i++)
				if (d->edges[i].src == v)
					outs[no++] = i;
			uint32_t e = outs[rnd_below(no)];
			path[len++] = e;
			id += d->edges[e].val;
			incsum += d->edges[e].inc;
			v = d->edges[e].dst;
		}
		assert_true(id < d->npaths);
		assert_int_equal(incsum, id);
		check_decode(d, ord, id, path, len);
	}
	free(ord);
	(void)t;
}

static void test_overflow_real_limits(void **state)
{
	(void)state;
	struct test_cfg *t = malloc(sizeof(*t));
	struct { uint32_t k; int wide, truncated; } cases[] = {
		{39, 0, 0}, {40, 1, 0}, {41, 1, 0}, {63, 1, 0}, {64, 1, 1}, {80, 1, 1},
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		diamonds(t, cases[c].k);
		struct wpp_dag d;
		assert_int_equal(wpp_dag_build(&d, &t->cfg), 0);
		assert_int_equal(wpp_dag_number(&d, WPP_NARROW_PATH_LIMIT, WPP_WIDE_PATH_LIMIT), 0);
		assert_int_equal(d.wide, cases[c].wide);
		assert_int_equal(d.truncated, cases[c].truncated);
		if (!cases[c].truncated)
			assert_int_equal(d.npaths, UINT64_C(1) << cases[c].k);
		else
			assert_true(d.npaths <= WPP_WIDE_PATH_LIMIT);
		double *w = calloc(d.nedges, sizeof(double));
		assert_int_equal(wpp_dag_place(&d, w), 0);
		free(w);
		sample_paths(t, &d);
		wpp_dag_free(&d);
	}
	free(t);
}

static void test_simple_shapes(void **state)
{
	(void)state;
	struct test_cfg t;
	/* while loop: 0 -> 1 ; 1 -> 2, 3 ; 2 -> 1 ; 3 ret */
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 1, 2), add_edge(&t, 1, 3), add_edge(&t, 2, 1);
	t.exits[3] = WPP_CFG_EXIT_RETURN;
	finish_cfg(&t, 4);
	struct wpp_dag d;
	assert_int_equal(wpp_dag_build(&d, &t.cfg), 0);
	assert_int_equal(wpp_dag_number(&d, WPP_NARROW_PATH_LIMIT, WPP_WIDE_PATH_LIMIT), 0);
	/* paths: E0 1 2 X(back), E0 1 3 X, E1 2 X, E1 3 X */
	assert_int_equal(d.npaths, 4);
	assert_true(d.loop_header[1]);
	assert_int_equal(d.edges[d.cfg_edge_dag[3]].kind, WPP_EDGE_BACK_EXIT);
	assert_int_equal(d.edges[d.entry_edge[1]].kind, WPP_EDGE_BACK_ENTRY);
	wpp_dag_free(&d);
	/* call head first in a block with two preds: both in-edges are CALL cuts */
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 0, 2), add_edge(&t, 1, 3), add_edge(&t, 2, 3);
	t.flags[3] = WPP_CFGB_CALL_HEAD;
	t.exits[3] = WPP_CFG_EXIT_RETURN;
	finish_cfg(&t, 4);
	assert_int_equal(wpp_dag_build(&d, &t.cfg), 0);
	assert_int_equal(wpp_dag_number(&d, WPP_NARROW_PATH_LIMIT, WPP_WIDE_PATH_LIMIT), 0);
	assert_int_equal(d.npaths, 3); /* E0 1 X, E0 2 X, E3 X */
	assert_true(d.restart_at_start[3]);
	assert_int_equal(d.edges[d.cfg_edge_dag[2]].kind, WPP_EDGE_CALL_EXIT);
	wpp_dag_free(&d);
	/* a loop whose body calls: 0 -> 1 ; 1 -> 2, 4 ; 2 (call head) -> 3 ;
	 * 3 -> 1 ; 4 ret.  The call cut breaks the only cycle, so the
	 * retreating edge 3 -> 1 stays REAL: paths E0 1 2c, E0 1 4 X, E2 3 1 2c,
	 * E2 3 1 4 X — one record per iteration, none at the back edge. */
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 1, 2), add_edge(&t, 1, 4), add_edge(&t, 2, 3);
	add_edge(&t, 3, 1);
	t.flags[2] = WPP_CFGB_CALL_HEAD;
	t.exits[4] = WPP_CFG_EXIT_RETURN;
	finish_cfg(&t, 5);
	assert_int_equal(wpp_dag_build(&d, &t.cfg), 0);
	assert_int_equal(wpp_dag_number(&d, WPP_NARROW_PATH_LIMIT, WPP_WIDE_PATH_LIMIT), 0);
	assert_true(d.cfg_edge_retreating[4] && d.loop_header[1]);
	assert_int_equal(d.edges[d.cfg_edge_dag[4]].kind, WPP_EDGE_REAL);
	assert_int_equal(d.entry_edge[1], WPP_NONE);
	assert_int_equal(d.npaths, 4);
	wpp_dag_free(&d);
	/* the same loop with a second, call-free way round (1 -> 5 -> 1): that
	 * cycle needs its cut, and the retreating edge on it is the one cut */
	add_edge(&t, 1, 5), add_edge(&t, 5, 1);
	finish_cfg(&t, 6);
	assert_int_equal(wpp_dag_build(&d, &t.cfg), 0);
	for (uint32_t e = 0; e < t.cfg.nedges; e++) {
		int back = t.cfg.edge_src[e] == 5 && t.cfg.edge_dst[e] == 1;
		if (d.cfg_edge_retreating[e])
			assert_int_equal(d.edges[d.cfg_edge_dag[e]].kind,
					 back ? WPP_EDGE_BACK_EXIT : WPP_EDGE_REAL);
		else
			assert_false(back);
	}
	wpp_dag_free(&d);
	/* an interpreter's dispatch: handlers 2, 3 return to the dispatch block
	 * 1, whose terminator is indirectbr (0 -> 1 ; 1 -> 2, 3 ; 2, 3 -> 1):
	 * the indirect cut already ends a path per trip, so the returns to the
	 * dispatch block are REAL and each bytecode is one path. */
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 1, 2), add_edge(&t, 1, 3), add_edge(&t, 2, 1);
	add_edge(&t, 3, 1);
	t.flags[1] = WPP_CFGB_INDIRECT_SRC;
	t.flags[2] = t.flags[3] = WPP_CFGB_PINNED;
	finish_cfg(&t, 4);
	assert_int_equal(wpp_dag_build(&d, &t.cfg), 0);
	for (uint32_t e = 0; e < t.cfg.nedges; e++)
		if (t.cfg.edge_dst[e] == 1)
			assert_int_equal(d.edges[d.cfg_edge_dag[e]].kind, WPP_EDGE_REAL);
	wpp_dag_free(&d);
}

/* Loops whose bodies call on some trips: a chain of diamonds (top -> arm
 * -> join, top -> join) whose arms may be call heads, joins going back to
 * an earlier top now and then, tops leaving to the return block.  A call
 * on an arm rejoins a call-free cycle at the join, so the back edges stay
 * cut and the loops may count runs with the call inside (runs.h, "Calls";
 * a call whose path goes round by itself leaves its loop uncounted, and
 * random_cfg_p rarely makes anything else). */
static void random_call_loops(struct test_cfg *t)
{
	uint32_t k = 1 + rnd_below(4), n = 3 * k + 2, ret = n - 1;
	memset(t, 0, sizeof(*t));
	add_edge(t, 0, 1);
	for (uint32_t i = 0; i < k; i++) {
		uint32_t top = 1 + 3 * i, arm = top + 1, join = top + 2;
		add_edge(t, top, arm), add_edge(t, top, join), add_edge(t, arm, join);
		if (rnd_below(2))
			t->flags[arm] |= WPP_CFGB_CALL_HEAD;
		if (rnd_below(3) == 0)
			add_edge(t, top, ret);
		if (rnd_below(3))
			add_edge(t, join, 1 + 3 * rnd_below(i + 1)); /* back to a top */
		add_edge(t, join, i + 1 < k ? join + 1 : ret);
	}
	t->exits[ret] = WPP_CFG_EXIT_RETURN;
	finish_cfg(t, n);
}

/* CFGs with few calls and indirect branches and many back edges, so that
 * many loops qualify for runs and the walks repeat their paths. */
static void test_random_run_cfgs(void **state)
{
	(void)state;
	struct test_cfg *t = malloc(sizeof(*t));
	run_loops_seen = repeats_seen = mutant_walks_caught = run_calls_seen = 0;
	for (int iter = 0; iter < 5000; iter++) {
		/* then 1000 with whole nests and no limits: the shape the
		 * mutant gets wrong, so it must be caught there; the last 1000
		 * the same with calls inside regions, and more calls */
		static const struct wpp_runs_opts nests = {0, 0, WPP_RUNS_NESTS, 0};
		static const struct wpp_runs_opts nests_calls = {0, 0, WPP_RUNS_NESTS, 1};
		forced_run_opts = iter >= 4000 ? &nests_calls : iter >= 3000 ? &nests : NULL;
		if (iter >= 4000)
			random_call_loops(t);
		else
			random_cfg_p(t, 2 + rnd_below(9), 8, 40, 3, 1);
		for (uint32_t b = 0; b < t->cfg.nblocks; b++)
			t->flags[b] &= (uint8_t)~(WPP_CFGB_INDIRECT_SRC | WPP_CFGB_PINNED);
		run_one(t, WPP_NARROW_PATH_LIMIT, WPP_WIDE_PATH_LIMIT, 1);
	}
	forced_run_opts = NULL;
	free(t);
	fprintf(stderr,
		"runs: %llu regions, %llu repeated records, %llu calls inside regions, %llu walks "
		"caught the mutant\n",
		(unsigned long long)run_loops_seen, (unsigned long long)repeats_seen,
		(unsigned long long)run_calls_seen, (unsigned long long)mutant_walks_caught);
	assert_true(run_loops_seen >= 300);
	assert_true(run_calls_seen >= 100); /* calls inside regions were walked */
	assert_true(repeats_seen >= 1000);
	assert_true(mutant_walks_caught >= 10); /* nests repeated, and the check sees a wrong design */
}

/* Eligibility of hand-made loops: roles per edge, in add_edge order. */
static void expect_runs_opts(struct test_cfg *t, uint32_t n, const uint8_t *veto,
			     struct wpp_runs_opts opts, int nloops, const char *roles)
{
	struct wpp_dag d;
	uint8_t role[MAXE];
	finish_cfg(t, n);
	assert_int_equal(wpp_dag_build(&d, &t->cfg), 0);
	assert_int_equal(wpp_dag_number(&d, WPP_NARROW_PATH_LIMIT, WPP_WIDE_PATH_LIMIT), 0);
	assert_int_equal(wpp_runs_find(&t->cfg, &d, veto, &opts, role), nloops);
	assert_int_equal(strlen(roles), t->cfg.nedges);
	for (uint32_t e = 0; e < t->cfg.nedges; e++)
		assert_int_equal(role[e], roles[e] == 'B' ? WPP_RUN_BACK : roles[e] == 'X' ? WPP_RUN_EXIT : WPP_RUN_NONE);
	wpp_dag_free(&d);
}

static void expect_runs_max(struct test_cfg *t, uint32_t n, const uint8_t *veto, uint32_t max_paths,
			    int nloops, const char *roles)
{
	expect_runs_opts(t, n, veto, (struct wpp_runs_opts){max_paths, 0, 1, 0}, nloops, roles);
}

static void expect_runs(struct test_cfg *t, uint32_t n, const uint8_t *veto, int nloops, const char *roles)
{
	expect_runs_max(t, n, veto, 0, nloops, roles);
}

/* Measured records per entry (wpp_runs_find_measured): the self loop with
 * five exits that the static estimate rejects at min 8 (7.2 records per
 * entry) is taken when the training run went round it 10 times per entry,
 * and the one with three exits it accepts (11.3) is left alone when the
 * run went round it only 3 times; a loop the run never entered keeps the
 * static estimate.  DAG edge counts are set through the CFG edges: the back
 * edge's count on its BACK_EXIT dummy, the entry on 0 -> 1. */
static void expect_runs_measured(struct test_cfg *t, uint32_t n, uint64_t entries, uint64_t backs,
				 int nloops, const char *roles)
{
	struct wpp_dag d;
	uint8_t role[MAXE];
	const struct wpp_runs_opts opts = {0, 8, WPP_RUNS_NESTS, 0};
	finish_cfg(t, n);
	assert_int_equal(wpp_dag_build(&d, &t->cfg), 0);
	assert_int_equal(wpp_dag_number(&d, WPP_NARROW_PATH_LIMIT, WPP_WIDE_PATH_LIMIT), 0);
	uint64_t *count = calloc(d.nedges, sizeof(uint64_t));
	assert_non_null(count);
	for (uint32_t e = 0; e < t->cfg.nedges; e++) {
		uint32_t u = t->cfg.edge_src[e], v = t->cfg.edge_dst[e];
		count[d.cfg_edge_dag[e]] = u == 0 ? entries : u == v ? backs : 0;
	}
	assert_int_equal(wpp_runs_find_measured(&t->cfg, &d, NULL, &opts, count, role), nloops);
	for (uint32_t e = 0; e < t->cfg.nedges; e++)
		assert_int_equal(role[e], roles[e] == 'B' ? WPP_RUN_BACK : roles[e] == 'X' ? WPP_RUN_EXIT : WPP_RUN_NONE);
	free(count);
	wpp_dag_free(&d);
}

static void test_run_loops_measured(void **state)
{
	(void)state;
	struct test_cfg t;
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 1, 1);
	for (uint32_t k = 2; k <= 6; k++)
		add_edge(&t, 1, k), t.exits[k] = WPP_CFG_EXIT_RETURN;
	expect_runs_measured(&t, 7, 100, 900, 1, ".BXXXXX"); /* 10 per entry */
	expect_runs_measured(&t, 7, 100, 600, 0, ".......");  /* 7 per entry */
	expect_runs_measured(&t, 7, 0, 0, 0, ".......");      /* never ran: static */
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 1, 1), add_edge(&t, 1, 2), add_edge(&t, 1, 3), add_edge(&t, 1, 4);
	t.exits[2] = t.exits[3] = t.exits[4] = WPP_CFG_EXIT_RETURN;
	expect_runs_measured(&t, 5, 100, 200, 0, "....."); /* 3 per entry */
	expect_runs_measured(&t, 5, 100, 700, 1, ".BXXX"); /* exactly 8 */
	expect_runs_measured(&t, 5, 0, 0, 1, ".BXXX");	   /* never ran: static */
}

static void test_run_loops(void **state)
{
	(void)state;
	struct test_cfg t;
	/* do-while: 0 -> 1 ; 1 -> 2 ; 2 -> 1 (back), 3 ; 3 ret */
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 1, 2), add_edge(&t, 2, 1), add_edge(&t, 2, 3);
	t.exits[3] = WPP_CFG_EXIT_RETURN;
	expect_runs(&t, 4, NULL, 1, "..BX");
	/* the same with a call in the body: every iteration is recorded */
	t.flags[2] = WPP_CFGB_CALL_HEAD;
	expect_runs(&t, 4, NULL, 0, "....");
	/* ... also when calls may be in regions: every trip goes through the
	 * call, so the back edge is not cut and there is nothing to count */
	expect_runs_opts(&t, 4, NULL, (struct wpp_runs_opts){0, 0, 1, 1}, 0, "....");
	/* vetoed by the IR side (a memory intrinsic, an invoke) */
	t.flags[2] = 0;
	uint8_t veto[4] = {0, 0, 1, 0};
	expect_runs(&t, 4, veto, 0, "....");
	/* self loop, left to a return block and to a second exit */
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 1, 1), add_edge(&t, 1, 2), add_edge(&t, 1, 3);
	t.exits[2] = t.exits[3] = WPP_CFG_EXIT_RETURN;
	expect_runs(&t, 4, NULL, 1, ".BXX");
	/* exit into a pinned block (landing pad, indirect target): no code
	 * can go on that edge */
	t.flags[3] = WPP_CFGB_PINNED;
	expect_runs(&t, 4, NULL, 0, "....");
	/* nested: the whole nest {1,2,3,4} is one region; both back edges
	 * count runs against the same last word, and only 4 -> 5 leaves */
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 1, 2), add_edge(&t, 2, 3), add_edge(&t, 3, 2);
	add_edge(&t, 3, 4), add_edge(&t, 4, 1), add_edge(&t, 4, 5);
	t.exits[5] = WPP_CFG_EXIT_RETURN;
	expect_runs(&t, 6, NULL, 1, "...B.BX");
	/* innermost loops only: the inner loop {2,3} counts, its exit 3 -> 4
	 * writes the count and the outer back edge records */
	expect_runs_opts(&t, 6, NULL, (struct wpp_runs_opts){0, 0, 0, 0}, 1, "...BX..");
	/* levels: the outer loop's own blocks {1,4} and the inner loop {2,3}
	 * are two regions; 1 -> 2 leaves the outer level into its hole and
	 * 3 -> 4 comes back by leaving the inner one */
	expect_runs_opts(&t, 6, NULL, (struct wpp_runs_opts){0, 0, WPP_RUNS_LEVELS, 0}, 2, ".X.BXBX");
	/* words of the nest: 1 -> 2 -> 3 -> 2 from the header, 2 -> 3 -> 2
	 * and 2 -> 3 -> 4 -> 1 from the inner header, 1 -> 2 -> 3 -> 4 -> 1
	 * from the header: four; a limit of three leaves the nest alone and
	 * takes the inner loop (one word) */
	expect_runs_max(&t, 6, NULL, 4, 1, "...B.BX");
	expect_runs_max(&t, 6, NULL, 3, 1, "...BX..");
	/* a call in the outer loop only: the inner loop counts alone */
	t.flags[4] = WPP_CFGB_CALL_HEAD;
	expect_runs(&t, 6, NULL, 1, "...BX..");
	/* a call in the inner loop only: every cycle goes through the call
	 * cut 2 -> 3, so neither retreating edge ends a path (the path runs
	 * from the call's continuation round to the next call) and there is
	 * no back edge to count, as a nest or as levels */
	t.flags[4] = 0, t.flags[3] = WPP_CFGB_CALL_HEAD;
	expect_runs(&t, 6, NULL, 0, ".......");
	expect_runs_opts(&t, 6, NULL, (struct wpp_runs_opts){0, 0, WPP_RUNS_LEVELS, 0}, 0, ".......");
	/* two nests side by side in one outer loop with a call: each inner
	 * loop is its own region, and 2 -> 3 leaves the first into the second */
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 1, 2), add_edge(&t, 2, 2), add_edge(&t, 2, 3);
	add_edge(&t, 3, 3), add_edge(&t, 3, 4), add_edge(&t, 4, 1), add_edge(&t, 4, 5);
	t.flags[4] = WPP_CFGB_CALL_HEAD;
	t.exits[5] = WPP_CFG_EXIT_RETURN;
	expect_runs(&t, 6, NULL, 2, "..BXBX..");
	/* expected records per entry: a self loop with k exit branches stays
	 * with probability 31 / (31 + k) (LLVM's loop-exit odds), so records
	 * 1 + 31 / k times per entry: k = 3 gives 11.3, k = 5 gives 7.2 */
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 1, 1), add_edge(&t, 1, 2), add_edge(&t, 1, 3), add_edge(&t, 1, 4);
	t.exits[2] = t.exits[3] = t.exits[4] = WPP_CFG_EXIT_RETURN;
	expect_runs_opts(&t, 5, NULL, (struct wpp_runs_opts){0, 8, 1, 0}, 1, ".BXXX");
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 1, 1);
	for (uint32_t k = 2; k <= 6; k++)
		add_edge(&t, 1, k), t.exits[k] = WPP_CFG_EXIT_RETURN;
	expect_runs_opts(&t, 7, NULL, (struct wpp_runs_opts){0, 8, 1, 0}, 0, ".......");
	expect_runs_opts(&t, 7, NULL, (struct wpp_runs_opts){0, 7, 1, 0}, 1, ".BXXXXX");
	/* a call on one branch of the body: 1 -> 2 (call head) -> 3, or
	 * 1 -> 3; 3 -> 1 back, 3 -> 4 leaves.  With calls the loop counts
	 * runs, and the edge into the call writes the count first (X); by
	 * Ball and Larus's call heuristic the branch to the call is taken as
	 * rarely as a loop exit, so the estimate reaches 8 records per entry
	 * (stay 31/32 * 31/32: 16.5) */
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 1, 2), add_edge(&t, 1, 3), add_edge(&t, 2, 3);
	add_edge(&t, 3, 1), add_edge(&t, 3, 4);
	t.flags[2] = WPP_CFGB_CALL_HEAD;
	t.exits[4] = WPP_CFG_EXIT_RETURN;
	expect_runs_opts(&t, 5, NULL, (struct wpp_runs_opts){0, 8, 1, 1}, 1, ".X..BX");
	expect_runs_opts(&t, 5, NULL, (struct wpp_runs_opts){0, 8, 1, 0}, 0, "......");
	/* the heuristic looks through a block that only leads to the call
	 * (1 -> 5 -> 2): still taken rarely */
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 1, 5), add_edge(&t, 5, 2), add_edge(&t, 1, 3);
	add_edge(&t, 2, 3), add_edge(&t, 3, 1), add_edge(&t, 3, 4);
	t.flags[2] = WPP_CFGB_CALL_HEAD;
	t.exits[4] = WPP_CFG_EXIT_RETURN;
	expect_runs_opts(&t, 6, NULL, (struct wpp_runs_opts){0, 8, 1, 1}, 1, "..X..BX");
	/* a call on both branches' way back: each trip ends at a call */
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 1, 2), add_edge(&t, 1, 3), add_edge(&t, 2, 3);
	add_edge(&t, 3, 1), add_edge(&t, 3, 4);
	t.flags[2] = t.flags[3] = WPP_CFGB_CALL_HEAD;
	t.exits[4] = WPP_CFG_EXIT_RETURN;
	expect_runs_opts(&t, 5, NULL, (struct wpp_runs_opts){0, 0, 1, 1}, 0, "......");
	/* entered in the middle (0 -> 2): not a natural loop entry */
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 0, 2), add_edge(&t, 1, 2), add_edge(&t, 2, 1), add_edge(&t, 2, 3);
	t.exits[3] = WPP_CFG_EXIT_RETURN;
	expect_runs(&t, 4, NULL, 0, ".....");
	/* a loop whose body ends in unreachable on one side still counts:
	 * the dead end is outside the loop, reached by an exit edge */
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 1, 2), add_edge(&t, 1, 3), add_edge(&t, 2, 1), add_edge(&t, 2, 4);
	t.exits[3] = WPP_CFG_EXIT_NORETURN;
	t.exits[4] = WPP_CFG_EXIT_RETURN;
	expect_runs(&t, 5, NULL, 1, "..XBX");
	/* iterations: 1 -> 2 -> 4 -> 1 and 1 -> 3 -> 4 -> 1, two paths; a
	 * limit of one path leaves the loop alone, two admit it */
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 1, 2), add_edge(&t, 1, 3), add_edge(&t, 2, 4), add_edge(&t, 3, 4);
	add_edge(&t, 4, 1), add_edge(&t, 4, 5);
	t.exits[5] = WPP_CFG_EXIT_RETURN;
	expect_runs_max(&t, 6, NULL, 1, 0, ".......");
	expect_runs_max(&t, 6, NULL, 2, 1, ".....BX");
	/* one path per iteration (the diamond is only on the way out) */
	memset(&t, 0, sizeof(t));
	add_edge(&t, 0, 1), add_edge(&t, 1, 1), add_edge(&t, 1, 2), add_edge(&t, 1, 3);
	add_edge(&t, 2, 4), add_edge(&t, 3, 4);
	t.exits[4] = WPP_CFG_EXIT_RETURN;
	expect_runs_max(&t, 5, NULL, 1, 1, ".BXX..");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_simple_shapes),
		cmocka_unit_test(test_run_loops),
		cmocka_unit_test(test_run_loops_measured),
		cmocka_unit_test(test_random_run_cfgs),
		cmocka_unit_test(test_random_cfgs),
		cmocka_unit_test(test_random_cfgs_tiny_limits),
		cmocka_unit_test(test_overflow_real_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
