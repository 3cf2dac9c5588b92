/* SPDX-License-Identifier: MIT */
/*
 * meta_tpp_parse.c — a TPP TU's plan tables, validated as hostile input,
 * and the decoding of a counter back into a path (see meta_tpp_model.h).
 */
#include "symbolizer/meta_tpp_model.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/meta_check.h"
#include "symbolizer/meta_model.h"

void wpp_meta_tpp_free(struct wpp_tpp_tu_model *m)
{
	if (!m)
		return;
	free(m->fns), free(m->edges), free(m->obvious), free(m->out_store);
	free(m);
}

/* One plan function: its edges' endpoints and obvious paths, and its
 * out-edge index.  NULL, or why not. */
static const char *check_fn(const struct wpp_fn *fn, const struct wpp_meta_tpp_func *f,
			    struct wpp_tpp_fn_model *fm, uint32_t *out_first, uint32_t *out)
{
	uint32_t nodes = fn->nblocks + 2, entry = fn->nblocks, exit = fn->nblocks + 1;
	for (uint32_t e = 0; e < fm->nedges; e++) {
		const struct wpp_meta_tpp_edge *te = &fm->edges[e];
		if (te->src >= nodes || te->dst >= nodes || te->src == exit || te->dst == entry ||
		    te->src == te->dst)
			return "TPP edge endpoint out of range";
		if (te->hot > 1 || te->rec > 1 || te->in_dag > 1 || (te->rec && !te->hot))
			return "bad TPP edge flags";
	}
	if (f->nslots > f->hot_npaths || f->nslots >= UINT64_MAX - 1 - fm->nobvious)
		return "bad TPP counter count";
	for (uint32_t k = 0; k < fm->nobvious; k++) {
		const struct wpp_meta_tpp_obvious *o = &fm->obvious[k];
		if (o->edge >= fm->nedges || o->exit >= fm->nedges || o->id >= f->hot_npaths)
			return "TPP obvious path out of range";
	}
	/* counting sort of the edges by source node */
	memset(out_first, 0, ((size_t)nodes + 1) * sizeof(uint32_t));
	for (uint32_t e = 0; e < fm->nedges; e++)
		out_first[fm->edges[e].src + 1]++;
	for (uint32_t n = 0; n < nodes; n++)
		out_first[n + 1] += out_first[n];
	for (uint32_t e = 0; e < fm->nedges; e++)
		out[out_first[fm->edges[e].src]++] = e;
	for (uint32_t n = nodes; n > 0; n--)
		out_first[n] = out_first[n - 1];
	out_first[0] = 0;
	fm->out_first = out_first;
	fm->out = out;
	return NULL;
}

