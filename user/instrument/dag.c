/* SPDX-License-Identifier: MIT */
/* dag.c — CFG description -> Ball-Larus DAG with path cuts (see dag.h). */
#include "instrument/dag.h"

#include <stdlib.h>
#include <string.h>

#include "wpp/meta_format.h"

uint32_t wpp_dag_add_edge(struct wpp_dag *d, uint32_t src, uint32_t dst, uint32_t kind,
			  uint32_t cfg_src, uint32_t cfg_dst)
{
	if (d->nedges == d->cap) {
		uint32_t ncap = d->cap ? d->cap * 2 : 16;
		struct wpp_dag_edge *ne = realloc(d->edges, (size_t)ncap * sizeof(*ne));
		if (!ne)
			return WPP_NONE;
		d->edges = ne;
		d->cap = ncap;
	}
	struct wpp_dag_edge *e = &d->edges[d->nedges];
	memset(e, 0, sizeof(*e));
	e->src = src;
	e->dst = dst;
	e->kind = kind;
	e->cfg_src = cfg_src;
	e->cfg_dst = cfg_dst;
	return d->nedges++;
}

void wpp_dag_free(struct wpp_dag *d)
{
	free(d->edges);
	free(d->cfg_edge_dag);
	free(d->cfg_edge_retreating);
	free(d->cfg_edge_back);
	free(d->entry_edge);
	free(d->exit_edge);
	free(d->restart_at_start);
	free(d->loop_header);
	free(d->dfs_pre);
	free(d->dfs_post);
	memset(d, 0, sizeof(*d));
}

/* Out-adjacency of the CFG in compressed form: succ edges of block b are
 * edge indices adj[start[b] .. start[b+1]). */
struct cfg_adj {
	uint32_t *start;
	uint32_t *adj;
};

static int cfg_adj_build(struct cfg_adj *a, const struct wpp_cfg *cfg)
{
	uint32_t n = cfg->nblocks;
	a->start = calloc((size_t)n + 1, sizeof(uint32_t));
	a->adj = malloc(((size_t)cfg->nedges + 1) * sizeof(uint32_t));
	if (!a->start || !a->adj)
		return -1;
	for (uint32_t e = 0; e < cfg->nedges; e++)
		a->start[cfg->edge_src[e] + 1]++;
	for (uint32_t b = 0; b < n; b++)
		a->start[b + 1] += a->start[b];
	uint32_t *fill = malloc(((size_t)n + 1) * sizeof(uint32_t));
	if (!fill)
		return -1;
	memcpy(fill, a->start, (size_t)n * sizeof(uint32_t));
	for (uint32_t e = 0; e < cfg->nedges; e++)
		a->adj[fill[cfg->edge_src[e]]++] = e;
	free(fill);
	return 0;
}

/* Iterative DFS from block 0, then from every block not yet reached (so
 * cycles among unreachable blocks are cut too).  An edge to a block still on
 * the DFS stack is retreating; removing all of them leaves a DAG, whatever
 * the loop structure (irreducible loops included). */
static int mark_retreating(struct wpp_dag *d, const struct wpp_cfg *cfg, const struct cfg_adj *a)
{
	uint32_t n = cfg->nblocks;
	uint8_t *state = calloc(n, 1); /* 0 new, 1 on stack, 2 done */
	uint32_t *stack = malloc((size_t)n * sizeof(uint32_t));
	uint32_t *next = malloc((size_t)n * sizeof(uint32_t));
	if (!state || !stack || !next) {
		free(state), free(stack), free(next);
		return -1;
	}
	uint32_t pre = 0, post = 0;
	for (uint32_t root = 0; root < n; root++) {
		if (state[root])
			continue;
		uint32_t sp = 0;
		stack[sp++] = root;
		state[root] = 1;
		next[root] = a->start[root];
		d->dfs_pre[root] = pre++;
		while (sp) {
			uint32_t b = stack[sp - 1];
			if (next[b] == a->start[b + 1]) {
				state[b] = 2;
				d->dfs_post[b] = post++;
				sp--;
				continue;
			}
			uint32_t e = a->adj[next[b]++];
			uint32_t v = cfg->edge_dst[e];
			if (state[v] == 1) {
				d->cfg_edge_retreating[e] = 1;
			} else if (state[v] == 0) {
				state[v] = 1;
				next[v] = a->start[v];
				d->dfs_pre[v] = pre++;
				stack[sp++] = v;
			}
		}
	}
	free(state), free(stack), free(next);
	return 0;
}

