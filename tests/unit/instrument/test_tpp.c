/* SPDX-License-Identifier: MIT */
/*
 * test_tpp.c — targeted path profiling (user/instrument/tpp.h):
 *   - hand-checked examples after the paper: Figure 7 (a loop with many
 *     iterations disconnected: every path obvious, no register code),
 *     Figure 5 (stacked conditionals, two cold branches: four hot paths,
 *     the poisoning edge), Figure 6 (a, b, c: cold back edges poison,
 *     reset, or leave the register alone), and an AoDF worked by hand
 *     (an obvious path overcounted by the cold paths through its
 *     defining edge, section 4.3);
 *   - random CFGs (loops, calls, indirect branches, pinned blocks,
 *     noreturn ends) and random walks through them, run by a reference
 *     interpreter twice: as plain Ball-Larus (the oracle) and as the TPP
 *     plan's register code.  Every recording point checks that a hot path
 *     lands on its own slot and a poisoned one never on a valid slot; the
 *     plan's cold edges, defining edges, obvious recording points and
 *     needed edges are checked against path enumeration by brute force;
 *     with thresholds 0 and training = measured run the reconstructed
 *     profile equals the Ball-Larus one; otherwise counted paths are
 *     exact, obvious ones at least their true count, and AoDF equals a
 *     computation from the interpreter's own record of the pieces run;
 *   - training counts anywhere in 64 bits: the same checks.
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
#include "instrument/tpp.h"
#include "instrument/tpp_accum.h"
#include "wpp/meta_format.h"

#define BIG (UINT64_C(1) << 62)

#define TEST_RNG_SEED UINT64_C(0x9e3779b97f4a7c15)
#include "test_rng.h"

/* ---- a function under test: CFG, standard DAG, edge weights ---------- */

#define MAXB 14
#define MAXE 48

struct fn {
	uint32_t n, ne;
	uint32_t src[MAXE], dst[MAXE];
	uint8_t flags[MAXB], exitk[MAXB];
	uint32_t weight[MAXE]; /* walk preference per CFG edge */
	uint32_t dist[MAXB];   /* CFG steps to a block that ends the function */
	struct wpp_cfg cfg;
	struct wpp_dag d;
};

static void fn_edge(struct fn *f, uint32_t u, uint32_t v, uint32_t w)
{
	for (uint32_t e = 0; e < f->ne; e++)
		if (f->src[e] == u && f->dst[e] == v)
			return;
	assert_true(f->ne < MAXE);
	f->src[f->ne] = u, f->dst[f->ne] = v, f->weight[f->ne] = w;
	f->ne++;
}

static void fn_distances(struct fn *f)
{
	for (uint32_t b = 0; b < f->n; b++)
		f->dist[b] = f->exitk[b] ? 0 : UINT32_MAX;
	for (int changed = 1; changed;) {
		changed = 0;
		for (uint32_t e = 0; e < f->ne; e++)
			if (f->dist[f->dst[e]] != UINT32_MAX &&
			    f->dist[f->dst[e]] + 1 < f->dist[f->src[e]])
				f->dist[f->src[e]] = f->dist[f->dst[e]] + 1, changed = 1;
	}
}

static void fn_build(struct fn *f)
{
	fn_distances(f);
	f->cfg = (struct wpp_cfg){f->n, f->ne, f->src, f->dst, f->flags, f->exitk};
	assert_int_equal(wpp_dag_build(&f->d, &f->cfg), 0);
	assert_int_equal(wpp_dag_number(&f->d, BIG, BIG), 0);
}

/* ---- the reference interpreter --------------------------------------- */

#define MAXSLOTS  4096
#define MAXPIECES 64

struct run {
	/* Ball-Larus */
	uint64_t bl_r;
	uint32_t bl_path[MAXB + 2], bl_len;
	uint64_t bl_count[MAXSLOTS]; /* by Ball-Larus id */
	uint64_t *train;	     /* per DAG edge, when collecting a profile */
	/* TPP, as the plan's register code */
	uint64_t r;
	uint64_t slot[MAXSLOTS + 1]; /* slot nslots = cold, poison slots included */
	uint64_t poison[MAXSLOTS];   /* by poison slot - wpp_tpp_poison_base */
	uint64_t ecount[MAXE * 2];
	uint64_t acc[MAXE * 2]; /* edge counters held in registers (tpp_accum.h) */
	/* the truth about the TPP pieces run */
	uint32_t piece[MAXB + 4], plen;
	uint64_t truth_hot[MAXSLOTS]; /* by TPP id */
	uint32_t truth_blocks[MAXSLOTS];
	uint64_t cold_pieces, cold_weight, cold_seen;
	uint64_t records, poisoned_records;
	/* the pieces of the current Ball-Larus path, and those of recorded
	 * Ball-Larus paths (what a full profile of the run sees: a path cut
	 * short by an `unreachable` is in neither) */
	struct {
		uint64_t id;
		int hot;
		uint32_t blocks;
	} pending[MAXPIECES];
	uint32_t npending;
	uint64_t ref_hot[MAXSLOTS];
	uint64_t ref_cold_pieces, ref_cold_weight;
};

static void bl_record(const struct fn *f, struct run *x, uint32_t g)
{
	for (uint32_t k = 0; k < x->npending; k++) {
		if (x->pending[k].hot) {
			x->ref_hot[x->pending[k].id]++;
		} else {
			x->ref_cold_pieces++;
			x->ref_cold_weight += x->pending[k].blocks;
		}
	}
	x->npending = 0;
	x->bl_path[x->bl_len++] = g;
	uint64_t id = x->bl_r + f->d.edges[g].val;
	assert_true(id < f->d.npaths);
	x->bl_count[id]++;
	if (x->train)
		for (uint32_t k = 0; k < x->bl_len; k++)
			x->train[x->bl_path[k]]++;
	x->bl_len = 0;
}

static void bl_start(const struct fn *f, struct run *x, uint32_t g)
{
	x->bl_r = f->d.edges[g].val;
	x->bl_path[0] = g;
	x->bl_len = 1;
}

/* The TPP piece so far ends at full edge g (into EXIT). */
static void piece_end(const struct wpp_tpp *t, struct run *x)
{
	int hot = 1;
	uint64_t id = 0, rid = 0;
	for (uint32_t k = 0; k < x->plen; k++) {
		const struct wpp_tpp_edge *te = &t->edge[x->piece[k]];
		if (te->hot_edge == WPP_NONE) {
			hot = 0;
			break;
		}
		id += t->hot.edges[te->hot_edge].val;
		if (te->rec_edge != WPP_NONE)
			rid += t->rec.edges[te->rec_edge].val;
	}
	uint32_t last = x->piece[x->plen - 1];
	const struct wpp_tpp_edge *xe = &t->edge[last];
	/* a landing pad records whatever arrives: its edges always count */
	assert_true(!xe->at_target || xe->op == WPP_TPP_RECORD || xe->op == WPP_TPP_COLD);
	assert_true(x->npending < MAXPIECES);
	x->pending[x->npending].id = id;
	x->pending[x->npending].hot = hot;
	x->pending[x->npending++].blocks = x->plen - 1;
	if (!hot) {
		x->cold_pieces++;
		x->cold_weight += x->plen - 1;
		if (xe->op == WPP_TPP_RECORD || xe->op == WPP_TPP_COLD)
			x->cold_seen++;
		assert_true(xe->op != WPP_TPP_NONE || xe->heat == WPP_TPP_HOT);
	} else {
		assert_true(id < t->hot.npaths && id < MAXSLOTS);
		x->truth_hot[id]++;
		x->truth_blocks[id] = x->plen - 1;
		if (xe->op == WPP_TPP_RECORD) {
			/* every edge of a recorded hot path is in rec */
			uint64_t s = x->r + xe->value;
			for (uint32_t k = 0; k < x->plen; k++)
				assert_int_not_equal(t->edge[x->piece[k]].rec_edge, WPP_NONE);
			assert_int_equal(s, rid);
		} else {
			/* not recorded: the path must be one of the obvious ones */
			assert_int_equal(xe->op, WPP_TPP_NONE);
			uint32_t k = 0;
			while (k < t->nobvious && t->obvious[k].id != id)
				k++;
			assert_true(k < t->nobvious);
			assert_int_equal(t->obvious[k].exit, last);
		}
	}
	x->plen = 0;
}

