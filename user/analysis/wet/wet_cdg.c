/* SPDX-License-Identifier: MIT */
/*
 * wet_cdg.c — post-dominators (Cooper-Harvey-Kennedy on the reversed CFG
 * with a virtual exit) and control dependences (Ferrante-Ottenstein-Warren)
 * of one function (wet_cdg.h).
 */
#include "analysis/wet/wet_cdg.h"

#include <stdlib.h>
#include <string.h>

#define UNDEF UINT32_MAX

static int check_cfg(const struct wet_cfg *g)
{
	if (g->nblocks >= UNDEF - 1 || g->succ_off[0] != 0)
		return -1;
	for (uint32_t b = 0; b < g->nblocks; b++) {
		if (g->succ_off[b + 1] < g->succ_off[b])
			return -1;
		for (uint32_t e = g->succ_off[b]; e < g->succ_off[b + 1]; e++)
			if (g->succ[e] >= g->nblocks)
				return -1;
	}
	return 0;
}

/* The reversed graph with the virtual exit x = nblocks: for each node, the
 * nodes it is reached from going backward (its forward predecessors, and
 * for x the blocks that flow into it). */
struct rgraph {
	uint32_t n; /* nodes, exit included */
	uint32_t *off, *adj;
	uint32_t *exits; /* 1 where a block flows into the exit */
};

/* Blocks that reach an exit going forward: a backward search from the
 * blocks without successors. */
static void mark_reaching(const struct wet_cfg *g, const struct rgraph *r, uint8_t *reach,
			  uint32_t *stack)
{
	uint32_t sp = 0;

	for (uint32_t b = 0; b < g->nblocks; b++)
		if (g->succ_off[b + 1] == g->succ_off[b]) {
			reach[b] = 1;
			stack[sp++] = b;
		}
	while (sp) {
		uint32_t b = stack[--sp];

		for (uint32_t e = r->off[b]; e < r->off[b + 1]; e++)
			if (!reach[r->adj[e]]) {
				reach[r->adj[e]] = 1;
				stack[sp++] = r->adj[e];
			}
	}
}

static int build_reverse(const struct wet_cfg *g, struct rgraph *r)
{
	uint32_t n = g->nblocks, nedges = g->succ_off[n];
	uint32_t *fill = calloc(n + 2, sizeof(*fill));
	uint8_t *reach = calloc(n + 1, 1);
	uint32_t *stack = malloc((n + 1) * sizeof(*stack));
	int ok = fill && reach && stack;

	r->n = n + 1;
	r->off = calloc(n + 2, sizeof(*r->off));
	r->adj = malloc(((size_t)nedges + n + 1) * sizeof(*r->adj));
	r->exits = calloc(n + 1, sizeof(*r->exits));
	if (!ok || !r->off || !r->adj || !r->exits) {
		free(fill), free(reach), free(stack);
		return -1;
	}
	/* Predecessor lists of the blocks first (CSR by destination). */
	for (uint32_t e = 0; e < nedges; e++)
		r->off[g->succ[e] + 1]++;
	for (uint32_t b = 0; b < n; b++)
		r->off[b + 1] += r->off[b];
	for (uint32_t b = 0; b < n; b++)
		for (uint32_t e = g->succ_off[b]; e < g->succ_off[b + 1]; e++)
			r->adj[r->off[g->succ[e]] + fill[g->succ[e]]++] = b;
	mark_reaching(g, r, reach, stack);
	/* The exit's list: blocks without successors, and blocks that never
	 * reach one (infinite loops). */
	r->off[n + 1] = r->off[n];
	for (uint32_t b = 0; b < n; b++)
		if (g->succ_off[b + 1] == g->succ_off[b] || !reach[b]) {
			r->exits[b] = 1;
			r->adj[r->off[n + 1]++] = b;
		}
	free(fill), free(reach), free(stack);
	return 0;
}

static void free_reverse(struct rgraph *r)
{
	free(r->off), free(r->adj), free(r->exits);
}

/* Postorder of the reversed graph from the exit (iterative DFS). */
static uint32_t postorder(const struct rgraph *r, uint32_t *order, uint32_t *stack, uint32_t *next,
			  uint8_t *seen)
{
	uint32_t sp = 0, k = 0, x = r->n - 1;

	stack[sp++] = x;
	seen[x] = 1;
	next[x] = r->off[x];
	while (sp) {
		uint32_t v = stack[sp - 1];

		if (next[v] < r->off[v + 1]) {
			uint32_t w = r->adj[next[v]++];

			if (!seen[w]) {
				seen[w] = 1;
				next[w] = r->off[w];
				stack[sp++] = w;
			}
		} else {
			order[k++] = v;
			sp--;
		}
	}
	return k;
}