/* How edge e ends a path whatever the loops are: CALL_EXIT into a call
 * head, CUT_EXIT into a pinned block or out of an indirect source, else
 * WPP_NONE (it is REAL, or a back edge if mark_back_edges says so). */
static uint32_t cut_kind(const struct wpp_cfg *cfg, uint32_t e)
{
	uint8_t uf = cfg->block_flags[cfg->edge_src[e]], vf = cfg->block_flags[cfg->edge_dst[e]];

	if (vf & WPP_CFGB_CALL_HEAD)
		return WPP_EDGE_CALL_EXIT;
	if ((vf & WPP_CFGB_PINNED) || (uf & WPP_CFGB_INDIRECT_SRC))
		return WPP_EDGE_CUT_EXIT;
	return WPP_NONE;
}

static int is_cut_anyway(const struct wpp_cfg *cfg, uint32_t e)
{
	return cut_kind(cfg, e) != WPP_NONE;
}

/*
 * Which retreating edges must end a path.  Only those on a cycle that no
 * other cut breaks: a loop whose body calls instrumented code (or goes
 * through a computed goto) already has a path end on every trip around
 * it, so its retreating edge can stay an ordinary DAG edge and the path
 * runs on from the call's continuation through the header to the next
 * call — one record per iteration instead of two (lua's interpreter loop,
 * whose every bytecode went back to the dispatch block and then through
 * its indirectbr, wrote two words per bytecode).
 *
 * G' is the CFG without the edges cut anyway.  A retreating edge is cut
 * iff its ends lie in one strongly connected component of G'.  That is
 * enough: a cycle left in G' after those cuts would be a cycle of the CFG,
 * so it holds a retreating edge, whose ends share the cycle's component.
 * Components by an iterative Tarjan walk (blocks in index order, edges in
 * adjacency order: deterministic).
 */
static int mark_back_edges(struct wpp_dag *d, const struct wpp_cfg *cfg, const struct cfg_adj *a)
{
	uint32_t n = cfg->nblocks, counter = 0, sp = 0, csp = 0, ncomp = 0;
	uint32_t *index = malloc((size_t)n * sizeof(uint32_t));
	uint32_t *low = malloc((size_t)n * sizeof(uint32_t));
	uint32_t *comp = malloc((size_t)n * sizeof(uint32_t));
	uint32_t *next = malloc((size_t)n * sizeof(uint32_t));
	uint32_t *stack = malloc((size_t)n * sizeof(uint32_t)); /* Tarjan's stack */
	uint32_t *calls = malloc((size_t)n * sizeof(uint32_t)); /* DFS call stack */
	uint8_t *on_stack = calloc(n, 1);
	int rc = -1;

	if (!index || !low || !comp || !next || !stack || !calls || !on_stack)
		goto out;
	for (uint32_t b = 0; b < n; b++)
		index[b] = WPP_NONE;
	for (uint32_t root = 0; root < n; root++) {
		if (index[root] != WPP_NONE)
			continue;
		index[root] = low[root] = counter++;
		next[root] = a->start[root];
		stack[sp++] = root, on_stack[root] = 1;
		calls[csp++] = root;
		while (csp) {
			uint32_t b = calls[csp - 1];
			if (next[b] < a->start[b + 1]) {
				uint32_t e = a->adj[next[b]++], v = cfg->edge_dst[e];
				if (is_cut_anyway(cfg, e))
					continue;
				if (index[v] == WPP_NONE) {
					index[v] = low[v] = counter++;
					next[v] = a->start[v];
					stack[sp++] = v, on_stack[v] = 1;
					calls[csp++] = v;
				} else if (on_stack[v] && index[v] < low[b]) {
					low[b] = index[v];
				}
				continue;
			}
			csp--;
			if (csp && low[b] < low[calls[csp - 1]])
				low[calls[csp - 1]] = low[b];
			if (low[b] == index[b]) {
				uint32_t w;
				do {
					w = stack[--sp];
					on_stack[w] = 0;
					comp[w] = ncomp;
				} while (w != b);
				ncomp++;
			}
		}
	}
	for (uint32_t e = 0; e < cfg->nedges; e++)
		d->cfg_edge_back[e] = d->cfg_edge_retreating[e] && !is_cut_anyway(cfg, e) &&
				      comp[cfg->edge_src[e]] == comp[cfg->edge_dst[e]];
	rc = 0;
out:
	free(index), free(low), free(comp), free(next), free(stack), free(calls), free(on_stack);
	return rc;
}