/* When set, the plan's edge counters accumulate as the pass emits them:
 * in a register inside their call-free loop, added to memory on the
 * loop's exit edges. */
static const struct wpp_tpp_accum *accum;

static void tpp_edge(const struct wpp_tpp *t, struct run *x, uint32_t g)
{
	const struct wpp_tpp_edge *te = &t->edge[g];
	assert_true(x->plen < MAXB + 4);
	x->piece[x->plen++] = g;
	for (uint32_t i = accum ? accum->flush_start[g] : 0; accum && i < accum->flush_start[g + 1];
	     i++) {
		uint32_t k = accum->flush[i];
		assert_true(accum->acc[k]);
		x->ecount[k] += x->acc[k];
		x->acc[k] = 0;
	}
	if (te->counter != WPP_NONE && accum && accum->acc[te->counter])
		x->acc[te->counter]++;
	else if (te->counter != WPP_NONE)
		x->ecount[te->counter]++;
	switch (te->op) {
	case WPP_TPP_ADD:
		x->r += te->value;
		break;
	case WPP_TPP_SET:
		x->r = te->value;
		break;
	case WPP_TPP_RECORD: {
		uint64_t s = x->r + te->value;
		x->records++;
		if (s < t->nslots) {
			/* a valid slot: the path must be hot (checked again in
			 * piece_end against its own id) */
			for (uint32_t k = 0; k < x->plen; k++)
				assert_int_not_equal(t->edge[x->piece[k]].hot_edge, WPP_NONE);
			x->slot[s]++;
		} else {
			/* poisoned: a poison slot of its own, in
			 * [base, base + nslots) after the edge counters */
			uint64_t base = wpp_tpp_poison_base(t);
			assert_true(t->npoison == t->nslots && t->ncold > 0);
			assert_true(s >= base && s - base < t->npoison);
			x->slot[t->nslots]++;
			x->poison[s - base]++;
			x->poisoned_records++;
		}
		break;
	}
	case WPP_TPP_COLD:
		x->slot[t->nslots]++;
		break;
	default:
		break;
	}
	if (t->full.edges[g].dst == WPP_DAG_EXIT(t->full.nblocks))
		piece_end(t, x);
}

/* One execution of the function: a walk from block 0 to an end, random
 * or (seq) along the given blocks. */
static void walk_seq(const struct fn *f, const struct wpp_tpp *t, struct run *x,
		     const uint32_t *seq, uint32_t len)
{
	static uint64_t garbage = 0x853c49e6748fea9bu; /* apart from the walks' rng */
	uint32_t b = 0, n = f->n;
	x->plen = x->npending = 0; /* an `unreachable` dropped the last ones */
	/* the last walk left its loops by edges that flushed the registers */
	for (uint32_t k = 0; t && k < t->nobvious; k++)
		assert_int_equal(x->acc[k], 0);
	/* whatever the register held: only the plan's code may matter */
	garbage ^= garbage << 13, garbage ^= garbage >> 7, garbage ^= garbage << 17;
	x->r = garbage;
	if (t)
		tpp_edge(t, x, t->full.entry_edge[0]);
	bl_start(f, x, f->d.entry_edge[0]);
	for (uint32_t step = 0;; step++) {
		if (f->exitk[b] == WPP_CFG_EXIT_NORETURN)
			return; /* nothing recorded, in either */
		if (f->exitk[b]) {
			if (t)
				tpp_edge(t, x, t->full.exit_edge[b]);
			bl_record(f, x, f->d.exit_edge[b]);
			return;
		}
		/* choose a successor: by weight, then heading for an end */
		uint32_t pick = UINT32_MAX, total = 0;
		for (uint32_t e = 0; e < f->ne; e++)
			if (f->src[e] == b)
				total += f->weight[e];
		if (seq) {
			assert_true(step + 1 < len);
			for (uint32_t e = 0; e < f->ne; e++)
				if (f->src[e] == b && f->dst[e] == seq[step + 1])
					pick = e;
		} else if (step < 40 && total) {
			uint32_t r = rnd_below(total);
			for (uint32_t e = 0; e < f->ne && pick == UINT32_MAX; e++)
				if (f->src[e] == b) {
					if (r < f->weight[e])
						pick = e;
					else
						r -= f->weight[e];
				}
		} else {
			for (uint32_t e = 0; e < f->ne; e++)
				if (f->src[e] == b && (pick == UINT32_MAX ||
						       f->dist[f->dst[e]] < f->dist[f->dst[pick]]))
					pick = e;
		}
		assert_true(pick != UINT32_MAX);
		uint32_t v = f->dst[pick], g = f->d.cfg_edge_dag[pick], h = WPP_NONE;
		if (t) {
			h = t->full.cfg_edge_dag[pick];
			tpp_edge(t, x, h);
		}
		if (f->d.edges[g].dst == WPP_DAG_EXIT(n)) {
			bl_record(f, x, g);
			bl_start(f, x, f->d.entry_edge[v]);
		} else {
			x->bl_r += f->d.edges[g].val;
			x->bl_path[x->bl_len++] = g;
		}
		if (t && t->full.edges[h].dst == WPP_DAG_EXIT(n))
			tpp_edge(t, x, t->full.entry_edge[v]);
		b = v;
	}
}

static void walk(const struct fn *f, const struct wpp_tpp *t, struct run *x)
{
	walk_seq(f, t, x, NULL, 0);
}

/* ---- brute force over the plan's graphs ------------------------------ */

#define MAXENUM 4096

struct paths {
	uint32_t n;
	uint8_t overflow;
	uint32_t len[MAXENUM];
	uint32_t edge[MAXENUM][MAXB + 2];
};