int wet_postdom(const struct wet_cfg *g, uint32_t *ipdom)
{
	struct rgraph r = {0};
	uint32_t n, x, *order = NULL, *rpo_num = NULL, *stack = NULL, *next = NULL, *dom = NULL;
	uint8_t *seen = NULL;
	int rc = -1, changed = 1;

	if (check_cfg(g) < 0 || build_reverse(g, &r) < 0)
		goto out;
	n = r.n;
	x = n - 1;
	order = malloc(n * sizeof(*order));
	rpo_num = malloc(n * sizeof(*rpo_num));
	stack = malloc(n * sizeof(*stack));
	next = malloc(n * sizeof(*next));
	dom = malloc(n * sizeof(*dom));
	seen = calloc(n, 1);
	if (!order || !rpo_num || !stack || !next || !dom || !seen)
		goto out;
	/* Every block reaches the exit now, so the DFS numbers them all. */
	if (postorder(&r, order, stack, next, seen) != n)
		goto out;
	for (uint32_t i = 0; i < n; i++)
		rpo_num[order[i]] = i; /* higher = earlier in reverse postorder */
	for (uint32_t i = 0; i < n; i++)
		dom[i] = UNDEF;
	dom[x] = x;
	while (changed) {
		changed = 0;
		/* Reverse postorder, skipping the exit (last in postorder). */
		for (uint32_t i = n - 1; i-- > 0;) {
			uint32_t b = order[i], best = UNDEF;

			/* b's predecessors in the reversed graph are its forward
			 * successors, and the exit when b flows into it. */
			for (uint32_t e = g->succ_off[b]; e <= g->succ_off[b + 1]; e++) {
				uint32_t p = e < g->succ_off[b + 1] ? g->succ[e]
					     : r.exits[b]	    ? x
								    : UNDEF;

				if (p == UNDEF || dom[p] == UNDEF)
					continue;
				if (best == UNDEF) {
					best = p;
					continue;
				}
				/* Intersect: walk both up to the common ancestor. */
				while (best != p) {
					while (rpo_num[best] < rpo_num[p])
						best = dom[best];
					while (rpo_num[p] < rpo_num[best])
						p = dom[p];
				}
			}
			if (best != UNDEF && dom[b] != best) {
				dom[b] = best;
				changed = 1;
			}
		}
	}
	for (uint32_t b = 0; b < g->nblocks; b++)
		ipdom[b] = dom[b];
	rc = 0;
out:
	free_reverse(&r);
	free(order), free(rpo_num), free(stack), free(next), free(dom), free(seen);
	return rc;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int wet_control_deps(const struct wet_cfg *g, const uint32_t *ipdom, struct wet_cdeps *out)
{
	uint32_t n = g->nblocks, cap = 16, len = 0;
	/* (dependent block, controlling block) pairs, then grouped by block. */
	uint64_t *pairs = NULL;
	int rc = -1;

	*out = (struct wet_cdeps){0};
	if (check_cfg(g) < 0)
		return -1;
	for (uint32_t b = 0; b < n; b++)
		if (ipdom[b] > n)
			return -1;
	pairs = malloc(cap * sizeof(*pairs));
	out->off = calloc(n + 1, sizeof(*out->off));
	if (!pairs || !out->off)
		goto out;
	for (uint32_t p = 0; p < n; p++)
		for (uint32_t e = g->succ_off[p]; e < g->succ_off[p + 1]; e++) {
			/* Up the post-dominator tree from the successor to p's
			 * ipdom: each block met depends on p.  At most n steps,
			 * even on an ipdom array that is not a tree. */
			uint32_t y = g->succ[e];

			for (uint32_t steps = 0; y != ipdom[p] && y < n && steps <= n; steps++) {
				if (len == cap) {
					uint64_t *bigger =
					    realloc(pairs, 2 * (size_t)cap * sizeof(*pairs));

					if (!bigger)
						goto out;
					pairs = bigger;
					cap *= 2;
				}
				pairs[len++] = (uint64_t)y << 32 | p;
				y = ipdom[y];
			}
		}
	qsort(pairs, len, sizeof(*pairs), cmp_u64);
	out->on = malloc((len + 1) * sizeof(*out->on));
	if (!out->on)
		goto out;
	for (uint32_t i = 0, k = 0; i < len; i++) {
		if (i && pairs[i] == pairs[i - 1])
			continue;
		out->on[k++] = (uint32_t)pairs[i];
		out->off[(pairs[i] >> 32) + 1] = k;
	}
	/* Blocks without dependences take the offset before them. */
	for (uint32_t b = 0; b < n; b++)
		if (out->off[b + 1] < out->off[b])
			out->off[b + 1] = out->off[b];
	rc = 0;
out:
	free(pairs);
	if (rc < 0)
		wet_cdeps_free(out);
	return rc;
}

void wet_cdeps_free(struct wet_cdeps *cd)
{
	free(cd->off);
	free(cd->on);
	*cd = (struct wet_cdeps){0};
}