int wpp_meta_tpp_parse(struct wpp_tu *tu, const unsigned char *b, const struct wpp_meta_header *h,
		       char *err, size_t errlen)
{
	struct wpp_meta_tpp_header x;
	struct wpp_tpp_tu_model *m;
	uint64_t off = (h->strtab_off + h->strtab_size + 7) & ~UINT64_C(7), size, nout = 0;
	const unsigned char *t;

	/* strtab_off + strtab_size <= total_size was checked, so no wrap. */
	if (off > h->total_size || h->total_size - off < sizeof(x))
		return wpp_meta_fail(err, errlen, "TPP plan tables missing");
	t = b + off;
	size = h->total_size - off;
	memcpy(&x, t, sizeof(x));
	if (memcmp(x.magic, WPP_META_TPP_MAGIC, sizeof(x.magic)) != 0)
		return wpp_meta_fail(err, errlen, "bad TPP plan table magic");
	if (x.version != WPP_META_TPP_VERSION)
		return wpp_meta_fail(
		    err, errlen, "TPP plan tables version %" PRIu32 " not supported", x.version);
	if (x.header_size != sizeof(x) || x.nfuncs != tu->nfuncs)
		return wpp_meta_fail(err, errlen, "TPP plan tables do not match the functions");
	if (!wpp_meta_fits(x.funcs_off, x.nfuncs, sizeof(struct wpp_meta_tpp_func), size) ||
	    !wpp_meta_fits(x.edges_off, x.nedges, sizeof(struct wpp_meta_tpp_edge), size) ||
	    !wpp_meta_fits(x.obvious_off, x.nobvious, sizeof(struct wpp_meta_tpp_obvious), size))
		return wpp_meta_fail(err, errlen, "TPP plan table out of bounds");
	struct wpp_meta_tpp_func *funcs = malloc(((size_t)x.nfuncs + 1) * sizeof(*funcs));
	m = calloc(1, sizeof(*m));
	if (!funcs || !m) {
		free(funcs), free(m);
		return wpp_meta_fail(err, errlen, "out of memory parsing metadata");
	}
	tu->tpp = m;
	m->cold_ppm = x.cold_ppm;
	m->loop_ppm = x.loop_ppm;
	memcpy(funcs, t + x.funcs_off, (size_t)x.nfuncs * sizeof(*funcs));
	for (uint32_t i = 0; i < x.nfuncs; i++) {
		const struct wpp_meta_tpp_func *f = &funcs[i];
		if (f->how != WPP_TPP_HOW_PLAN && f->how != WPP_TPP_HOW_PLAIN &&
		    f->how != WPP_TPP_HOW_SPLIT) {
			uint32_t how = f->how;
			free(funcs);
			return wpp_meta_fail(err, errlen, "unknown TPP function kind %" PRIu32,
					     how);
		}
		if (f->how != WPP_TPP_HOW_PLAIN &&
		    ((uint64_t)f->first_edge + f->nedges > x.nedges ||
		     (uint64_t)f->first_obvious + f->nobvious > x.nobvious)) {
			free(funcs);
			return wpp_meta_fail(err, errlen, "TPP function tables out of range");
		}
		if (f->how != WPP_TPP_HOW_PLAIN)
			nout += (uint64_t)tu->fns[i].nblocks + 3 + f->nedges;
	}
	m->fns = calloc((size_t)x.nfuncs + 1, sizeof(*m->fns));
	m->edges = malloc(((size_t)x.nedges + 1) * sizeof(*m->edges));
	m->obvious = malloc(((size_t)x.nobvious + 1) * sizeof(*m->obvious));
	m->out_store = nout < UINT32_MAX ? malloc((size_t)(nout + 1) * sizeof(uint32_t)) : NULL;
	if (!m->fns || !m->edges || !m->obvious || !m->out_store) {
		free(funcs);
		return wpp_meta_fail(err, errlen, "out of memory parsing metadata");
	}
	memcpy(m->edges, t + x.edges_off, (size_t)x.nedges * sizeof(*m->edges));
	memcpy(m->obvious, t + x.obvious_off, (size_t)x.nobvious * sizeof(*m->obvious));
	uint32_t *next = m->out_store;
	for (uint32_t i = 0; i < x.nfuncs; i++) {
		const struct wpp_meta_tpp_func *f = &funcs[i];
		struct wpp_tpp_fn_model *fm = &m->fns[i];
		struct wpp_fn *fn = &tu->fns[i];
		if (f->how == WPP_TPP_HOW_PLAIN)
			continue;
		fm->split = f->how == WPP_TPP_HOW_SPLIT;
		fm->nslots = f->nslots;
		fm->hot_npaths = f->hot_npaths;
		fm->nedges = f->nedges;
		fm->nobvious = f->nobvious;
		fm->edges = m->edges + f->first_edge;
		fm->obvious = m->obvious + f->first_obvious;
		const char *why = check_fn(fn, f, fm, next, next + fn->nblocks + 3);
		if (why) {
			free(funcs);
			return wpp_meta_fail(err, errlen, "function %s: %s",
					     fn->name[0] ? fn->name : "(unnamed)", why);
		}
		next += fn->nblocks + 3 + f->nedges;
		fn->tpp = fm;
	}
	free(funcs);
	return 0;
}