/* Every ENTRY->EXIT path of d over the edges keep[] allows (NULL: all). */
static void enumerate(const struct wpp_dag *d, const uint8_t *keep, uint32_t v, uint32_t *stack,
		      uint32_t depth, struct paths *ps)
{
	if (ps->overflow)
		return;
	if (v == WPP_DAG_EXIT(d->nblocks)) {
		if (ps->n == MAXENUM) {
			ps->overflow = 1;
			return;
		}
		ps->len[ps->n] = depth;
		memcpy(ps->edge[ps->n], stack, depth * sizeof(uint32_t));
		ps->n++;
		return;
	}
	for (uint32_t e = 0; e < d->nedges; e++)
		if (d->edges[e].src == v && (!keep || keep[e])) {
			stack[depth] = e;
			enumerate(d, keep, d->edges[e].dst, stack, depth + 1, ps);
		}
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static int below(uint64_t count, uint64_t base, uint32_t pct)
{
	return (unsigned __int128)count * 100 < (unsigned __int128)pct * base;
}

/* Which REAL edges of d loop disconnection should cut, from the
 * definition: per header, the blocks that reach one of its latches
 * without passing it and descend from it in the DFS (found by relaxation
 * to a fixed point); disconnected when the edges entering them (plus the
 * calls, for the entry block) ran below loop_pct % of the header's
 * executions. */
static void expected_cuts(const struct fn *f, const uint64_t *train, uint32_t loop_pct,
			  uint8_t *cut)
{
	const struct wpp_dag *d = &f->d;
	memset(cut, 0, d->nedges);
	for (uint32_t h = 0; h < f->n && loop_pct; h++) {
		uint8_t body[MAXB] = {0};
		int any = 0;
		for (uint32_t e = 0; e < f->ne; e++)
			if (d->cfg_edge_retreating[e] && f->dst[e] == h) {
				uint32_t l = f->src[e];
				any = 1;
				if (d->dfs_pre[h] <= d->dfs_pre[l] &&
				    d->dfs_post[l] <= d->dfs_post[h])
					body[l] = 1;
			}
		if (!any)
			continue;
		body[h] = 1;
		for (int changed = 1; changed;) {
			changed = 0;
			for (uint32_t e = 0; e < f->ne; e++) {
				uint32_t u = f->src[e], v = f->dst[e];
				if (body[v] && v != h && !body[u] &&
				    d->dfs_pre[h] <= d->dfs_pre[u] &&
				    d->dfs_post[u] <= d->dfs_post[h])
					body[u] = 1, changed = 1;
			}
		}
		uint64_t entries = 0, freq = 0;
		for (uint32_t e = 0; e < f->ne; e++)
			if (body[f->dst[e]] && !body[f->src[e]])
				entries = sat_add(entries, train[d->cfg_edge_dag[e]]);
		if (h == 0) {
			uint64_t restarts = 0;
			for (uint32_t e = 0; e < f->ne; e++)
				if (f->dst[e] == 0 &&
				    d->edges[d->cfg_edge_dag[e]].kind != WPP_EDGE_REAL)
					restarts = sat_add(restarts, train[d->cfg_edge_dag[e]]);
			uint64_t starts = train[d->entry_edge[0]];
			entries = sat_add(entries, starts > restarts ? starts - restarts : 0);
		}
		for (uint32_t g = 0; g < d->nedges; g++)
			if (d->edges[g].src == h)
				freq = sat_add(freq, train[g]);
		if (!below(entries, freq, loop_pct))
			continue;
		for (uint32_t e = 0; e < f->ne; e++) {
			uint32_t g = d->cfg_edge_dag[e];
			if (body[f->src[e]] != body[f->dst[e]] && d->edges[g].kind == WPP_EDGE_REAL)
				cut[g] = 1;
		}
	}
}

/* Blocks on each hot path, by TPP id (check_plan). */
static uint32_t hot_blocks[MAXENUM];

/* The plan's classification against its definitions, path by path.
 * Returns 1 when the hot paths could all be enumerated (hot_blocks set). */
static int check_plan(const struct fn *f, const struct wpp_tpp *t, uint32_t cold_pct,
		      uint32_t loop_pct, const uint64_t *train)
{
	static struct paths ps;
	const struct wpp_dag *fd = &t->full;
	uint32_t stack[MAXB + 4], n = fd->nblocks, exit = WPP_DAG_EXIT(n);
	uint8_t local[MAXE * 2], hot[MAXE * 2] = {0};
	uint64_t freq[MAXB + 2] = {0};

	assert_true(fd->nedges <= MAXE * 2);
	/* loop disconnection (truncation cuts more) */
	if (!t->hot.truncated) {
		uint8_t cut[MAXE * 2];
		expected_cuts(f, train, loop_pct, cut);
		for (uint32_t g = 0; g < f->d.nedges; g++)
			assert_int_equal(t->edge[g].cut, cut[g]);
	}
	/* cold edges: local bias, then on a locally hot ENTRY->EXIT path */
	for (uint32_t g = 0; g < fd->nedges; g++)
		freq[fd->edges[g].src] = sat_add(freq[fd->edges[g].src], t->edge[g].train);
	for (uint32_t g = 0; g < fd->nedges; g++)
		local[g] = fd->edges[g].src == WPP_DAG_ENTRY(n)
			       ? g == fd->entry_edge[0]
			       : !below(t->edge[g].train, freq[fd->edges[g].src], cold_pct);
	for (uint32_t e = 0; e < f->ne; e++) {
		uint32_t g = fd->cfg_edge_dag[e];
		if (fd->edges[g].dst == exit && local[g])
			local[fd->entry_edge[f->dst[e]]] = 1;
	}
	ps.n = 0, ps.overflow = 0;
	enumerate(fd, local, WPP_DAG_ENTRY(n), stack, 0, &ps);
	if (!ps.overflow && !t->hot.truncated) {
		for (uint32_t p = 0; p < ps.n; p++)
			for (uint32_t k = 0; k < ps.len[p]; k++)
				hot[ps.edge[p][k]] = 1;
		for (uint32_t g = 0; g < fd->nedges; g++)
			assert_int_equal(hot[g], t->edge[g].heat == WPP_TPP_HOT);
	}

	/* hot paths: distinct ids filling [0, npaths) */
	ps.n = 0, ps.overflow = 0;
	enumerate(&t->hot, NULL, WPP_DAG_ENTRY(n), stack, 0, &ps);
	if (ps.overflow)
		return 0;
	assert_int_equal(ps.n, t->hot.npaths);
	static uint8_t seen[MAXENUM];
	memset(seen, 0, sizeof(seen));
	uint32_t through[MAXE * 2] = {0};
	for (uint32_t p = 0; p < ps.n; p++) {
		uint64_t id = 0;
		for (uint32_t k = 0; k < ps.len[p]; k++) {
			id += t->hot.edges[ps.edge[p][k]].val;
			through[ps.edge[p][k]]++;
		}
		assert_true(id < ps.n && !seen[id]);
		seen[id] = 1;
		hot_blocks[id] = ps.len[p] - 1;
	}
	/* defining edges lie on exactly one hot path */
	for (uint32_t k = 0; k < t->hot.nedges; k++)
		assert_int_equal(t->edge[t->hot_full[k]].defining, through[k] == 1);
	/* obvious recording points: every path ending there has a defining
	 * edge; needed edges: on a path to a non-obvious one */
	uint8_t nonobv[MAXE * 2] = {0}, needed[MAXE * 2] = {0}, at_target[MAXE * 2] = {0};
	for (uint32_t e = 0; e < f->ne; e++) {
		uint32_t h = t->edge[fd->cfg_edge_dag[e]].hot_edge;
		/* a landing pad records for all its unwind edges alike */
		if ((f->flags[f->dst[e]] & WPP_CFGB_PINNED) &&
		    !(f->flags[f->src[e]] & WPP_CFGB_INDIRECT_SRC) && h != WPP_NONE)
			at_target[h] = 1;
	}
	for (uint32_t p = 0; p < ps.n; p++) {
		int obvious = 0;
		uint32_t x = ps.edge[p][ps.len[p] - 1];
		/* a path start after a call runs before the call: never counted */
		for (uint32_t k = 0; k < ps.len[p]; k++)
			obvious |= through[ps.edge[p][k]] == 1 &&
				   t->hot.edges[ps.edge[p][k]].kind != WPP_EDGE_CALL_ENTRY;
		/* an `unreachable` end records nothing: no recording point */
		if ((!obvious || at_target[x]) &&
		    f->exitk[t->hot.edges[x].src] != WPP_CFG_EXIT_NORETURN)
			nonobv[x] = 1;
	}
	uint64_t nobv_paths = 0;
	for (uint32_t p = 0; p < ps.n; p++) {
		uint32_t x = ps.edge[p][ps.len[p] - 1];
		uint64_t id = 0;
		for (uint32_t k = 0; k < ps.len[p]; k++)
			id += t->hot.edges[ps.edge[p][k]].val;
		if (nonobv[x]) {
			for (uint32_t k = 0; k < ps.len[p]; k++)
				needed[ps.edge[p][k]] = 1;
			continue;
		}
		if (t->hot.edges[x].kind == WPP_EDGE_NORETURN &&
		    f->exitk[t->hot.edges[x].src] == WPP_CFG_EXIT_NORETURN)
			continue;
		/* an uncounted obvious path: listed once, with a defining edge
		 * of its own */
		nobv_paths++;
		uint32_t j = 0;
		while (j < t->nobvious && t->obvious[j].id != id)
			j++;
		assert_true(j < t->nobvious);
		uint32_t de = t->edge[t->obvious[j].edge].hot_edge, on = 0;
		for (uint32_t k = 0; k < ps.len[p]; k++)
			on |= ps.edge[p][k] == de;
		assert_true(on && through[de] == 1 && t->hot.edges[de].kind != WPP_EDGE_CALL_ENTRY);
		assert_int_equal(t->edge[t->obvious[j].edge].counter, j);
		assert_int_equal(t->edge[t->obvious[j].edge].op, WPP_TPP_NONE);
	}
	assert_int_equal(nobv_paths, t->nobvious);
	for (uint32_t k = 0; k < t->hot.nedges; k++)
		assert_int_equal(needed[k], t->edge[t->hot_full[k]].rec_edge != WPP_NONE);

	/* rec: distinct slots filling [0, nslots), chord increments sum to
	 * them */
	ps.n = 0, ps.overflow = 0;
	enumerate(&t->rec, NULL, WPP_DAG_ENTRY(n), stack, 0, &ps);
	assert_int_equal(ps.n, t->nslots);
	memset(seen, 0, sizeof(seen));
	for (uint32_t p = 0; p < ps.n; p++) {
		uint64_t s = 0, inc = 0;
		for (uint32_t k = 0; k < ps.len[p]; k++) {
			s += t->rec.edges[ps.edge[p][k]].val;
			inc += t->rec.edges[ps.edge[p][k]].inc;
		}
		assert_true(s < ps.n && !seen[s]);
		seen[s] = 1;
		assert_int_equal(inc, s);
	}
	return 1;
}

/* ---- random functions ------------------------------------------------- */

static void random_fn(struct fn *f)
{
	int dense = rnd_below(3) == 0; /* many paths: numbering truncates */
	memset(f, 0, sizeof(*f));
	f->n = 3 + rnd_below(MAXB - 3);
	for (uint32_t b = 0; b < f->n; b++) {
		uint32_t r = rnd_below(100);
		if (b == f->n - 1 || (b > 0 && r < (dense ? 4u : 12u))) {
			f->exitk[b] = r < 3 ? WPP_CFG_EXIT_NORETURN : WPP_CFG_EXIT_RETURN;
			continue;
		}
		uint32_t outs = dense ? 2 + rnd_below(2) : 1 + rnd_below(3);
		for (uint32_t i = 0; i < outs; i++) {
			/* mostly forward, sometimes back (loops) */
			uint32_t v =
			    rnd_below(4) ? b + 1 + rnd_below(f->n - b - 1) : rnd_below(b + 1);
			uint32_t w = rnd_below(3) == 0 ? 1 + rnd_below(3) : 10 + rnd_below(200);
			fn_edge(f, b, v, w);
		}
	}
	for (uint32_t b = 0; b < f->n; b++) {
		uint32_t r = rnd_below(100);
		if (r < 12)
			f->flags[b] |= WPP_CFGB_CALL_HEAD;
		else if (r < 16)
			f->flags[b] |= WPP_CFGB_PINNED;
		else if (r < 20 && !f->exitk[b])
			f->flags[b] |= WPP_CFGB_INDIRECT_SRC;
	}
	/* every block reaches an end */
	fn_distances(f);
	for (uint32_t b = 0; b < f->n; b++)
		if (f->dist[b] == UINT32_MAX)
			fn_edge(f, b, f->n - 1, 1);
}

/* For a setting's limit: the smallest wide limit numbering can always
 * meet on the function, so that it truncates often: a random block has at
 * most 4 DAG out-edges, so at most 4 paths to EXIT once all its REAL
 * out-edges are cut (numbering.h), and ENTRY at most 4 per block. */
#define SMALL 0
static uint64_t small_limit(const struct fn *f)
{
	return 4 * ((uint64_t)f->n + 1);
}

struct setting {
	uint32_t cold, loop;
	uint64_t limit; /* numbering's wide limit: small ones truncate */
	int weighted;	/* placement weights other than the counts */
	uint64_t array; /* wpp_tpp_params.array_max: 0 always removes cold paths */
};

static struct run run_a, run_b;

/* The run's counters as the build's array holds them: the slots, the
 * cold counter, and each poison slot separately (reconstruction must add
 * them to the cold counter). */
static size_t run_slots(const struct wpp_tpp *t, const struct run *x, struct wpp_tpp_count *slots)
{
	size_t ns = 0;
	uint64_t poisoned = 0;
	for (uint64_t k = 0; k < t->npoison; k++)
		if (x->poison[k]) {
			slots[ns++] = (struct wpp_tpp_count){wpp_tpp_poison_base(t) + k, x->poison[k], 0};
			poisoned += x->poison[k];
		}
	for (uint64_t k = 0; k <= t->nslots; k++) {
		uint64_t c = k == t->nslots ? x->slot[k] - poisoned : x->slot[k];
		if (c)
			slots[ns++] = (struct wpp_tpp_count){k, c, 0};
	}
	return ns;
}

/*
 * Runs nwalks random walks (from the current rng state) under plan t and
 * checks the run: every record (in tpp_edge/piece_end), the reconstructed
 * profile against what ran (counted paths exact; obvious ones exact too
 * without cold edges, else at least what ran), AoDF's weights against the
 * pieces of the recorded Ball-Larus paths, and with exact (thresholds 0,
 * training = this run) the profile against Ball-Larus id for id.
 */
static uint64_t accum_counters, accum_executions; /* for test_random's summary */

static void measure(const struct fn *f, const struct wpp_tpp *t, uint32_t nwalks, int cold,
		    int exact)
{
	char why[128] = "";
	struct wpp_tpp_accum acc;
	memset(&run_b, 0, sizeof(run_b));
	assert_int_equal(wpp_tpp_accum_plan(&acc, t, &f->cfg, &f->d, NULL), 0);
	accum = &acc;
	accum_counters += acc.nacc;
	for (uint32_t i = 0; i < nwalks; i++)
		walk(f, t, &run_b);
	for (uint32_t k = 0; k < t->nobvious; k++) {
		assert_int_equal(run_b.acc[k], 0);
		accum_executions += acc.acc[k] ? run_b.ecount[k] : 0;
	}
	accum = NULL;
	wpp_tpp_accum_free(&acc);
	assert_int_equal(run_b.slot[t->nslots], run_b.cold_seen);

	/* reconstruction */
	struct wpp_tpp_count slots[2 * MAXSLOTS + 1];
	size_t ns = run_slots(t, &run_b, slots);
	struct wpp_tpp_profile prof;
	assert_int_equal(wpp_tpp_reconstruct(t, slots, ns, run_b.ecount, &prof, why, sizeof(why)),
			 0);
	assert_int_equal(prof.cold, run_b.slot[t->nslots]);
	uint64_t overw = 0, underw = run_b.ref_cold_weight;
	uint64_t totalw = run_b.ref_cold_weight;
	size_t j = 0;
	for (uint64_t id = 0; id < t->hot.npaths; id++) {
		uint64_t got = 0, truth = run_b.truth_hot[id];
		int obv = 0;
		if (j < prof.npaths && prof.path[j].id == id)
			got = prof.path[j].count, obv = prof.path[j].obvious, j++;
		uint64_t ref = run_b.ref_hot[id];
		if (truth)
			assert_int_equal(run_b.truth_blocks[id], hot_blocks[id]);
		if (!cold || !obv)
			assert_int_equal(got, truth);
		else
			assert_true(got >= truth);
		totalw += ref * hot_blocks[id];
		overw += got > ref ? (got - ref) * hot_blocks[id] : 0;
		underw += got < ref ? (ref - got) * hot_blocks[id] : 0;
	}
	assert_int_equal(j, prof.npaths);

	/* AoDF against the Ball-Larus profile of the same run */
	struct wpp_tpp_count full[MAXSLOTS];
	size_t nf = 0;
	for (uint64_t id = 0; id < f->d.npaths; id++)
		if (run_b.bl_count[id])
			full[nf++] = (struct wpp_tpp_count){id, run_b.bl_count[id], 0};
	struct wpp_tpp_quality q;
	assert_int_equal(wpp_tpp_aodf(t, &f->d, full, nf, &prof, &q, why, sizeof(why)), 0);
	assert_int_equal(q.total, totalw);
	assert_int_equal(q.over, overw);
	assert_int_equal(q.under, underw);
	assert_int_equal(q.cold_under, run_b.ref_cold_weight);
	assert_int_equal(q.cold_pieces, run_b.ref_cold_pieces);
	if (exact) {
		/* the same numbering on the same DAG: Ball-Larus ids */
		assert_true(q.aodf == 100.0);
		assert_int_equal(prof.npaths, nf);
		for (size_t k = 0; k < nf; k++) {
			assert_int_equal(prof.path[k].id, full[k].id);
			assert_int_equal(prof.path[k].count, full[k].count);
		}
	}
	wpp_tpp_profile_free(&prof);
}

static void test_random(void **state)
{
	(void)state;
	static const struct setting settings[] = {
	    {0, 0, BIG, 0, 0},  {0, 15, BIG, 0, 0},  {1, 1, BIG, 0, 0},	 {5, 5, BIG, 0, 0},
	    {5, 15, BIG, 0, 0}, {20, 50, BIG, 0, 0}, {0, 0, SMALL, 0, 0}, {5, 15, SMALL, 0, 0},
	    {5, 15, BIG, 1, 0}, {0, 0, SMALL, 1, 0}, {5, 15, BIG, 0, 16}, {20, 15, BIG, 1, BIG}};
	uint32_t functions = 0, poisoned = 0, obvious_fns = 0, cut_fns = 0, truncated = 0;
	uint32_t declined = 0, kept = 0;

	for (int round = 0; round < 1000; round++) {
		struct fn f;
		random_fn(&f);
		fn_build(&f);
		if (f.d.npaths > MAXSLOTS) {
			wpp_dag_free(&f.d);
			continue;
		}
		functions++;
		for (size_t si = 0; si < sizeof(settings) / sizeof(settings[0]); si++) {
			struct setting s = settings[si];
			/* training: its own walks, except thresholds 0, where it is
			 * the measured run itself */
			uint64_t seed = rnd(), train[MAXE * 2] = {0};
			int exact = !s.cold && !s.loop && s.limit == BIG;
			uint64_t measured = exact ? seed : seed ^ 0x5bd1e995u;
			uint32_t nwalks = 30 + rnd_below(200);
			memset(&run_a, 0, sizeof(run_a));
			run_a.train = train;
			rng_state = seed;
			for (uint32_t i = 0; i < nwalks; i++)
				walk(&f, NULL, &run_a);

			struct wpp_tpp t;
			double weight[MAXE * 2];
			for (uint32_t g = 0; g < f.d.nedges; g++)
				weight[g] = (double)rnd_below(1000) / 7;
			uint64_t limit = s.limit == SMALL ? small_limit(&f) : s.limit;
			struct wpp_tpp_params p = {s.cold, s.loop, limit, limit,
						   s.weighted ? weight : NULL, s.array};
			char why[128] = "";
			int planned = wpp_tpp_plan(&t, &f.cfg, &f.d, train, &p, why, sizeof(why));
			if (planned)
				print_error("setting %zu: %s\n", si, why);
			assert_int_equal(planned, 0);
			/* with array_max, the plan is the cold one or the exact
			 * one, each checked against its own definition */
			uint32_t cold = t.ncold_declined ? 0 : s.cold;
			if (s.array && s.cold) {
				declined += t.ncold_declined > 0;
				kept += t.ncold > 0;
			}
			int enumerated = check_plan(&f, &t, cold, s.loop, train);
			if (!enumerated || t.nslots > MAXSLOTS || t.hot.npaths > MAXSLOTS) {
				wpp_tpp_free(&t);
				continue;
			}
			rng_state = measured;
			measure(&f, &t, nwalks, cold != 0, exact);
			poisoned += run_b.poisoned_records > 0;
			obvious_fns += t.nslots == 0;
			cut_fns += t.nloops > 0;
			truncated += t.hot.truncated;
			wpp_tpp_free(&t);
		}
		wpp_dag_free(&f.d);
	}
	print_message(
	    "%u functions x settings; %u with poisoned paths recorded, %u with every path "
	    "obvious, %u with loops disconnected, %u truncated; with an array limit, cold "
	    "removal declined in %u, kept in %u; %llu edge counters in registers, "
	    "%llu executions counted there\n",
	    functions, poisoned, obvious_fns, cut_fns, truncated, declined, kept,
	    (unsigned long long)accum_counters, (unsigned long long)accum_executions);
	assert_true(poisoned > 50 && obvious_fns > 20 && cut_fns > 20 && truncated > 20);
	assert_true(accum_counters > 100 && accum_executions > 1000);
	assert_true(declined > 20 && kept > 20);
}

/* ---- hand-checked examples ------------------------------------------- */

/* A function from (src, dst) pairs; the blocks listed in rets return. */
static void hand_fn(struct fn *f, uint32_t n, const uint32_t (*edges)[2], uint32_t ne,
		    const uint32_t *rets, uint32_t nrets)
{
	memset(f, 0, sizeof(*f));
	f->n = n;
	for (uint32_t i = 0; i < ne; i++)
		fn_edge(f, edges[i][0], edges[i][1], 1);
	for (uint32_t i = 0; i < nrets; i++)
		f->exitk[rets[i]] = WPP_CFG_EXIT_RETURN;
	fn_build(f);
}

/* Runs seq (blocks, ending at a return) times times. */
static void replay(const struct fn *f, const struct wpp_tpp *t, struct run *x, const uint32_t *seq,
		   uint32_t len, uint32_t times)
{
	for (uint32_t i = 0; i < times; i++)
		walk_seq(f, t, x, seq, len);
}

static void plan(struct wpp_tpp *t, const struct fn *f, const uint64_t *train, uint32_t cold,
		 uint32_t loop)
{
	struct wpp_tpp_params p = {cold, loop, BIG, BIG, NULL, 0};
	char why[128] = "";
	assert_int_equal(wpp_tpp_plan(t, &f->cfg, &f->d, train, &p, why, sizeof(why)), 0);
	assert_int_equal(check_plan(f, t, cold, loop, train), 1);
}

/* The full-DAG edge standing for CFG edge u->v (its u->EXIT when cut). */
static uint32_t cfg_edge(const struct fn *f, const struct wpp_tpp *t, uint32_t u, uint32_t v)
{
	for (uint32_t e = 0; e < f->ne; e++)
		if (f->src[e] == u && f->dst[e] == v)
			return t->full.cfg_edge_dag[e];
	fail();
	return WPP_NONE;
}

static uint64_t slots_profile(const struct wpp_tpp *t, const struct run *x,
			      struct wpp_tpp_profile *prof)
{
	struct wpp_tpp_count slots[2 * MAXSLOTS + 1];
	size_t ns = run_slots(t, x, slots);
	char why[128];
	assert_int_equal(wpp_tpp_reconstruct(t, slots, ns, x->ecount, prof, why, sizeof(why)), 0);
	return prof->cold;
}

static void quality(const struct fn *f, const struct wpp_tpp *t, const struct run *x,
		    const struct wpp_tpp_profile *prof, struct wpp_tpp_quality *q)
{
	struct wpp_tpp_count full[MAXSLOTS];
	size_t nf = 0;
	char why[128];
	for (uint64_t id = 0; id < f->d.npaths; id++)
		if (x->bl_count[id])
			full[nf++] = (struct wpp_tpp_count){id, x->bl_count[id], 0};
	assert_int_equal(wpp_tpp_aodf(t, &f->d, full, nf, prof, q, why, sizeof(why)), 0);
}

/* Figure 7: A -> B, B -> B (100 iterations), B -> C.  Not disconnected,
 * none of the four paths is obvious; disconnected (entries 1 % of the
 * header's executions, below 15 %), every path is obvious and the
 * function needs no register code at all. */
static void test_figure7(void **state)
{
	(void)state;
	static const uint32_t edges[][2] = {{0, 1}, {1, 1}, {1, 2}};
	static const uint32_t rets[] = {2};
	uint32_t seq[102] = {0}, seq3[52] = {0};
	struct fn f;
	struct wpp_tpp t;
	uint64_t train[MAXE * 2] = {0};

	hand_fn(&f, 3, edges, 3, rets, 1);
	for (uint32_t i = 1; i <= 100; i++)
		seq[i] = 1;
	seq[101] = 2;
	memset(&run_a, 0, sizeof(run_a));
	run_a.train = train;
	replay(&f, NULL, &run_a, seq, 102, 10);

	/* no cold edges here (B->C takes 1 % of B: cold at 5 %) */
	plan(&t, &f, train, 0, 0);
	assert_int_equal(t.nloops, 0);
	assert_int_equal(t.hot.npaths, 4);
	assert_int_equal(t.nobvious, 0);
	assert_int_equal(t.nslots, 4);
	wpp_tpp_free(&t);

	plan(&t, &f, train, 0, 15);
	assert_int_equal(t.nloops, 1);
	assert_int_equal(t.ncut, 2); /* A->B and B->C */
	assert_int_equal(t.hot.npaths, 4);
	assert_int_equal(t.nobvious, 4);
	assert_int_equal(t.nslots, 0);
	assert_int_equal(t.nops, 0);
	/* A run of 3 calls of 50 iterations each */
	for (uint32_t i = 1; i <= 50; i++)
		seq3[i] = 1;
	seq3[51] = 2;
	memset(&run_b, 0, sizeof(run_b));
	replay(&f, &t, &run_b, seq3, 52, 3);
	struct wpp_tpp_profile prof;
	assert_int_equal(slots_profile(&t, &run_b, &prof), 0);
	/* A (3), B around the loop (3 x 49), B leaving (3), C (3) */
	uint64_t want[4] = {0};
	for (uint32_t k = 0; k < t.nobvious; k++) {
		uint32_t x = t.obvious[k].exit;
		want[k] = x == cfg_edge(&f, &t, 1, 1) ? 147 : 3;
	}
	assert_int_equal(prof.npaths, 4);
	for (uint32_t k = 0; k < 4; k++) {
		uint32_t j = 0;
		while (prof.path[j].id != t.obvious[k].id)
			j++;
		assert_int_equal(prof.path[j].count, want[k]);
		assert_true(prof.path[j].obvious);
	}
	struct wpp_tpp_quality q;
	quality(&f, &t, &run_b, &prof, &q);
	assert_true(q.aodf == 100.0);
	/* blocks: 3 x (A) + 147 x (B) + 3 x (B) + 3 x (C) */
	assert_int_equal(q.total, 156);
	wpp_tpp_profile_free(&prof);
	wpp_tpp_free(&t);
	wpp_dag_free(&f.d);
}

/* Figure 5: four stacked diamonds (16 paths), two of them biased 99:1.
 * At 5 %, four hot paths remain, none obvious; the cold branch edges
 * carry no code (their targets are cold), the edges back into the hot
 * region poison the register, and a run through a cold edge lands in
 * the cold counter. */
static void test_figure5(void **state)
{
	(void)state;
	static const uint32_t edges[][2] = {{0, 1},  {0, 2},  {1, 3},	{2, 3},	 {3, 4}, {3, 5},
					    {4, 6},  {5, 6},  {6, 7},	{6, 8},	 {7, 9}, {8, 9},
					    {9, 10}, {9, 11}, {10, 12}, {11, 12}};
	static const uint32_t rets[] = {12};
	struct fn f;
	struct wpp_tpp t;
	uint64_t train[MAXE * 2] = {0};

	hand_fn(&f, 13, edges, 16, rets, 1);
	assert_int_equal(f.d.npaths, 16);
	memset(&run_a, 0, sizeof(run_a));
	run_a.train = train;
	for (uint32_t i = 0; i < 200; i++) {
		uint32_t seq[9] = {0, i == 7 ? 2u : 1u,	 3, i % 2 ? 4u : 5u, 6, i == 9 ? 8u : 7u,
				   9, i % 3 ? 10u : 11u, 12};
		replay(&f, NULL, &run_a, seq, 9, 1);
	}
	plan(&t, &f, train, 5, 15);
	assert_int_equal(t.ncold_bias, 2);
	assert_int_equal(t.ncold, 4);
	assert_int_equal(t.hot.npaths, 4);
	assert_int_equal(t.nobvious, 0);
	assert_int_equal(t.nslots, 4);
	assert_int_equal(t.edge[cfg_edge(&f, &t, 0, 2)].op, WPP_TPP_NONE);
	assert_int_equal(t.edge[cfg_edge(&f, &t, 6, 8)].op, WPP_TPP_NONE);
	assert_int_equal(t.edge[cfg_edge(&f, &t, 2, 3)].op, WPP_TPP_SET);
	assert_int_equal(t.edge[cfg_edge(&f, &t, 8, 9)].op, WPP_TPP_SET);
	memset(&run_b, 0, sizeof(run_b));
	static const uint32_t cold_seq[] = {0, 1, 3, 4, 6, 8, 9, 10, 12};
	static const uint32_t hot_seq[] = {0, 1, 3, 4, 6, 7, 9, 10, 12};
	replay(&f, &t, &run_b, cold_seq, 9, 2);
	replay(&f, &t, &run_b, hot_seq, 9, 5);
	assert_int_equal(run_b.slot[t.nslots], 2);
	assert_int_equal(run_b.poisoned_records, 2);
	uint64_t valid = 0;
	for (uint64_t k = 0; k < t.nslots; k++)
		valid += run_b.slot[k];
	assert_int_equal(valid, 5);
	wpp_tpp_free(&t);

	/* Section 5: cold paths are removed only for a gain.  16 counters fit
	 * an array of 64 and removing the cold edges saves next to nothing
	 * on the training run (the chords lie on them either way): the exact
	 * plan is kept.  With an array of 12, removal is what keeps the
	 * function out of the hash (4 slots, the cold counter and 4 poison
	 * slots against 17 counters), so it stays. */
	char why[128] = "";
	struct wpp_tpp_params p = {5, 15, BIG, BIG, NULL, 64};
	assert_int_equal(wpp_tpp_plan(&t, &f.cfg, &f.d, train, &p, why, sizeof(why)), 0);
	assert_int_equal(t.ncold, 0);
	assert_int_equal(t.ncold_declined, 4);
	assert_int_equal(t.nslots, 16);
	wpp_tpp_free(&t);
	p.array_max = 12;
	assert_int_equal(wpp_tpp_plan(&t, &f.cfg, &f.d, train, &p, why, sizeof(why)), 0);
	assert_int_equal(t.ncold, 4);
	assert_true(wpp_tpp_ncounters(&t) <= 12 && t.npoison == 4);
	assert_int_equal(t.ncold_declined, 0);
	assert_int_equal(t.nslots, 4);
	wpp_tpp_free(&t);
	wpp_dag_free(&f.d);
}

/* Figure 6: cold back edges.  (a) the header's only back edge is cold:
 * it counts a cold path and poisons the register for the next; (b) one
 * of two back edges is cold: it counts a cold path, and the path start
 * at the header stays an ordinary reset; (c) the whole loop is cold: the
 * back edge counts a cold path and the register is left alone. */
static void test_figure6(void **state)
{
	(void)state;
	struct fn f;
	struct wpp_tpp t;
	uint64_t train[MAXE * 2];

	/* (a) 0 -> H=1; 1 -> 2|3 -> 4; 4 -> 1 (1 %) | 5; 5 -> 6|7 -> 8 */
	static const uint32_t ea[][2] = {{0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {4, 1},
					 {4, 5}, {5, 6}, {5, 7}, {6, 8}, {7, 8}};
	static const uint32_t ra[] = {8};
	hand_fn(&f, 9, ea, 11, ra, 1);
	memset(train, 0, sizeof(train));
	memset(&run_a, 0, sizeof(run_a));
	run_a.train = train;
	for (uint32_t i = 0; i < 200; i++) {
		uint32_t once[] = {0, 1, i % 2 ? 2u : 3u, 4, 5, i % 3 ? 6u : 7u, 8};
		uint32_t twice[] = {0, 1, 2, 4, 1, 3, 4, 5, 6, 8};
		if (i < 2)
			replay(&f, NULL, &run_a, twice, 10, 1);
		else
			replay(&f, NULL, &run_a, once, 7, 1);
	}
	plan(&t, &f, train, 5, 0);
	uint32_t back = cfg_edge(&f, &t, 4, 1), header = t.full.entry_edge[1];
	assert_int_equal(t.edge[back].heat, WPP_TPP_COLD_BIAS);
	assert_int_equal(t.edge[back].op, WPP_TPP_COLD);
	assert_int_not_equal(t.edge[header].heat, WPP_TPP_HOT);
	assert_int_equal(t.edge[header].op, WPP_TPP_SET);
	assert_true(t.nslots == 4 && t.npoison == 4);
	assert_true(t.edge[header].value <= wpp_tpp_poison_base(&t) &&
		    t.edge[header].value >= wpp_tpp_poison_base(&t) - t.nslots);
	memset(&run_b, 0, sizeof(run_b));
	static const uint32_t twice[] = {0, 1, 2, 4, 1, 3, 4, 5, 6, 8};
	replay(&f, &t, &run_b, twice, 10, 1);
	/* two cold pieces (up to the back edge, and after it) */
	assert_int_equal(run_b.slot[t.nslots], 2);
	assert_int_equal(run_b.poisoned_records, 1);
	wpp_tpp_free(&t);
	wpp_dag_free(&f.d);

	/* (b) 0 -> 1; 1 -> 2|3; 2 -> 1 (hot) | 4; 3 -> 1 (1 %) | 4 */
	static const uint32_t eb[][2] = {{0, 1}, {1, 2}, {1, 3}, {2, 1}, {2, 4}, {3, 1}, {3, 4}};
	static const uint32_t rb[] = {4};
	hand_fn(&f, 5, eb, 7, rb, 1);
	memset(train, 0, sizeof(train));
	memset(&run_a, 0, sizeof(run_a));
	run_a.train = train;
	static const uint32_t loops[] = {0, 1, 2, 1, 2, 1, 3, 4};
	static const uint32_t rare[] = {0, 1, 3, 1, 2, 4};
	replay(&f, NULL, &run_a, loops, 8, 100);
	replay(&f, NULL, &run_a, rare, 6, 1);
	plan(&t, &f, train, 5, 0);
	back = cfg_edge(&f, &t, 3, 1), header = t.full.entry_edge[1];
	assert_int_equal(t.edge[cfg_edge(&f, &t, 2, 1)].heat, WPP_TPP_HOT);
	assert_int_equal(t.edge[back].op, WPP_TPP_COLD);
	assert_int_equal(t.edge[header].heat, WPP_TPP_HOT);
	assert_int_equal(t.edge[header].op, WPP_TPP_SET);
	assert_int_not_equal(t.edge[header].rec_edge, WPP_NONE);
	assert_true(t.edge[header].value == t.rec.edges[t.edge[header].rec_edge].inc);
	wpp_tpp_free(&t);
	wpp_dag_free(&f.d);

	/* (c) 0 -> 1 | 2 (1 %); 1 -> 3; 2 -> 2 (never) | 3 */
	static const uint32_t ec[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 2}, {2, 3}};
	static const uint32_t rc[] = {3};
	hand_fn(&f, 4, ec, 5, rc, 1);
	memset(train, 0, sizeof(train));
	memset(&run_a, 0, sizeof(run_a));
	run_a.train = train;
	static const uint32_t usual[] = {0, 1, 3}, other[] = {0, 2, 3};
	replay(&f, NULL, &run_a, usual, 3, 100);
	replay(&f, NULL, &run_a, other, 3, 1);
	plan(&t, &f, train, 5, 0);
	back = cfg_edge(&f, &t, 2, 2), header = t.full.entry_edge[2];
	assert_int_equal(t.edge[back].op, WPP_TPP_COLD);
	assert_int_not_equal(t.edge[header].heat, WPP_TPP_HOT);
	assert_int_equal(t.edge[header].op, WPP_TPP_NONE);
	assert_int_equal(t.edge[cfg_edge(&f, &t, 2, 3)].heat, WPP_TPP_COLD_TRANSITIVE);
	wpp_tpp_free(&t);
	wpp_dag_free(&f.d);
}

/* AoDF by hand: two diamonds, the first biased 99:1 in training.  The
 * hot paths 0-1-3-4-6 and 0-1-3-5-6 are obvious (defining edges 3->4,
 * 3->5), so nothing is recorded; the run's paths are 50 x A (0-1-3-4-6),
 * 30 x B (0-1-3-5-6), 15 x C (0-2-3-4-6), 5 x D (0-2-3-5-6).  The
 * defining edges count A 65 and B 35 (section 4.3's overcount), C and D
 * are cold: with 5 blocks a path, total 500, over 20 x 5 = 100, under
 * 20 x 5 = 100, AoDF = 100 - 20 - 20 = 60 %. */
static void test_aodf_by_hand(void **state)
{
	(void)state;
	static const uint32_t edges[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3},
					    {3, 4}, {3, 5}, {4, 6}, {5, 6}};
	static const uint32_t rets[] = {6};
	static const uint32_t a[] = {0, 1, 3, 4, 6}, b[] = {0, 1, 3, 5, 6};
	static const uint32_t c[] = {0, 2, 3, 4, 6}, d[] = {0, 2, 3, 5, 6};
	struct fn f;
	struct wpp_tpp t;
	uint64_t train[MAXE * 2] = {0};

	hand_fn(&f, 7, edges, 8, rets, 1);
	memset(&run_a, 0, sizeof(run_a));
	run_a.train = train;
	replay(&f, NULL, &run_a, a, 5, 50);
	replay(&f, NULL, &run_a, b, 5, 49);
	replay(&f, NULL, &run_a, c, 5, 1);
	plan(&t, &f, train, 5, 15);
	assert_int_equal(t.nslots, 0);
	assert_int_equal(t.nobvious, 2);
	memset(&run_b, 0, sizeof(run_b));
	replay(&f, &t, &run_b, a, 5, 50);
	replay(&f, &t, &run_b, b, 5, 30);
	replay(&f, &t, &run_b, c, 5, 15);
	replay(&f, &t, &run_b, d, 5, 5);
	struct wpp_tpp_profile prof;
	assert_int_equal(slots_profile(&t, &run_b, &prof), 0);
	assert_int_equal(prof.npaths, 2);
	uint64_t sum = prof.path[0].count + prof.path[1].count;
	assert_int_equal(sum, 100);
	assert_true(prof.path[0].count == 65 || prof.path[0].count == 35);
	struct wpp_tpp_quality q;
	quality(&f, &t, &run_b, &prof, &q);
	assert_int_equal(q.total, 500);
	assert_int_equal(q.over, 100);
	assert_int_equal(q.under, 100);
	assert_int_equal(q.cold_under, 100);
	assert_int_equal(q.cold_pieces, 20);
	assert_true(q.aodf == 60.0);

	/* bad input: one reason, nothing half-filled */
	char why[128] = "";
	struct wpp_tpp_count bad = {wpp_tpp_ncounters(&t), 1, 0};
	struct wpp_tpp_profile none;
	assert_int_equal(wpp_tpp_reconstruct(&t, &bad, 1, run_b.ecount, &none, why, sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "slot"));
	assert_null(none.path);
	bad.id = f.d.npaths;
	assert_int_equal(wpp_tpp_aodf(&t, &f.d, &bad, 1, &prof, &q, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "reference path"));
	struct wpp_tpp_count stray = {t.hot.npaths, 1, 0};
	struct wpp_tpp_profile odd = {&stray, 1, 0};
	assert_int_equal(wpp_tpp_aodf(&t, &f.d, NULL, 0, &odd, &q, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "hot path"));
	struct wpp_tpp t2;
	struct wpp_tpp_params p = {5, 15, BIG, BIG, NULL, 0};
	struct wpp_cfg other = f.cfg;
	other.nblocks = f.n + 1;
	assert_int_equal(wpp_tpp_plan(&t2, &other, &f.d, train, &p, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "do not belong"));
	assert_null(t2.edge);
	uint32_t wrong_src[MAXE];
	memcpy(wrong_src, f.src, sizeof(wrong_src));
	wrong_src[0] = 5; /* 0->1 claimed to start at 5 */
	other = f.cfg;
	other.edge_src = wrong_src;
	why[0] = 0;
	assert_int_equal(wpp_tpp_plan(&t2, &other, &f.d, train, &p, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "do not belong"));
	wpp_tpp_profile_free(&prof);
	wpp_tpp_free(&t);
	wpp_dag_free(&f.d);
}

