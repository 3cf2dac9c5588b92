/* SPDX-License-Identifier: MIT */
/*
 * wet_query.c — queries over a built WET (wet_query.h).  Everything is
 * read through the label streams' cursors: instances by a k-way merge of
 * node timestamp streams, values through tier-1 groups, dependences from
 * local edges (static) or their label streams, slices as worklists.
 */
#include "analysis/wet/wet_query.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolizer/meta_wet_model.h"
#include "analysis/wet/wet_node.h"
#include "decode/wet_values.h"

static int file_matches(const char *have, const char *want)
{
	size_t lh = strlen(have), lw = strlen(want);

	if (!strcmp(have, want))
		return 1;
	return lh > lw && have[lh - lw - 1] == '/' && !strcmp(have + lh - lw, want);
}

static int insn_cmp(const void *a, const void *b)
{
	const struct wet_insn *x = a, *y = b;

	if (x->fn != y->fn)
		return strcmp(x->fn->name, y->fn->name)	     ? strcmp(x->fn->name, y->fn->name)
		       : (uintptr_t)x->fn < (uintptr_t)y->fn ? -1
							     : 1;
	return x->insn < y->insn ? -1 : x->insn > y->insn;
}

int wet_find_insns(const struct wet_thread *t, const char *file, uint32_t line, uint32_t col,
		   struct wet_insn **out)
{
	struct wet_insn *v = NULL;
	size_t n = 0, cap = 0;

	for (uint32_t i = 0; i < t->nnodes; i++) {
		const struct wet_node *nd = t->nodes[i];
		for (uint32_t s = 0; s < nd->nstmts; s++) {
			const struct wpp_meta_wet_stmt *st = nd->stmts[s];
			if (st->line != line || (col && st->column != col) ||
			    !file_matches(wpp_wet_stmt_file(nd->fn, st), file))
				continue;
			size_t j = 0;
			while (j < n && !(v[j].fn == nd->fn && v[j].insn == st->insn))
				j++;
			if (j < n)
				continue;
			if (n == cap) {
				cap = cap ? 2 * cap : 8;
				struct wet_insn *nv = realloc(v, cap * sizeof(*nv));
				if (!nv) {
					free(v);
					return -1;
				}
				v = nv;
			}
			v[n++] = (struct wet_insn){nd->fn, st->insn, st};
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), insn_cmp);
	*out = v;
	return (int)n;
}

int wet_node_ts(struct wet_thread *t, uint32_t node, uint64_t k, uint64_t *ts)
{
	return node < t->nnodes ? wet_stream_get(t->nodes[node]->ts, k, ts) : -1;
}

int wet_flow_at(struct wet_thread *t, uint64_t ts, uint32_t *node)
{
	uint64_t v;

	if (ts == 0 || ts > t->nts || wet_stream_get(t->flow, ts - 1, &v) < 0 || v >= t->nnodes)
		return -1;
	*node = (uint32_t)v;
	return 0;
}