/* Walks from ENTRY, at each node taking the out-edge of the numbering
 * (hot or rec) with the largest value not above what remains: the edges
 * of the path whose value sum is id, appended to path.  0, or -1 when no
 * path of the numbering has that sum. */
static int decode(const struct wpp_fn *fn, int rec, uint64_t id, uint32_t *path, uint32_t *len)
{
	const struct wpp_tpp_fn_model *m = fn->tpp;
	uint32_t node = fn->nblocks, exit = fn->nblocks + 1;
	*len = 0;
	while (node != exit) {
		uint32_t best = UINT32_MAX;
		uint64_t bestv = 0;
		if (*len > fn->nblocks + 1)
			return -1; /* a cycle in a crafted plan */
		for (uint32_t k = m->out_first[node]; k < m->out_first[node + 1]; k++) {
			const struct wpp_meta_tpp_edge *e = &m->edges[m->out[k]];
			uint64_t v = rec ? e->rec_val : e->hot_val;
			if (!(rec ? e->rec : e->hot) || v > id)
				continue;
			if (best == UINT32_MAX || v > bestv)
				best = m->out[k], bestv = v;
		}
		if (best == UINT32_MAX)
			return -1;
		id -= bestv;
		path[(*len)++] = best;
		node = m->edges[best].dst;
	}
	return id ? -1 : 0;
}

/* Counter c in the plan's own numbering (meta_tpp.h: a split function's
 * array counters come first, its hash holds slots and the cold id only,
 * no poison slots).  0, or -1 for no counter of the plan. */
static int plan_counter(const struct wpp_tpp_fn_model *m, uint64_t *c)
{
	if (!m->split)
		return 0;
	if (*c <= m->nobvious) {
		*c += m->nslots;
		return 0;
	}
	*c -= 1 + (uint64_t)m->nobvious;
	return *c <= m->nslots ? 0 : -1;
}

enum wpp_tpp_counter_kind wpp_tpp_counter_path(const struct wpp_fn *fn, uint64_t c, uint64_t *bl_id)
{
	const struct wpp_tpp_fn_model *m = fn->tpp;
	if (plan_counter(m, &c))
		return WPP_TPP_COUNTER_BAD;
	uint32_t len, *path = malloc(((size_t)fn->nblocks + 2) * sizeof(uint32_t));
	enum wpp_tpp_counter_kind kind = WPP_TPP_COUNTER_BAD;

	if (!path)
		return WPP_TPP_COUNTER_BAD;
	/* the cold counter, or a poison slot (a plan with cold edges): a cold
	 * path that reached a recording point, in [nslots + 1 + nobvious,
	 * + nslots) */
	if (c == m->nslots || (c > m->nslots && c - m->nslots - 1 >= m->nobvious &&
			       c - m->nslots - 1 - m->nobvious < m->nslots)) {
		kind = WPP_TPP_COUNTER_COLD;
		goto out;
	}
	int rc;
	if (c < m->nslots)
		rc = decode(fn, 1, c, path, &len);
	else if (c - m->nslots - 1 < m->nobvious)
		rc = decode(fn, 0, m->obvious[c - m->nslots - 1].id, path, &len);
	else
		goto out;
	if (rc)
		goto out;
	uint64_t id = 0;
	kind = WPP_TPP_COUNTER_PATH;
	for (uint32_t i = 0; i < len; i++) {
		const struct wpp_meta_tpp_edge *e = &m->edges[path[i]];
		if (!e->in_dag)
			kind = WPP_TPP_COUNTER_PIECE;
		else
			id += e->bl_val;
	}
	if (kind == WPP_TPP_COUNTER_PATH && id >= fn->npaths)
		kind = WPP_TPP_COUNTER_BAD;
	*bl_id = id;
out:
	free(path);
	return kind;
}