/* Training counts anywhere in 64 bits (sums saturate, bias compares in
 * 128 bits): plans stay what their definitions say, and runs stay right. */
/* Section 4.3's overcount, avoided where it can be: 0 -> 1 | 2 (even),
 * 1 -> 3 | 4 (1 -> 4 never ran in training: cold), 3, 4, 2 -> 5.  The
 * hot path 0-1-3-5 has three defining edges of one training count; 0 -> 1
 * is also on the cold path 0-1-4-5, 1 -> 3 and 3 -> 5 are not, so one of
 * them counts it, and a run through the cold edge leaves its count
 * exact (AoDF loses only the cold path itself). */
static void test_exact_defining(void **state)
{
	(void)state;
	static const uint32_t edges[][2] = {{0, 1}, {0, 2}, {1, 3}, {1, 4},
					    {3, 5}, {4, 5}, {2, 5}};
	static const uint32_t rets[] = {5};
	static const uint32_t a[] = {0, 1, 3, 5}, b[] = {0, 2, 5}, c[] = {0, 1, 4, 5};
	struct fn f;
	struct wpp_tpp t;
	uint64_t train[MAXE * 2] = {0};

	hand_fn(&f, 6, edges, 7, rets, 1);
	memset(&run_a, 0, sizeof(run_a));
	run_a.train = train;
	replay(&f, NULL, &run_a, a, 4, 50);
	replay(&f, NULL, &run_a, b, 3, 50);
	plan(&t, &f, train, 5, 15);
	assert_int_equal(t.nslots, 0);
	assert_int_equal(t.nobvious, 2);
	for (uint32_t k = 0; k < t.nobvious; k++)
		assert_int_not_equal(t.obvious[k].edge, cfg_edge(&f, &t, 0, 1));
	memset(&run_b, 0, sizeof(run_b));
	replay(&f, &t, &run_b, a, 4, 40);
	replay(&f, &t, &run_b, b, 3, 50);
	replay(&f, &t, &run_b, c, 4, 10);
	struct wpp_tpp_profile prof;
	assert_int_equal(slots_profile(&t, &run_b, &prof), 0);
	struct wpp_tpp_quality q;
	quality(&f, &t, &run_b, &prof, &q);
	assert_int_equal(q.total, 40 * 4 + 50 * 3 + 10 * 4);
	assert_int_equal(q.over, 0);
	assert_int_equal(q.under, 10 * 4);
	assert_int_equal(q.cold_under, 10 * 4);
	wpp_tpp_profile_free(&prof);
	wpp_tpp_free(&t);
	wpp_dag_free(&f.d);
}