/* The single ENTRY->v edge of a block, created on first use. */
static uint32_t entry_edge_for(struct wpp_dag *d, uint32_t v, uint32_t kind)
{
	if (d->entry_edge[v] == WPP_NONE)
		d->entry_edge[v] =
		    wpp_dag_add_edge(d, WPP_DAG_ENTRY(d->nblocks), v, kind, WPP_NONE, v);
	return d->entry_edge[v];
}

static int add_cfg_edge(struct wpp_dag *d, const struct wpp_cfg *cfg, uint32_t e)
{
	uint32_t n = cfg->nblocks, u = cfg->edge_src[e], v = cfg->edge_dst[e];
	uint32_t exit = WPP_DAG_EXIT(n);
	uint8_t uf = cfg->block_flags[u];
	uint32_t ex_kind = cut_kind(cfg, e), en_kind;

	if (ex_kind == WPP_EDGE_CALL_EXIT)
		en_kind = WPP_EDGE_CALL_ENTRY;
	else if (ex_kind == WPP_EDGE_CUT_EXIT)
		en_kind = WPP_EDGE_CUT_ENTRY;
	else if (d->cfg_edge_back[e])
		ex_kind = WPP_EDGE_BACK_EXIT, en_kind = WPP_EDGE_BACK_ENTRY;
	else {
		d->cfg_edge_dag[e] = wpp_dag_add_edge(d, u, v, WPP_EDGE_REAL, u, v);
		return d->cfg_edge_dag[e] == WPP_NONE ? -1 : 0;
	}

	if (uf & WPP_CFGB_INDIRECT_SRC) {
		/* One path end before the terminator, whatever target is taken. */
		if (d->exit_edge[u] == WPP_NONE)
			d->exit_edge[u] =
			    wpp_dag_add_edge(d, u, exit, WPP_EDGE_CUT_EXIT, u, WPP_NONE);
		d->cfg_edge_dag[e] = d->exit_edge[u];
	} else {
		d->cfg_edge_dag[e] = wpp_dag_add_edge(d, u, exit, ex_kind, u, v);
	}
	if (d->cfg_edge_dag[e] == WPP_NONE || entry_edge_for(d, v, en_kind) == WPP_NONE)
		return -1;
	return 0;
}

