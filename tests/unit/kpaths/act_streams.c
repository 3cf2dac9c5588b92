/* SPDX-License-Identifier: MIT */
/*
 * act_streams.c — random nested-activation runs (see act_streams.h).
 */
#include "act_streams.h"

#include <stdlib.h>

#include "analysis/kpaths/kslab_act.h"

struct frame {
	uint32_t fid;
	size_t seg;  /* truth segment this activation appends to */
	int entered; /* its first (entry) path was recorded */
};

struct gen {
	struct act_run *r;
	uint64_t rng;
	unsigned nfids, nvalues;
	struct frame *st;
	size_t depth, cap;
};

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	*cap = need * 2;
	p = realloc(p, *cap * elem);
	if (!p)
		abort();
	return p;
}

static size_t new_seg(struct act_run *r)
{
	r->segs = grow(r->segs, &r->segs_cap, r->nsegs + 1, sizeof(*r->segs));
	r->seg_len = realloc(r->seg_len, r->segs_cap * sizeof(*r->seg_len));
	r->seg_cap = realloc(r->seg_cap, r->segs_cap * sizeof(*r->seg_cap));
	if (!r->seg_len || !r->seg_cap)
		abort();
	r->segs[r->nsegs] = NULL;
	r->seg_len[r->nsegs] = r->seg_cap[r->nsegs] = 0;
	return r->nsegs++;
}

static void record(struct act_run *r, struct act_ev e)
{
	r->ev = grow(r->ev, &r->cap, r->n + 1, sizeof(*r->ev));
	r->ev[r->n++] = e;
}

static void push(struct gen *g, uint32_t fid)
{
	g->st = grow(g->st, &g->cap, g->depth + 1, sizeof(*g->st));
	g->st[g->depth++] = (struct frame){.fid = fid, .seg = new_seg(g->r)};
	if (g->depth > g->r->max_depth)
		g->r->max_depth = g->depth;
}

/* The innermost activation records one path. */
static void path(struct gen *g, unsigned ret)
{
	struct frame *f = &g->st[g->depth - 1];
	struct act_run *r = g->r;
	uint64_t v = test_rand(&g->rng) % g->nvalues;
	unsigned flags = (f->entered ? 0 : KACT_ENTRY) | ret;

	f->entered = 1;
	record(r, (struct act_ev){.fid = f->fid, .value = v, .flags = flags});
	r->segs[f->seg] =
	    grow(r->segs[f->seg], &r->seg_cap[f->seg], r->seg_len[f->seg] + 1, sizeof(struct ev));
	r->segs[f->seg][r->seg_len[f->seg]++] =
	    (struct ev){.fid = f->fid, .value = v, .at = r->n - 1};
	if (ret)
		g->depth--;
}

/* Outer activation to longjmp to: entered, innermost of its function. */
static size_t jump_target(struct gen *g)
{
	size_t j = (size_t)(test_rand(&g->rng) % (g->depth - 1));

	for (;; j--) {
		int shadowed = 0;
		for (size_t a = j + 1; a < g->depth; a++)
			shadowed |= g->st[a].fid == g->st[j].fid;
		if (!shadowed && g->st[j].entered)
			return j;
		if (j == 0)
			return SIZE_MAX;
	}
}

static uint32_t some_fid(struct gen *g)
{
	return 1 + (uint32_t)(test_rand(&g->rng) % g->nfids);
}

void act_run_generate(struct act_run *r, uint64_t seed, size_t n, unsigned nfids, unsigned nvalues)
{
	struct gen g = {.r = r, .rng = seed, .nfids = nfids, .nvalues = nvalues};

	*r = (struct act_run){0};
	while (r->n < n) {
		unsigned op = (unsigned)(test_rand(&g.rng) % 100);
		size_t j;

		if (g.depth == 0) {
			push(&g, some_fid(&g)); /* a new outermost activation */
			continue;
		}
		if (op < 35) {
			path(&g, 0); /* a loop iteration */
		} else if (op < 50) {
			path(&g, 0); /* ends at a call */
			push(&g, some_fid(&g));
		} else if (op < 58) {
			path(&g, 0); /* a call into uninstrumented code */
		} else if (op < 76) {
			path(&g, KACT_RETURN);
		} else if (op < 80) {
			push(&g, some_fid(&g)); /* a signal handler or callback */
			r->signals++;
		} else if (op < 84 && g.depth >= 2 && (j = jump_target(&g)) != SIZE_MAX) {
			path(&g, 0); /* ends at the call to longjmp */
			g.depth = j + 1;
			path(&g, 0); /* the target resumes after its setjmp */
			r->longjmps++;
		} else if (op < 86) {
			record(r, (struct act_ev){.mark = 1});
			for (size_t a = 0; a < g.depth; a++)
				g.st[a].seg = new_seg(r);
			r->marks++;
		}
	}
	free(g.st);
}

void act_run_free(struct act_run *r)
{
	for (size_t i = 0; i < r->nsegs; i++)
		free(r->segs[i]);
	free(r->segs);
	free(r->seg_len);
	free(r->seg_cap);
	free(r->ev);
	*r = (struct act_run){0};
}