static void test_extreme_counts(void **state)
{
	(void)state;
	for (int round = 0; round < 300; round++) {
		struct fn f;
		uint64_t train[MAXE * 2];
		random_fn(&f);
		fn_build(&f);
		for (uint32_t g = 0; g < f.d.nedges; g++) {
			uint32_t k = rnd_below(4);
			train[g] = k == 0 ? 0 : k == 1 ? UINT64_MAX : k == 2 ? rnd() : rnd() >> 40;
		}
		struct wpp_tpp t;
		struct wpp_tpp_params p = {5, 15, BIG, BIG, NULL, 0};
		char why[128] = "";
		assert_int_equal(wpp_tpp_plan(&t, &f.cfg, &f.d, train, &p, why, sizeof(why)), 0);
		if (check_plan(&f, &t, 5, 15, train) && t.nslots <= MAXSLOTS &&
		    t.hot.npaths <= MAXSLOTS && f.d.npaths <= MAXSLOTS)
			measure(&f, &t, 50, 1, 0);
		wpp_tpp_free(&t);
		wpp_dag_free(&f.d);
	}
}

/* One block: one path, obvious, counted on one edge; no register. */
static void test_one_block(void **state)
{
	(void)state;
	static const uint32_t rets[] = {0};
	static const uint32_t seq[] = {0};
	struct fn f;
	struct wpp_tpp t;
	uint64_t train[MAXE * 2] = {0};

	hand_fn(&f, 1, NULL, 0, rets, 1);
	memset(&run_a, 0, sizeof(run_a));
	run_a.train = train;
	replay(&f, NULL, &run_a, seq, 1, 3);
	plan(&t, &f, train, 5, 15);
	assert_int_equal(t.hot.npaths, 1);
	assert_int_equal(t.nslots, 0);
	assert_int_equal(t.nops, 0);
	assert_int_equal(t.nobvious, 1);
	memset(&run_b, 0, sizeof(run_b));
	replay(&f, &t, &run_b, seq, 1, 7);
	struct wpp_tpp_profile prof;
	assert_int_equal(slots_profile(&t, &run_b, &prof), 0);
	assert_int_equal(prof.npaths, 1);
	assert_int_equal(prof.path[0].id, 0);
	assert_int_equal(prof.path[0].count, 7);
	wpp_tpp_profile_free(&prof);
	wpp_tpp_free(&t);
	wpp_dag_free(&f.d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_one_block),	   cmocka_unit_test(test_figure7),
	    cmocka_unit_test(test_figure5),	   cmocka_unit_test(test_figure6),
	    cmocka_unit_test(test_aodf_by_hand),   cmocka_unit_test(test_random),
	    cmocka_unit_test(test_extreme_counts), cmocka_unit_test(test_exact_defining),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