int wpp_tpp_counter_hot(const struct wpp_fn *fn, uint64_t c, uint64_t *hot_id, uint32_t *nblocks)
{
	const struct wpp_tpp_fn_model *m = fn->tpp;
	if (plan_counter(m, &c))
		return -1;
	uint32_t len, *path = malloc(((size_t)fn->nblocks + 2) * sizeof(uint32_t));
	int rc = -1;

	if (!path)
		return -1;
	if (c < m->nslots)
		rc = decode(fn, 1, c, path, &len);
	else if (c > m->nslots && c - m->nslots - 1 < m->nobvious)
		rc = decode(fn, 0, m->obvious[c - m->nslots - 1].id, path, &len);
	if (!rc) {
		*hot_id = 0;
		for (uint32_t i = 0; i < len; i++)
			*hot_id += m->edges[path[i]].hot_val;
		*nblocks = len ? len - 1 : 0;
	}
	free(path);
	return rc;
}

/* The plan's edge standing for DAG edge de out of its source: the same
 * edge, or the cut that replaced a REAL edge (same CFG edge and value:
 * parallel edges between two nodes differ in value).  UINT32_MAX when
 * none. */
static uint32_t plan_edge(const struct wpp_tpp_fn_model *m, const struct wpp_meta_edge *de)
{
	for (uint32_t k = m->out_first[de->src]; k < m->out_first[de->src + 1]; k++) {
		const struct wpp_meta_tpp_edge *e = &m->edges[m->out[k]];
		if (e->cfg_src != de->cfg_src || e->cfg_dst != de->cfg_dst || e->bl_val != de->val)
			continue;
		if ((e->in_dag && e->dst == de->dst && e->kind == de->kind) ||
		    (e->cut && de->kind == WPP_EDGE_REAL))
			return m->out[k];
	}
	return UINT32_MAX;
}

/* The plan's ENTRY -> v edge (one per node, as in the DAG). */
static uint32_t plan_entry(const struct wpp_fn *fn, uint32_t v)
{
	const struct wpp_tpp_fn_model *m = fn->tpp;
	uint32_t entry = fn->nblocks;
	for (uint32_t k = m->out_first[entry]; k < m->out_first[entry + 1]; k++)
		if (m->edges[m->out[k]].dst == v)
			return m->out[k];
	return UINT32_MAX;
}

int wpp_tpp_split_path(const struct wpp_fn *fn, uint64_t bl_id, wpp_tpp_piece_fn piece, void *ctx)
{
	const struct wpp_tpp_fn_model *m = fn->tpp;
	uint32_t node = fn->nblocks, exit = fn->nblocks + 1, steps = 0, nedges = 0;
	uint64_t rest = bl_id, hot = 0;
	int cold = 0;

	while (node != exit) {
		const struct wpp_meta_edge *de = NULL;
		/* the last out-edge whose value is not above the remainder */
		for (uint32_t k = fn->out_first[node]; k < fn->out_first[node + 1]; k++)
			if (fn->edges[k].val <= rest)
				de = &fn->edges[k];
		if (!de || ++steps > fn->nblocks + 1)
			return -1;
		rest -= de->val;
		uint32_t g = plan_edge(m, de);
		if (g == UINT32_MAX)
			return -1;
		const struct wpp_meta_tpp_edge *e = &m->edges[g];
		cold |= !e->hot, hot += e->hot_val, nedges++;
		if (e->cut) { /* the piece ends here; the next starts at ENTRY -> v */
			piece(ctx, cold, hot, nedges - 1);
			if ((g = plan_entry(fn, de->dst)) == UINT32_MAX)
				return -1;
			e = &m->edges[g];
			cold = !e->hot, hot = e->hot_val, nedges = 1;
		}
		node = de->dst;
	}
	if (rest)
		return -1;
	piece(ctx, cold, hot, nedges - 1);
	return 0;
}