int wpp_dag_build(struct wpp_dag *d, const struct wpp_cfg *cfg)
{
	uint32_t n = cfg->nblocks;
	memset(d, 0, sizeof(*d));
	if (n == 0 || n >= UINT32_MAX - 2)
		return -1;
	for (uint32_t e = 0; e < cfg->nedges; e++)
		if (cfg->edge_src[e] >= n || cfg->edge_dst[e] >= n)
			return -1;
	d->nblocks = n;
	d->cfg_edge_dag = malloc(((size_t)cfg->nedges + 1) * sizeof(uint32_t));
	d->cfg_edge_retreating = calloc((size_t)cfg->nedges + 1, 1);
	d->cfg_edge_back = calloc((size_t)cfg->nedges + 1, 1);
	d->entry_edge = malloc((size_t)n * sizeof(uint32_t));
	d->exit_edge = malloc((size_t)n * sizeof(uint32_t));
	d->restart_at_start = calloc(n, 1);
	d->loop_header = calloc(n, 1);
	d->dfs_pre = calloc(n, sizeof(uint32_t));
	d->dfs_post = calloc(n, sizeof(uint32_t));
	struct cfg_adj a = {0};
	int rc = -1;
	if (!d->cfg_edge_dag || !d->cfg_edge_retreating || !d->cfg_edge_back || !d->entry_edge ||
	    !d->exit_edge || !d->restart_at_start || !d->loop_header || !d->dfs_pre || !d->dfs_post)
		goto out;
	for (uint32_t b = 0; b < n; b++)
		d->entry_edge[b] = d->exit_edge[b] = WPP_NONE;
	if (cfg_adj_build(&a, cfg) || mark_retreating(d, cfg, &a) || mark_back_edges(d, cfg, &a))
		goto out;

	d->entry_edge[0] =
	    wpp_dag_add_edge(d, WPP_DAG_ENTRY(n), 0, WPP_EDGE_FUNC_ENTRY, WPP_NONE, 0);
	if (d->entry_edge[0] == WPP_NONE)
		goto out;
	/* Build edges block by block so each node's out-edges are contiguous
	 * in CFG successor order (deterministic numbering). */
	for (uint32_t u = 0; u < n; u++) {
		for (uint32_t i = a.start[u]; i < a.start[u + 1]; i++)
			if (add_cfg_edge(d, cfg, a.adj[i]))
				goto out;
		uint32_t kind = WPP_NONE;
		switch (cfg->block_exit[u]) {
		case WPP_CFG_EXIT_RETURN:
			kind = WPP_EDGE_RETURN;
			break;
		case WPP_CFG_EXIT_NORETURN:
		case WPP_CFG_EXIT_RESUME:
			kind = WPP_EDGE_NORETURN;
			break;
		default:
			break;
		}
		if (kind != WPP_NONE) {
			d->exit_edge[u] =
			    wpp_dag_add_edge(d, u, WPP_DAG_EXIT(n), kind, u, WPP_NONE);
			if (d->exit_edge[u] == WPP_NONE)
				goto out;
		}
		/* A block with no way out at all (e.g. indirectbr without
		 * destinations) still needs one, or it would have no paths. */
		if (a.start[u] == a.start[u + 1] && kind == WPP_NONE &&
		    d->exit_edge[u] == WPP_NONE) {
			d->exit_edge[u] =
			    wpp_dag_add_edge(d, u, WPP_DAG_EXIT(n), WPP_EDGE_NORETURN, u, WPP_NONE);
			if (d->exit_edge[u] == WPP_NONE)
				goto out;
		}
	}
	/* restart_at_start: every in-edge is a cut. */
	memset(d->restart_at_start, 1, n);
	for (uint32_t e = 0; e < cfg->nedges; e++) {
		uint32_t v = cfg->edge_dst[e];
		if (d->edges[d->cfg_edge_dag[e]].kind == WPP_EDGE_REAL)
			d->restart_at_start[v] = 0;
		if (d->cfg_edge_retreating[e])
			d->loop_header[v] = 1;
	}
	rc = 0;
out:
	free(a.start);
	free(a.adj);
	if (rc)
		wpp_dag_free(d);
	return rc;
}

struct order_key {
	uint32_t src;
	uint32_t idx;
	uint64_t val;
};

static int cmp_src_val(const void *pa, const void *pb)
{
	const struct order_key *a = pa, *b = pb;
	if (a->src != b->src)
		return a->src < b->src ? -1 : 1;
	if (a->val != b->val)
		return a->val < b->val ? -1 : 1;
	return a->idx < b->idx ? -1 : (a->idx > b->idx);
}

uint32_t *wpp_dag_meta_order(const struct wpp_dag *d)
{
	struct order_key *k = malloc(((size_t)d->nedges + 1) * sizeof(*k));
	uint32_t *ord = malloc(((size_t)d->nedges + 1) * sizeof(uint32_t));
	if (!k || !ord) {
		free(k), free(ord);
		return NULL;
	}
	for (uint32_t i = 0; i < d->nedges; i++)
		k[i] = (struct order_key){d->edges[i].src, i, d->edges[i].val};
	qsort(k, d->nedges, sizeof(*k), cmp_src_val);
	for (uint32_t i = 0; i < d->nedges; i++)
		ord[i] = k[i].idx;
	free(k);
	return ord;
}
