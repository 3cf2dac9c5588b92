/* SPDX-License-Identifier: MIT */
/* tpp_meta.c — a TPP TU's plan tables (see tpp_meta.h, wpp/meta_tpp.h). */
#include "instrument/tpp_meta.h"

#include <stdlib.h>
#include <string.h>

void wpp_tpp_meta_init(struct wpp_tpp_meta *m, double cold_pct, double loop_pct)
{
	memset(m, 0, sizeof(*m));
	m->cold_ppm = (uint32_t)(cold_pct * 1e4 + 0.5);
	m->loop_ppm = (uint32_t)(loop_pct * 1e4 + 0.5);
}

void wpp_tpp_meta_free(struct wpp_tpp_meta *m)
{
	free(m->funcs), free(m->edges), free(m->obvious), free(m->tail);
	memset(m, 0, sizeof(*m));
}

static struct wpp_meta_tpp_edge edge_of(const struct wpp_tpp *t, uint32_t dag_nedges, uint32_t e)
{
	const struct wpp_dag_edge *fe = &t->full.edges[e];
	const struct wpp_tpp_edge *te = &t->edge[e];
	struct wpp_meta_tpp_edge me = {
	    .src = fe->src,
	    .dst = fe->dst,
	    .kind = fe->kind,
	    .cfg_src = fe->cfg_src,
	    .cfg_dst = fe->cfg_dst,
	    .hot = te->hot_edge != WPP_NONE,
	    .rec = te->rec_edge != WPP_NONE,
	    .op = te->op,
	    .cut = te->cut,
	    .in_dag = e < dag_nedges && !te->cut,
	};
	if (e < dag_nedges) /* the full DAG keeps the DAG's values, cut or not */
		me.bl_val = fe->val;
	if (me.hot)
		me.hot_val = t->hot.edges[te->hot_edge].val;
	if (me.rec)
		me.rec_val = t->rec.edges[te->rec_edge].val;
	return me;
}

int wpp_tpp_meta_add(struct wpp_tpp_meta *m, const struct wpp_tpp *t, uint32_t dag_nedges,
		     int split)
{
	uint32_t ne = t ? t->full.nedges : 0, no = t ? t->nobvious : 0;
	if (ne > UINT32_MAX - m->nedges || no > UINT32_MAX - m->nobvious ||
	    wpp_mb_grow((void **)&m->funcs, &m->cap_funcs, m->nfuncs + 1, sizeof(*m->funcs)) ||
	    wpp_mb_grow((void **)&m->edges, &m->cap_edges, m->nedges + ne, sizeof(*m->edges)) ||
	    wpp_mb_grow((void **)&m->obvious, &m->cap_obvious, m->nobvious + no,
			sizeof(*m->obvious)))
		return -1;
	struct wpp_meta_tpp_func *f = &m->funcs[m->nfuncs++];
	memset(f, 0, sizeof(*f));
	f->how = !t ? WPP_TPP_HOW_PLAIN : split ? WPP_TPP_HOW_SPLIT : WPP_TPP_HOW_PLAN;
	if (!t)
		return 0;
	f->nedges = ne;
	f->first_edge = m->nedges;
	f->nobvious = no;
	f->first_obvious = m->nobvious;
	f->nslots = t->nslots;
	f->hot_npaths = t->hot.npaths;
	for (uint32_t e = 0; e < ne; e++)
		m->edges[m->nedges++] = edge_of(t, dag_nedges, e);
	for (uint32_t k = 0; k < no; k++)
		m->obvious[m->nobvious++] = (struct wpp_meta_tpp_obvious){
		    t->obvious[k].id, t->obvious[k].edge, t->obvious[k].exit};
	return 0;
}

static size_t align8(size_t x)
{
	return (x + 7) & ~(size_t)7;
}

static void put(unsigned char *at, const void *src, size_t n)
{
	if (n)
		memcpy(at, src, n);
}

int wpp_tpp_meta_finish(struct wpp_tpp_meta *m, struct wpp_meta_builder *mb)
{
	struct wpp_meta_tpp_header h = {.version = WPP_META_TPP_VERSION,
					.header_size = sizeof(h),
					.nfuncs = m->nfuncs,
					.cold_ppm = m->cold_ppm,
					.loop_ppm = m->loop_ppm,
					.nedges = m->nedges,
					.nobvious = m->nobvious};
	size_t off = align8(sizeof(h));

	memcpy(h.magic, WPP_META_TPP_MAGIC, sizeof(h.magic));
	h.funcs_off = off;
	off = align8(off + (size_t)m->nfuncs * sizeof(*m->funcs));
	h.edges_off = off;
	off = align8(off + (size_t)m->nedges * sizeof(*m->edges));
	h.obvious_off = off;
	off += (size_t)m->nobvious * sizeof(*m->obvious);
	free(m->tail);
	if (!(m->tail = calloc(1, off))) {
		mb->failed = 1;
		return -1;
	}
	memcpy(m->tail, &h, sizeof(h));
	put(m->tail + h.funcs_off, m->funcs, (size_t)m->nfuncs * sizeof(*m->funcs));
	put(m->tail + h.edges_off, m->edges, (size_t)m->nedges * sizeof(*m->edges));
	put(m->tail + h.obvious_off, m->obvious, (size_t)m->nobvious * sizeof(*m->obvious));
	m->tail_size = off;
	mb->tail = m->tail;
	mb->tail_size = off;
	return 0;
}