int wet_gap_after(const struct wet_thread *t, uint64_t ts)
{
	size_t lo = 0, hi = t->ngaps;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (t->gaps[mid] < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->ngaps && t->gaps[lo] == ts;
}

/* --- instances of an instruction ---------------------------------------- */

int wet_insn_iter_init(struct wet_insn_iter *it, struct wet_thread *t, const struct wet_insn *in)
{
	*it = (struct wet_insn_iter){.t = t};
	it->occ = calloc((size_t)t->nnodes + 1, sizeof(*it->occ));
	it->count = calloc((size_t)t->nnodes + 1, sizeof(*it->count));
	if (!it->occ || !it->count) {
		wet_insn_iter_free(it);
		return -1;
	}
	for (uint32_t i = 0; i < t->nnodes; i++) {
		const struct wet_node *nd = t->nodes[i];
		if (nd->fn != in->fn || !nd->ninst)
			continue;
		for (uint32_t s = 0; s < nd->nstmts; s++)
			if (nd->stmts[s]->insn == in->insn) {
				struct wet_inst *o = &it->occ[it->nocc];
				*o = (struct wet_inst){.node = i, .pos = s, .k = 0};
				if (wet_stream_get(nd->ts, 0, &o->ts) < 0) {
					wet_insn_iter_free(it);
					return -1;
				}
				it->count[it->nocc++] = nd->ninst;
				break;
			}
	}
	return 0;
}

int wet_insn_iter_next(struct wet_insn_iter *it, struct wet_inst *out)
{
	uint32_t best = UINT32_MAX;

	for (uint32_t i = 0; i < it->nocc; i++)
		if (it->occ[i].k < it->count[i] &&
		    (best == UINT32_MAX || it->occ[i].ts < it->occ[best].ts))
			best = i;
	if (best == UINT32_MAX)
		return 0;
	struct wet_inst *o = &it->occ[best];
	*out = *o;
	if (++o->k < it->count[best] && wet_stream_get(it->t->nodes[o->node]->ts, o->k, &o->ts) < 0)
		return -1;
	return 1;
}

void wet_insn_iter_free(struct wet_insn_iter *it)
{
	free(it->occ);
	free(it->count);
	it->occ = NULL;
	it->count = NULL;
}

/* Instances of a node with timestamp <= ts, by binary search over its
 * (increasing) timestamp stream.  0, or -1. */
static int count_upto(struct wet_thread *t, uint32_t node, uint64_t ts, uint64_t *c)
{
	const struct wet_node *nd = t->nodes[node];
	uint64_t lo = 0, hi = nd->ninst, x;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (wet_stream_get(nd->ts, mid, &x) < 0)
			return -1;
		if (x <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	*c = lo;
	return 0;
}

/* The instances of it's nodes with timestamp <= ts.  0, or -1. */
static int count_all_upto(struct wet_insn_iter *it, uint64_t ts, uint64_t *c)
{
	*c = 0;
	for (uint32_t i = 0; i < it->nocc; i++) {
		uint64_t ci;
		if (count_upto(it->t, it->occ[i].node, ts, &ci) < 0)
			return -1;
		*c += ci;
	}
	return 0;
}

/* Merging from the first instance costs n steps per node holding the
 * instruction; past this, the n-th is found by bisecting the timestamps. */
#define NTH_MERGE_MAX 4096u

int wet_insn_nth(struct wet_thread *t, const struct wet_insn *in, uint64_t n, struct wet_inst *out)
{
	struct wet_insn_iter it;
	uint64_t total = 0;
	int rc = 0;

	if (n == 0 || wet_insn_iter_init(&it, t, in) < 0)
		return n == 0 ? 0 : -1;
	for (uint32_t i = 0; i < it.nocc; i++)
		total += it.count[i];
	if (n > total) {
		rc = 0;
	} else if (it.nocc == 1) { /* one node: the n-th is its instance n - 1 */
		*out = it.occ[0];
		out->k = n - 1;
		rc = wet_stream_get(t->nodes[out->node]->ts, out->k, &out->ts) < 0 ? -1 : 1;
	} else if (n <= NTH_MERGE_MAX) {
		for (uint64_t i = 0; i < n; i++)
			if ((rc = wet_insn_iter_next(&it, out)) <= 0)
				break;
	} else {
		/* the smallest timestamp with n instances up to it is the n-th's */
		uint64_t lo = 1, hi = t->nts, c;
		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;
			if (count_all_upto(&it, mid, &c) < 0)
				break;
			if (c >= n)
				hi = mid;
			else
				lo = mid + 1;
		}
		rc = -1;
		for (uint32_t i = 0; lo == hi && i < it.nocc; i++) {
			uint64_t ci, x;
			if (count_upto(t, it.occ[i].node, lo, &ci) < 0)
				break;
			if (ci == 0 ||
			    wet_stream_get(t->nodes[it.occ[i].node]->ts, ci - 1, &x) < 0 || x != lo)
				continue;
			*out = it.occ[i];
			out->k = ci - 1;
			out->ts = lo;
			rc = 1;
			break;
		}
	}
	wet_insn_iter_free(&it);
	return rc;
}

/* --- values -------------------------------------------------------------- */

static int is_lost(const struct wet_node *n, uint64_t k)
{
	size_t lo = 0, hi = n->nlost;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (n->lost[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n->nlost && n->lost[lo] == k;
}

int wet_inst_value(struct wet_thread *t, const struct wet_inst *i, uint8_t what, uint64_t *v)
{
	const struct wet_node *n = i->node < t->nnodes ? t->nodes[i->node] : NULL;

	if (!n || i->pos >= n->nstmts)
		return n && (i->pos & WET_POS_BLOCK) ? WET_V_NOT_RECORDED : -1;
	uint32_t sl = wet_node_slot_of(n, i->pos, what);
	if (sl == UINT32_MAX)
		return WET_V_NOT_RECORDED;
	if (is_lost(n, i->k))
		return WET_V_LOST;
	if (wet_t1_value(&n->groups[n->slot_group[sl]], n->slot_member[sl], i->k, v) < 0)
		return -1;
	return WET_V_OK;
}

/* --- dependences ---------------------------------------------------------- */

/* A block position as an instance: its branch statement, else the block. */
static uint32_t block_inst_pos(const struct wet_node *n, uint32_t j)
{
	uint32_t found = UINT32_MAX;

	for (uint32_t s = 0; s < n->nstmts; s++)
		if (n->stmt_block[s] == j && n->stmts[s]->kind == WPP_WET_BRANCH)
			found = s;
	return found != UINT32_MAX ? found : WET_POS_BLOCK | j;
}

static int push_ans(struct wet_dep_ans **v, size_t *n, size_t *cap, struct wet_dep_ans a)
{
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 8;
		struct wet_dep_ans *nv = realloc(*v, nc * sizeof(*nv));
		if (!nv)
			return -1;
		*v = nv;
		*cap = nc;
	}
	(*v)[(*n)++] = a;
	return 0;
}

/* The def of label row (node1, pos, k) as an answer. */
static int label_ans(struct wet_thread *t, const struct wet_dep *d, uint64_t node1, uint64_t pos,
		     uint64_t k, struct wet_dep_ans *a)
{
	*a = (struct wet_dep_ans){.kind = d->kind, .op = d->op};
	if (node1 == WET_DEF_NONE) {
		a->status = WET_DEP_IS_NONE;
		return 0;
	}
	if (node1 == WET_DEF_UNKNOWN) {
		a->status = WET_DEP_IS_UNKNOWN;
		return 0;
	}
	if ((uint32_t)node1 == WET_DEF_XTHREAD && d->kind == WET_DEP_MEM && k) {
		a->status = WET_DEP_OTHER_THREAD;
		a->x_fid = (uint32_t)(node1 >> 32);
		a->x_tid = (uint32_t)(pos >> 32);
		a->x_stmt = (uint32_t)pos;
		a->def.ts = k;
		return 0;
	}
	if (node1 > t->nnodes)
		return -1;
	const struct wet_node *dn = t->nodes[node1 - 1];
	a->def.node = (uint32_t)(node1 - 1);
	if (d->kind == WET_DEP_CTRL) {
		if (pos >= dn->nblocks)
			return -1;
		a->def.pos = block_inst_pos(dn, (uint32_t)pos);
	} else {
		if (pos >= dn->nstmts)
			return -1;
		a->def.pos = (uint32_t)pos;
	}
	if (k >= dn->ninst)
		return -1;
	a->def.k = k;
	return wet_node_ts(t, a->def.node, k, &a->def.ts);
}

static int dep_answers(struct wet_thread *t, const struct wet_inst *i, const struct wet_dep *d,
		       struct wet_dep_ans **v, size_t *n, size_t *cap)
{
	struct wet_dep_ans a;
	uint64_t row[WET_DEP_STREAMS];

	if (d->local) {
		const struct wet_node *nd = t->nodes[i->node];
		a = (struct wet_dep_ans){.kind = d->kind, .op = d->op};
		a.def = (struct wet_inst){.node = i->node, .k = i->k, .ts = i->ts};
		a.def.pos =
		    d->kind == WET_DEP_CTRL ? block_inst_pos(nd, d->local_pos) : d->local_pos;
		return push_ans(v, n, cap, a);
	}
	for (int s = 0; s < WET_DEP_STREAMS; s++)
		if (wet_stream_get(d->s[s], i->k, &row[s]) < 0)
			return -1;
	/* A first writer in another thread is the first of the extra rows. */
	int xfirst = row[0] >> WET_SITE_POS_BITS == WET_DEF_XTHREAD;
	size_t before = *n;
	if (!xfirst &&
	    (label_ans(t, d, row[0] >> WET_SITE_POS_BITS,
		       row[0] & ((UINT64_C(1) << WET_SITE_POS_BITS) - 1), i->k - row[1], &a) < 0 ||
	     push_ans(v, n, cap, a) < 0))
		return -1;
	/* Further writers of a partly overlapped load (a shared label's are
	 * its owner's). */
	const struct wet_dep *lab =
	    d->share != WET_NO_SHARE ? &t->nodes[i->node]->deps[d->share] : d;
	for (size_t r = 0; r + 4 <= lab->nmore; r += 4)
		if (lab->more[r] == i->k && (label_ans(t, d, lab->more[r + 1], lab->more[r + 2],
						       lab->more[r + 3], &a) < 0 ||
					     push_ans(v, n, cap, a) < 0))
			return -1;
	/* the site said another thread: its row must be there and come first */
	if (xfirst && (*n == before || (*v)[before].status != WET_DEP_OTHER_THREAD))
		return -1;
	return 0;
}

int wet_deps(struct wet_thread *t, const struct wet_inst *i, struct wet_dep_ans **out)
{
	struct wet_dep_ans *v = NULL;
	size_t n = 0, cap = 0;

	*out = NULL;
	if (i->node >= t->nnodes)
		return -1;
	const struct wet_node *nd = t->nodes[i->node];
	uint32_t block;
	if (i->pos & WET_POS_BLOCK)
		block = i->pos & ~WET_POS_BLOCK;
	else if (i->pos < nd->nstmts)
		block = nd->stmt_block[i->pos];
	else
		return -1;
	for (uint32_t d = 0; d < nd->ndeps; d++) {
		const struct wet_dep *dp = &nd->deps[d];
		int mine = dp->kind == WET_DEP_CTRL
			       ? dp->pos == block
			       : !(i->pos & WET_POS_BLOCK) && dp->pos == i->pos;
		if (mine && dep_answers(t, i, dp, &v, &n, &cap) < 0) {
			free(v);
			return -1;
		}
	}
	*out = v;
	return (int)n;
}

/* --- slices --------------------------------------------------------------- */

struct inst_set {
	struct wet_inst *v; /* slots; node == UINT32_MAX: empty */
	size_t cap, n;
};

static uint64_t inst_hash(const struct wet_inst *i)
{
	uint64_t h = ((uint64_t)i->node << 32 | i->pos) * UINT64_C(0x9e3779b97f4a7c15) ^ i->k;
	h ^= h >> 31;
	return h * UINT64_C(0xbf58476d1ce4e5b9);
}

static int set_has(const struct inst_set *s, const struct wet_inst *i)
{
	if (!s->cap)
		return 0;
	for (size_t j = inst_hash(i) & (s->cap - 1); s->v[j].node != UINT32_MAX;
	     j = (j + 1) & (s->cap - 1))
		if (s->v[j].node == i->node && s->v[j].pos == i->pos && s->v[j].k == i->k)
			return 1;
	return 0;
}

/* 1 added, 0 present, -1 out of memory. */
static int set_add(struct inst_set *s, const struct wet_inst *i)
{
	if (set_has(s, i))
		return 0;
	if ((s->n + 1) * 2 > s->cap) {
		size_t nc = s->cap ? 2 * s->cap : 64;
		struct wet_inst *nv = malloc(nc * sizeof(*nv));
		if (!nv)
			return -1;
		for (size_t j = 0; j < nc; j++)
			nv[j].node = UINT32_MAX;
		for (size_t j = 0; j < s->cap; j++) {
			if (s->v[j].node == UINT32_MAX)
				continue;
			size_t h = inst_hash(&s->v[j]) & (nc - 1);
			while (nv[h].node != UINT32_MAX)
				h = (h + 1) & (nc - 1);
			nv[h] = s->v[j];
		}
		free(s->v);
		s->v = nv;
		s->cap = nc;
	}
	size_t h = inst_hash(i) & (s->cap - 1);
	while (s->v[h].node != UINT32_MAX)
		h = (h + 1) & (s->cap - 1);
	s->v[h] = *i;
	s->n++;
	return 1;
}

static int ts_cmp(const void *a, const void *b)
{
	const struct wet_inst *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* The set's members in timestamp order. */
static int set_list(const struct inst_set *s, struct wet_inst **out)
{
	struct wet_inst *v = malloc((s->n + 1) * sizeof(*v));
	size_t n = 0;

	if (!v)
		return -1;
	for (size_t j = 0; j < s->cap; j++)
		if (s->v[j].node != UINT32_MAX)
			v[n++] = s->v[j];
	qsort(v, n, sizeof(*v), ts_cmp);
	*out = v;
	return (int)n;
}

static int slice_backward(struct wet_thread *t, struct inst_set *set, const struct wet_inst *from,
			  size_t max, int *truncated, uint64_t *unknown)
{
	struct wet_inst *work = malloc(sizeof(*work));
	size_t nwork = 0, cap = 1;
	int rc = -1;

	if (!work || set_add(set, from) < 0)
		goto out;
	work[nwork++] = *from;
	while (nwork) {
		struct wet_inst cur = work[--nwork];
		struct wet_dep_ans *a;
		int na = wet_deps(t, &cur, &a);
		if (na < 0)
			goto out;
		for (int j = 0; j < na; j++) {
			if (a[j].status == WET_DEP_IS_UNKNOWN ||
			    a[j].status == WET_DEP_OTHER_THREAD)
				(*unknown)++;
			if (a[j].status != WET_DEP_FOUND)
				continue;
			if (set->n >= max) {
				*truncated = 1;
				break;
			}
			int added = set_add(set, &a[j].def);
			if (added < 0) {
				free(a);
				goto out;
			}
			if (!added)
				continue;
			if (nwork == cap) {
				cap *= 2;
				struct wet_inst *nw = realloc(work, cap * sizeof(*nw));
				if (!nw) {
					free(a);
					goto out;
				}
				work = nw;
			}
			work[nwork++] = a[j].def;
		}
		free(a);
	}
	rc = 0;
out:
	free(work);
	return rc;
}

/* Instances of node n before timestamp ts (a binary search of its
 * timestamps). */
static int count_before(struct wet_thread *t, uint32_t n, uint64_t ts, uint64_t *count)
{
	uint64_t lo = 0, hi = t->nodes[n]->ninst;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2, v;
		if (wet_node_ts(t, n, mid, &v) < 0)
			return -1;
		if (v < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	*count = lo;
	return 0;
}

/* Does instance i depend on a member of the set?  1, 0, or -1. */
static int depends_on_set(struct wet_thread *t, const struct inst_set *set,
			  const struct wet_inst *i)
{
	struct wet_dep_ans *a;
	int na = wet_deps(t, i, &a), hit = 0;

	if (na < 0)
		return -1;
	for (int j = 0; j < na && !hit; j++)
		hit = a[j].status == WET_DEP_FOUND && set_has(set, &a[j].def);
	free(a);
	return hit;
}

static int slice_forward(struct wet_thread *t, struct inst_set *set, const struct wet_inst *from,
			 size_t max, int *truncated)
{
	uint64_t *k = calloc((size_t)t->nnodes + 1, sizeof(*k));
	int rc = -1;

	if (!k || set_add(set, from) < 0)
		goto out;
	for (uint32_t n = 0; n < t->nnodes; n++)
		if (count_before(t, n, from->ts, &k[n]) < 0)
			goto out;
	for (uint64_t ts = from->ts; ts <= t->nts && !*truncated; ts++) {
		uint32_t node;
		if (wet_flow_at(t, ts, &node) < 0)
			goto out;
		const struct wet_node *nd = t->nodes[node];
		struct wet_inst i = {.node = node, .k = k[node]++, .ts = ts};
		/* In path order: each block's statements, then the block itself
		 * when it has no branch statement to stand for it. */
		for (uint32_t j = 0, s = 0; j < nd->nblocks && !*truncated; j++) {
			for (; s <= nd->nstmts && !*truncated; s++) {
				if (s < nd->nstmts && nd->stmt_block[s] == j)
					i.pos = s;
				else if (block_inst_pos(nd, j) == (WET_POS_BLOCK | j))
					i.pos = WET_POS_BLOCK | j;
				else
					break;
				if (!(ts == from->ts && i.pos == from->pos)) {
					int hit = depends_on_set(t, set, &i);
					if (hit < 0)
						goto out;
					if (hit && set->n >= max)
						*truncated = 1;
					else if (hit && set_add(set, &i) < 0)
						goto out;
				}
				if (i.pos & WET_POS_BLOCK)
					break;
			}
		}
	}
	rc = 0;
out:
	free(k);
	return rc;
}

int wet_slice(struct wet_thread *t, const struct wet_inst *i, int forward, size_t max,
	      struct wet_inst **out, int *truncated, uint64_t *unknown)
{
	struct inst_set set = {0};
	int rc;

	*truncated = 0;
	*unknown = 0;
	*out = NULL;
	if (max == 0)
		max = 1;
	rc = forward ? slice_forward(t, &set, i, max, truncated)
		     : slice_backward(t, &set, i, max, truncated, unknown);
	if (rc == 0)
		rc = set_list(&set, out);
	free(set.v);
	return rc;
}

/* --- verification --------------------------------------------------------- */

struct verify {
	uint64_t streams, values;
	uint64_t *buf;
	size_t cap;
	char *err;
	size_t errlen;
};

static int verify_stream(struct verify *v, struct wet_stream *s, const char *what)
{
	uint64_t n = wet_stream_count(s), x;

	if (wet_stream_verify(s, v->err, v->errlen) < 0)
		return -1;
	if (n > v->cap) {
		uint64_t *b = realloc(v->buf, n * sizeof(*b));
		if (!b) {
			snprintf(v->err, v->errlen, "out of memory");
			return -1;
		}
		v->buf = b;
		v->cap = n;
	}
	for (uint64_t i = 0; i < n; i++)
		if (wet_stream_get(s, i, &v->buf[i]) < 0)
			goto bad;
	for (uint64_t i = n; i-- > 0;)
		if (wet_stream_get(s, i, &x) < 0 || x != v->buf[i])
			goto bad;
	v->streams++;
	v->values += n;
	return 0;
bad:
	snprintf(v->err, v->errlen, "a %s stream reads differently backward", what);
	return -1;
}

int wet_verify(struct wet_thread *t, uint64_t *streams, uint64_t *values, char *err, size_t errlen)
{
	struct verify v = {.err = err, .errlen = errlen};
	int rc = verify_stream(&v, t->flow, "flow");

	for (uint32_t i = 0; rc == 0 && i < t->nnodes; i++) {
		struct wet_node *n = t->nodes[i];
		rc = verify_stream(&v, n->ts, "timestamp");
		for (uint32_t g = 0; rc == 0 && g < n->ngroups; g++) {
			struct wet_t1_group *gr = &n->groups[g];
			rc = verify_stream(&v, gr->pattern, "pattern");
			for (uint32_t s = 0; rc == 0 && s < gr->nstmts; s++) {
				rc = verify_stream(&v, gr->uvals[s], "unique value");
				if (rc == 0 && gr->direct)
					rc = verify_stream(&v, gr->direct[s], "value");
			}
		}
		for (uint32_t d = 0; rc == 0 && d < n->ndeps; d++)
			for (int j = 0; rc == 0 && !n->deps[d].local &&
					n->deps[d].share == WET_NO_SHARE && j < WET_DEP_STREAMS;
			     j++)
				rc = verify_stream(&v, n->deps[d].s[j], "edge label");
	}
	free(v.buf);
	*streams = v.streams;
	*values = v.values;
	return rc;
}
