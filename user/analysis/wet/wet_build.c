/* SPDX-License-Identifier: MIT */
/*
 * wet_build.c — the streaming WET builder (wet_build.h): walks one
 * thread's path executions in order, keeping per activation the last
 * instance of every instruction and block, and a shadow memory, so that
 * every dependence of an instance is resolved the moment it executes and
 * goes straight into its label streams.
 */
#include "analysis/wet/wet_build.h"

#include <stdlib.h>
#include <string.h>

#include "symbolizer/meta_wet_model.h"
#include "wpp/wet_abi.h"
#include "analysis/wet/wet_dedup.h"
#include "common/varint.h"
#include "analysis/wet/wet_node.h"
#include "analysis/wet/wet_shadow.h"
#include "analysis/wet/wet_xorder.h"

/* The last instance of an instruction or block in an activation; valid
 * when gen is the frame's (frames are reused without clearing). */
struct last {
	uint32_t node1, pos;
	uint64_t k, ts;
	uint64_t gen;
};

struct frame {
	const struct wpp_fn *fn;
	uint64_t gen;
	struct last *insn, *blk;
	uint32_t cap_insn, cap_blk;
	uint32_t last_block; /* the block the previous path of the frame ended in */
	uint32_t call_block; /* the call the frame waits on, or UINT32_MAX */
	int linked;	     /* called directly from its caller frame: args known */
	struct last ret;     /* the result of the call that just returned */
	struct last entry_ctrl;
	struct last *args;
	uint32_t cap_args;
};

struct stack {
	struct frame *f;
	uint32_t depth, cap;
};

struct node_map {
	uint64_t *keys; /* hash of (fn, path) slots, 0 empty */
	uint32_t *idx;
	uint32_t cap;
};

struct wet_build {
	struct wet_build_opts opts;
	struct wet_thread *t;
	uint32_t cap_nodes;
	struct node_map map;
	struct wet_builder flow;
	struct stack stacks[WET_MAX_SIGNAL_DEPTH];
	uint32_t prev_depth;
	uint64_t gen;
	struct wet_shadow *sh;
	int after_gap;
	struct wet_cdg_cache cdgs;
	uint64_t next_release;
	uint64_t writers[WET_SHADOW_MAX_ACCESS];
	size_t cap_gaps;
};

static const struct last NO_DEF = {0};

static struct last unknown_def(void)
{
	return (struct last){.node1 = WET_DEF_UNKNOWN};
}

struct wet_build *wet_build_new(const struct wet_build_opts *opts, uint32_t pid, uint32_t tid,
				uint32_t gen)
{
	struct wet_build *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	if (opts)
		b->opts = *opts;
	if (!b->opts.shadow_bytes)
		b->opts.shadow_bytes = (size_t)1 << 30;
	b->t = calloc(1, sizeof(*b->t));
	b->sh = wet_shadow_new(b->opts.shadow_bytes);
	if (!b->t || !b->sh || wet_builder_init(&b->flow, NULL) < 0) {
		wet_shadow_free(b->sh);
		free(b->t);
		free(b);
		return NULL;
	}
	b->t->pid = pid;
	b->t->tid = tid;
	b->t->gen = gen;
	b->next_release = WET_BUILD_RELEASE_EVERY;
	return b;
}

uint64_t wet_build_timestamps(const struct wet_build *b)
{
	return b->t->nts;
}

/* --- nodes ---------------------------------------------------------------- */

static uint64_t node_key(const struct wpp_fn *fn, uint64_t path_id)
{
	uint64_t h = (uint64_t)(uintptr_t)fn * UINT64_C(0x9e3779b97f4a7c15) ^ path_id;

	h ^= h >> 29;
	h *= UINT64_C(0xbf58476d1ce4e5b9);
	h ^= h >> 32;
	return h ? h : 1;
}

static int map_grow(struct node_map *m, struct wet_node **nodes)
{
	uint32_t nc = m->cap ? 2 * m->cap : 256;
	uint64_t *keys = calloc(nc, sizeof(*keys));
	uint32_t *idx = calloc(nc, sizeof(*idx));

	if (!keys || !idx) {
		free(keys);
		free(idx);
		return -1;
	}
	for (uint32_t i = 0; i < m->cap; i++) {
		if (!m->keys[i])
			continue;
		uint32_t j = (uint32_t)(m->keys[i] & (nc - 1));
		while (keys[j])
			j = (j + 1) & (nc - 1);
		keys[j] = m->keys[i];
		idx[j] = m->idx[i];
	}
	(void)nodes;
	free(m->keys);
	free(m->idx);
	m->keys = keys;
	m->idx = idx;
	m->cap = nc;
	return 0;
}

/* The node of (fn, path_id), created on first sight; UINT32_MAX on error. */
static uint32_t node_of(struct wet_build *b, const struct wpp_fn *fn, uint64_t path_id,
			const struct wpp_path *p)
{
	struct wet_thread *t = b->t;
	uint64_t key = node_key(fn, path_id);

	if ((t->nnodes + 1) * 2 > b->map.cap && map_grow(&b->map, t->nodes) < 0)
		return UINT32_MAX;
	uint32_t j = (uint32_t)(key & (b->map.cap - 1));
	for (; b->map.keys[j]; j = (j + 1) & (b->map.cap - 1)) {
		struct wet_node *n = t->nodes[b->map.idx[j]];
		if (b->map.keys[j] == key && n->fn == fn && n->path_id == path_id)
			return b->map.idx[j];
	}
	const struct wet_fn_cdg *cdg = fn->wet ? wet_cdg_cache_get(&b->cdgs, fn) : NULL;
	if (fn->wet && !cdg)
		return UINT32_MAX;
	if (t->nnodes == b->cap_nodes) {
		uint32_t nc = b->cap_nodes ? 2 * b->cap_nodes : 64;
		struct wet_node **nn = realloc(t->nodes, nc * sizeof(*nn));
		if (!nn)
			return UINT32_MAX;
		t->nodes = nn;
		b->cap_nodes = nc;
	}
	struct wet_node *n = wet_node_new(fn, path_id, p, cdg);
	if (!n)
		return UINT32_MAX;
	t->nodes[t->nnodes] = n;
	b->map.keys[j] = key;
	b->map.idx[j] = t->nnodes;
	return t->nnodes++;
}

/* --- activations ---------------------------------------------------------- */

static int grow_last(struct last **a, uint32_t *cap, uint32_t need)
{
	if (need <= *cap)
		return 0;
	struct last *n = realloc(*a, (size_t)need * sizeof(*n));
	if (!n)
		return -1;
	memset(n + *cap, 0, (size_t)(need - *cap) * sizeof(*n));
	*a = n;
	*cap = need;
	return 0;
}

static struct frame *push_frame(struct wet_build *b, struct stack *st, const struct wpp_fn *fn)
{
	if (st->depth == st->cap) {
		uint32_t nc = st->cap ? 2 * st->cap : 16;
		struct frame *f = realloc(st->f, nc * sizeof(*f));
		if (!f)
			return NULL;
		memset(f + st->cap, 0, (nc - st->cap) * sizeof(*f));
		st->f = f;
		st->cap = nc;
	}
	struct frame *f = &st->f[st->depth];
	uint32_t ninsns = fn->wet ? fn->wet->ninsns : 0, nargs = fn->wet ? fn->wet->nargs : 0;
	if (grow_last(&f->insn, &f->cap_insn, ninsns + 1) < 0 ||
	    grow_last(&f->blk, &f->cap_blk, fn->nblocks + 1) < 0 ||
	    grow_last(&f->args, &f->cap_args, nargs + 1) < 0)
		return NULL;
	st->depth++;
	f->fn = fn;
	f->gen = ++b->gen;
	f->last_block = UINT32_MAX;
	f->call_block = UINT32_MAX;
	f->linked = 0;
	f->ret = NO_DEF;
	f->entry_ctrl = unknown_def();
	return f;
}

static struct last frame_get(const struct frame *f, const struct last *a, uint32_t i)
{
	return a[i].gen == f->gen ? a[i] : NO_DEF;
}

/* The latest instance in the frame of a block controlling block b. */
static struct last ctrl_def(struct wet_build *b, const struct frame *f, uint32_t blk)
{
	const struct wet_fn_cdg *cdg = wet_cdg_cache_get(&b->cdgs, f->fn);
	struct last best = NO_DEF;

	if (!cdg)
		return unknown_def();
	for (uint32_t c = cdg->cd.off[blk]; c < cdg->cd.off[blk + 1]; c++) {
		struct last l = frame_get(f, f->blk, cdg->cd.on[c]);
		if (l.node1 && (!best.node1 || l.ts > best.ts))
			best = l;
	}
	return best;
}

/* A path starting at its function's entry: a new activation, linked to
 * the caller frame when that frame waits on a direct call of fn (a call
 * through uninstrumented code, like qsort's callbacks, is not linked: its
 * arguments are unknown, not invented). */
static struct frame *enter(struct wet_build *b, struct stack *st, const struct wpp_fn *fn)
{
	struct frame *caller = st->depth ? &st->f[st->depth - 1] : NULL;
	const struct wpp_meta_wet_stmt *call = NULL;

	if (caller && caller->fn->wet && caller->call_block < caller->fn->nblocks) {
		const struct wpp_meta_wet_block *bl = &caller->fn->wet->blocks[caller->call_block];
		const struct wpp_meta_wet_stmt *s = &caller->fn->tu->wet->stmts[bl->first_stmt];
		if (bl->nstmts && s->kind == WPP_WET_CALL && s->callee_str &&
		    caller->fn->tu == fn->tu &&
		    !strcmp(wpp_tu_str(fn->tu, s->callee_str), fn->name))
			call = s;
	}
	/* Resolved before the push, which may move the caller frame. */
	struct last ctrl = call ? ctrl_def(b, caller, caller->call_block) : unknown_def();
	struct frame *f = push_frame(b, st, fn);
	if (!f)
		return NULL;
	caller = st->depth > 1 ? &st->f[st->depth - 2] : NULL;
	for (uint32_t a = 0; fn->wet && a < fn->wet->nargs; a++) {
		f->args[a] = unknown_def();
		f->args[a].gen = f->gen;
	}
	if (!call)
		return f;
	f->linked = 1;
	f->entry_ctrl = ctrl;
	const struct wpp_meta_wet_operand *ops = caller->fn->tu->wet->ops;
	for (uint32_t a = 0; a < fn->wet->nargs && a < call->nops; a++) {
		const struct wpp_meta_wet_operand *op = &ops[call->first_op + a];
		struct last d = NO_DEF;
		if (op->kind == WPP_WET_OP_INSN)
			d = frame_get(caller, caller->insn, op->id);
		else if (op->kind == WPP_WET_OP_ARG)
			d = frame_get(caller, caller->args, op->id);
		d.gen = f->gen;
		f->args[a] = d;
	}
	return f;
}

/* The frame a path of fn runs in. */
static struct frame *frame_for(struct wet_build *b, uint32_t depth, const struct wpp_fn *fn,
			       const struct wpp_path *p)
{
	if (depth >= WET_MAX_SIGNAL_DEPTH)
		depth = WET_MAX_SIGNAL_DEPTH - 1;
	/* Leaving a handler ends its activations. */
	for (uint32_t d = depth + 1; d < WET_MAX_SIGNAL_DEPTH && d <= b->prev_depth; d++)
		b->stacks[d].depth = 0;
	b->prev_depth = depth;
	struct stack *st = &b->stacks[depth];
	if (p->start == WPP_START_ENTRY)
		return enter(b, st, fn);
	/* A path resuming: its function's latest activation (frames above it
	 * were left without a return: longjmp, exceptions). */
	for (uint32_t i = st->depth; i-- > 0;)
		if (st->f[i].fn == fn) {
			st->depth = i + 1;
			return &st->f[i];
		}
	return push_frame(b, st, fn); /* its entry was not seen (a gap) */
}

/* --- resolving dependences ------------------------------------------------ */

static struct last operand_def(const struct frame *f, const struct wpp_meta_wet_operand *op)
{
	if (op->kind == WPP_WET_OP_INSN && f->fn->wet && op->id < f->fn->wet->ninsns)
		return frame_get(f, f->insn, op->id);
	if (op->kind == WPP_WET_OP_ARG && f->fn->wet && op->id < f->fn->wet->nargs)
		return frame_get(f, f->args, op->id);
	return NO_DEF;
}

static int feed(struct wet_dep *d, uint64_t k, struct last l)
{
	int known = l.node1 && l.node1 != WET_DEF_UNKNOWN && l.node1 != WET_DEF_XTHREAD;

	if (known && l.pos >= (1u << WET_SITE_POS_BITS))
		l.node1 = WET_DEF_UNKNOWN, known = 0;
	if (wet_builder_add(&d->b[0],
			    (uint64_t)l.node1 << WET_SITE_POS_BITS | (known ? l.pos : 0)) < 0)
		return -1;
	return wet_builder_add(&d->b[1], known ? k - l.k : 0);
}

/* Writer ids in the shadow: node + 1 (22 bits), position (10), instance
 * (31); WET_WRITER_MAX stands for a store beyond that range. */
static uint64_t writer_id(uint32_t node, uint32_t pos, uint64_t k)
{
	if (node + 2 >= (1u << 22) || pos >= 1024 || k >= (UINT64_C(1) << 31))
		return WET_WRITER_MAX;
	return (uint64_t)(node + 1) << 41 | (uint64_t)pos << 31 | k;
}

static struct last writer_def(const struct wet_build *b, uint64_t w)
{
	if (w == WET_WRITER_NONE)
		return b->after_gap ? unknown_def() : NO_DEF;
	if (w == WET_WRITER_UNKNOWN || w == WET_WRITER_MAX)
		return unknown_def();
	return (struct last){.node1 = (uint32_t)(w >> 41),
			     .pos = (uint32_t)(w >> 31) & 1023,
			     .k = w & ((UINT64_C(1) << 31) - 1)};
}

static int shared(const struct wet_build *b, uint64_t addr, uint64_t size)
{
	if (!b->opts.shared_page)
		return 0;
	for (uint64_t pg = addr / WET_SHADOW_PAGE; pg <= (addr + size - 1) / WET_SHADOW_PAGE; pg++)
		if (b->opts.shared_page(b->opts.ctx, pg))
			return 1;
	return 0;
}

static int push_more(struct wet_dep *d, uint64_t k, uint64_t node1, uint64_t pos, uint64_t dk)
{
	if (d->nmore + 4 > d->cap_more) {
		size_t nc = d->cap_more ? 2 * d->cap_more : 16;
		uint64_t *m = realloc(d->more, nc * sizeof(*m));
		if (!m)
			return -1;
		d->more = m;
		d->cap_more = nc;
	}
	d->more[d->nmore++] = k;
	d->more[d->nmore++] = node1;
	d->more[d->nmore++] = pos;
	d->more[d->nmore++] = dk;
	return 0;
}

/* Another thread's store in b->writers: its record's address with the top
 * bit set (never WET_WRITER_UNKNOWN, the top bit alone). */
#define XWRITER (UINT64_C(1) << 63)

static int is_xwriter(uint64_t w)
{
	return (w & XWRITER) && w != WET_WRITER_UNKNOWN;
}

/* The distinct writers of [addr, addr + size) in order of their first
 * byte, the other threads' stores ordered by wet_xorder, into b->writers:
 * their count. */
static int xorder_writers(struct wet_build *b, uint64_t addr, uint32_t size)
{
	int n = 0;

	for (uint64_t a = addr; a < addr + size; a++) {
		uint64_t w = wet_shadow_writer(b->sh, a), code;
		enum wet_xorder_own own =
		    w == WET_WRITER_NONE ? (b->after_gap ? WET_XOWN_UNKNOWN : WET_XOWN_NONE)
		    : w == WET_WRITER_UNKNOWN || w == WET_WRITER_MAX ? WET_XOWN_UNKNOWN
								     : WET_XOWN_KNOWN;
		const struct wet_xstore *o;
		switch (wet_xorder_byte(b->opts.xorder, a, own, &o)) {
		case WET_X_OWN:
			code = w;
			break;
		case WET_X_OTHER:
			code = XWRITER | (uint64_t)(uintptr_t)o;
			break;
		default:
			code = WET_WRITER_UNKNOWN;
		}
		int i = 0;
		while (i < n && b->writers[i] != code)
			i++;
		if (i == n)
			b->writers[n++] = code;
	}
	return n;
}

/* Writer w of instance k's load: its extra row when it is another
 * thread's store (then the def is WET_DEF_XTHREAD), or its def. */
static int writer_row(struct wet_build *b, struct wet_dep *d, uint64_t k, uint64_t w, int first,
		      struct last *def)
{
	if (is_xwriter(w)) {
		const struct wet_xstore *o = (const struct wet_xstore *)(uintptr_t)(w & ~XWRITER);
		*def = (struct last){.node1 = WET_DEF_XTHREAD};
		b->t->mem_xthread++;
		return push_more(d, k, (uint64_t)o->fid << 32 | WET_DEF_XTHREAD,
				 (uint64_t)o->tid << 32 | o->stmt, o->ts);
	}
	*def = writer_def(b, w);
	if (first)
		return 0;
	return push_more(d, k, def->node1, def->pos, def->k);
}

static int mem_dep(struct wet_build *b, struct wet_node *n, struct wet_dep *d, uint64_t k,
		   const int64_t *values)
{
	const struct wpp_meta_wet_stmt *st = n->stmts[d->pos];
	uint32_t sl = wet_node_slot_of(n, d->pos, WPP_WET_REC_ADDR);
	uint64_t addr = values && sl != UINT32_MAX ? (uint64_t)values[sl] : 0;
	int nw;

	if (!values || sl == UINT32_MAX || st->access == 0 || st->access > WET_SHADOW_MAX_ACCESS ||
	    addr + st->access < addr || (!b->opts.xorder && shared(b, addr, st->access)) ||
	    (nw = b->opts.xorder ? xorder_writers(b, addr, st->access)
				 : wet_shadow_load(b->sh, addr, st->access, b->writers)) < 1) {
		b->t->mem_unknown++;
		return feed(d, k, unknown_def());
	}
	struct last first, l;
	if (writer_row(b, d, k, b->writers[0], 1, &first) < 0)
		return -1;
	for (int i = 1; i < nw; i++)
		if (writer_row(b, d, k, b->writers[i], 0, &l) < 0)
			return -1;
	if (first.node1 == WET_DEF_UNKNOWN)
		b->t->mem_unknown++;
	return feed(d, k, first);
}

static int stmt_store(struct wet_build *b, uint32_t node, struct wet_node *n, uint32_t s,
		      uint64_t k, const int64_t *values)
{
	const struct wpp_meta_wet_stmt *st = n->stmts[s];
	uint32_t sl = wet_node_slot_of(n, s, WPP_WET_REC_ADDR);

	if ((st->kind != WPP_WET_STORE && st->kind != WPP_WET_RMW) || !values || sl == UINT32_MAX ||
	    st->access == 0)
		return 0;
	if (b->opts.xorder &&
	    wet_xorder_own_store(b->opts.xorder, (uint64_t)values[sl], st->access) < 0)
		return -1;
	return wet_shadow_store(b->sh, (uint64_t)values[sl], st->access, writer_id(node, s, k));
}

/* One statement or block dependence of instance k. */
static int resolve(struct wet_build *b, struct frame *f, struct wet_node *n, struct wet_dep *d,
		   uint64_t k, const int64_t *values, const struct wpp_path *p)
{
	const struct wpp_meta_wet_operand *ops = n->fn->tu->wet->ops;
	const struct wpp_meta_wet_stmt *st = d->kind == WET_DEP_CTRL ? NULL : n->stmts[d->pos];

	switch (d->kind) {
	case WET_DEP_REG:
	case WET_DEP_ARG:
		return feed(d, k, operand_def(f, &ops[st->first_op + d->op]));
	case WET_DEP_PHI: {
		uint32_t j = n->stmt_block[d->pos];
		uint32_t pred = j ? n->blocks[j - 1] : f->last_block;
		for (uint32_t i = 0; i < st->nops; i++)
			if (ops[st->first_op + i].block == pred)
				return feed(d, k, operand_def(f, &ops[st->first_op + i]));
		return feed(d, k, pred == UINT32_MAX ? unknown_def() : NO_DEF);
	}
	case WET_DEP_RET: {
		struct last r = f->ret;
		f->ret = NO_DEF;
		return feed(d, k, r);
	}
	case WET_DEP_MEM:
		return mem_dep(b, n, d, k, values);
	case WET_DEP_CTRL:
		if (d->pos == 0 && p->start == WPP_START_ENTRY)
			return feed(d, k, f->entry_ctrl);
		return feed(d, k, ctrl_def(b, f, n->blocks[d->pos]));
	}
	return -1;
}

/* --- path executions ------------------------------------------------------ */

static int add_values(struct wet_node *n, uint64_t k, const int64_t *values)
{
	uint64_t tuple[WPP_WET_MAX_WORDS + 1];

	if (!values) {
		if (n->nlost == n->cap_lost) {
			size_t nc = n->cap_lost ? 2 * n->cap_lost : 16;
			uint64_t *l = realloc(n->lost, nc * sizeof(*l));
			if (!l)
				return -1;
			n->lost = l;
			n->cap_lost = nc;
		}
		n->lost[n->nlost++] = k;
	}
	for (uint32_t g = 0; g < n->ngroups; g++) {
		uint32_t m = 0;
		for (uint32_t sl = 0; sl < n->nslots && m <= WPP_WET_MAX_WORDS; sl++)
			if (n->slot_group[sl] == g)
				tuple[m++] = values ? (uint64_t)values[sl] : 0;
		if (wet_t1_builder_add(&n->gb[g], tuple) < 0)
			return -1;
	}
	return 0;
}

static int release_idle(struct wet_build *b)
{
	struct wet_thread *t = b->t;

	/* Fed in the last window: release the tables; fed in the one before
	 * but not since: idle, its warm-ups coded now (memory bounded by the
	 * streams in use, not by all of them). */
	for (uint32_t i = 0; i < t->nnodes; i++) {
		uint64_t fed = t->nodes[i]->last_fed + WET_BUILD_RELEASE_EVERY;
		if (fed >= b->next_release && wet_node_release(t->nodes[i]) < 0)
			return -1;
		if (fed < b->next_release && fed + WET_BUILD_RELEASE_EVERY >= b->next_release &&
		    wet_node_settle(t->nodes[i]) < 0)
			return -1;
	}
	b->next_release = t->nts + WET_BUILD_RELEASE_EVERY;
	size_t sb = wet_shadow_bytes(b->sh);
	if (sb > t->shadow_peak)
		t->shadow_peak = sb;
	return 0;
}

static int forget_memory(struct wet_build *b);

int wet_build_path(struct wet_build *b, uint32_t fid, const struct wpp_fn *fn, uint64_t path_id,
		   const struct wpp_path *p, const int64_t *values, uint32_t signal_depth)
{
	struct wet_thread *t = b->t;
	uint32_t node = node_of(b, fn, path_id, p);

	if (node == UINT32_MAX)
		return -1;
	struct wet_node *n = t->nodes[node];
	uint64_t ts = ++t->nts, k = n->ninst++;
	n->fid = fid;
	n->last_fed = ts;
	if (wet_builder_add(&n->tsb, ts) < 0 || wet_builder_add(&b->flow, node) < 0)
		return -1;
	if (!fn->wet)
		return 0;
	if (n->nslots && add_values(n, k, values) < 0)
		return -1;
	if (!values && n->stores && forget_memory(b) < 0)
		return -1;
	struct frame *f = frame_for(b, signal_depth, fn, p);
	if (!f)
		return -1;
	/* A callee's result is for the path resuming at its call only (not
	 * after a longjmp past it). */
	if (p->start != WPP_START_CALL)
		f->ret = NO_DEF;
	/* Statement deps come first in n->deps, by position; control deps
	 * after them, by block.  A block's control dependence is resolved
	 * before the block is entered: the blocks before it in the path were
	 * local, so the frame then holds exactly the earlier candidates. */
	uint32_t d = 0, c = 0, s = 0;
	while (c < n->ndeps && n->deps[c].kind != WET_DEP_CTRL)
		c++;
	for (uint32_t j = 0; j < n->nblocks; j++) {
		for (; c < n->ndeps && n->deps[c].pos == j; c++)
			if (!n->deps[c].local && resolve(b, f, n, &n->deps[c], k, values, p) < 0)
				return -1;
		for (; s < n->nstmts && n->stmt_block[s] == j; s++) {
			for (;
			     d < n->ndeps && n->deps[d].kind != WET_DEP_CTRL && n->deps[d].pos == s;
			     d++)
				if (!n->deps[d].local &&
				    resolve(b, f, n, &n->deps[d], k, values, p) < 0)
					return -1;
			f->insn[n->stmts[s]->insn] = (struct last){
			    .node1 = node + 1, .pos = s, .k = k, .ts = ts, .gen = f->gen};
			if (stmt_store(b, node, n, s, k, values) < 0)
				return -1;
		}
		f->blk[n->blocks[j]] =
		    (struct last){.node1 = node + 1, .pos = j, .k = k, .ts = ts, .gen = f->gen};
	}
	f->last_block = n->nblocks ? n->blocks[n->nblocks - 1] : UINT32_MAX;
	f->call_block = UINT32_MAX;
	if (p->end == WPP_END_CALL && p->exit_edge < fn->nedges)
		f->call_block = fn->edges[p->exit_edge].cfg_dst;
	if (p->end == WPP_END_RETURN || p->end == WPP_END_NORETURN) {
		struct stack *st =
		    &b->stacks[signal_depth < WET_MAX_SIGNAL_DEPTH ? signal_depth
								   : WET_MAX_SIGNAL_DEPTH - 1];
		uint32_t last = n->nstmts;
		if (last && n->stmts[last - 1]->kind == WPP_WET_RET && f->linked &&
		    st->depth >= 2 && &st->f[st->depth - 1] == f) {
			st->f[st->depth - 2].ret =
			    (struct last){.node1 = node + 1, .pos = last - 1, .k = k, .ts = ts};
		}
		if (st->depth && &st->f[st->depth - 1] == f)
			st->depth--;
	}
	if (ts >= b->next_release)
		return release_idle(b);
	return 0;
}

/* Stores whose addresses are unknown happened (lost words, a record whose
 * values were lost): a fresh shadow, where a byte nobody wrote since
 * answers unknown. */
static int forget_memory(struct wet_build *b)
{
	struct wet_shadow *sh = wet_shadow_new(b->opts.shadow_bytes);

	if (!sh)
		return -1;
	wet_shadow_free(b->sh);
	b->sh = sh;
	b->after_gap = 1;
	return 0;
}

int wet_build_batch(struct wet_build *b, uint64_t lo, uint64_t hi, int signal)
{
	return b->opts.xorder ? wet_xorder_enter(b->opts.xorder, lo, hi, signal) : 0;
}

int wet_build_gap(struct wet_build *b)
{
	struct wet_thread *t = b->t;

	if (t->ngaps == b->cap_gaps) {
		size_t nc = b->cap_gaps ? 2 * b->cap_gaps : 8;
		uint64_t *g = realloc(t->gaps, nc * sizeof(*g));
		if (!g)
			return -1;
		t->gaps = g;
		b->cap_gaps = nc;
	}
	t->gaps[t->ngaps++] = t->nts;
	for (uint32_t d = 0; d < WET_MAX_SIGNAL_DEPTH; d++)
		b->stacks[d].depth = 0;
	return forget_memory(b);
}

/* --- finishing ------------------------------------------------------------ */

/* What a stream takes in the stored form (wet_file.c), in the order the
 * file stores them: its bare bytes after a varint length, or a reference
 * to an equal earlier stream (wet_dedup.h).  UINT64_MAX out of memory. */
static uint64_t stream_bytes(struct wet_dedup *dd, struct wet_stream *s)
{
	uint8_t *buf = NULL;
	size_t n = wet_stream_serialize_bare(s, &buf);
	/* figures only: equal by hash (wet_dedup.h), the bytes not kept */
	uint64_t same = n ? wet_dedup_offer(dd, NULL, buf, n, 0) : WET_DEDUP_OOM;

	free(buf);
	if (same == WET_DEDUP_OOM)
		return UINT64_MAX;
	if (same != WET_DEDUP_NEW)
		return wet_dedup_ref_bytes(same);
	return n + varint_size(n);
}

struct sizer {
	struct wet_dedup dd;
	int oom;
};

static void add_stream(struct sizer *z, uint64_t *to, struct wet_stream *s)
{
	uint64_t n = stream_bytes(&z->dd, s);

	if (n == UINT64_MAX)
		z->oom = 1;
	else
		*to += n;
}

void wet_node_figures(const struct wet_node *n, uint64_t orig[WET_NLBL], uint64_t tier1[WET_NLBL])
{
	uint64_t blocks = (uint64_t)n->nblocks * n->ninst;

	orig[WET_LBL_TS] += 8 * blocks; /* the paper's per-block timestamps */
	tier1[WET_LBL_TS] += 8 * n->ninst;
	orig[WET_LBL_VALUE] += 8 * (uint64_t)n->nslots * n->ninst;
	for (uint32_t g = 0; g < n->ngroups; g++)
		tier1[WET_LBL_VALUE] += (wet_t1_bits(&n->groups[g]) + 7) / 8;
	for (uint32_t d = 0; d < n->ndeps; d++) {
		const struct wet_dep *dp = &n->deps[d];
		orig[WET_LBL_EDGE] += 16 * n->ninst;
		if (!dp->local && dp->share == WET_NO_SHARE)
			tier1[WET_LBL_EDGE] += 16 * n->ninst + 8 * dp->nmore;
	}
}

static void node_sizes(struct sizer *zr, struct wet_sizes *z, struct wet_node *n)
{
	uint64_t before = 0, after = 0;

	for (int k = 0; k < WET_NLBL; k++)
		before += z->tier2[k];
	wet_node_figures(n, z->orig, z->tier1);
	add_stream(zr, &z->tier2[WET_LBL_TS], n->ts);
	for (uint32_t g = 0; g < n->ngroups; g++) {
		struct wet_t1_group *gr = &n->groups[g];
		if (gr->switch_at)
			add_stream(zr, &z->tier2[WET_LBL_VALUE], gr->pattern);
		for (uint32_t s = 0; s < gr->nstmts; s++)
			add_stream(zr, &z->tier2[WET_LBL_VALUE], gr->uvals[s]);
		for (uint32_t s = 0; gr->direct && s < gr->nstmts; s++)
			add_stream(zr, &z->tier2[WET_LBL_VALUE], gr->direct[s]);
	}
	for (uint32_t d = 0; d < n->ndeps; d++) {
		struct wet_dep *dp = &n->deps[d];
		if (dp->local || dp->share != WET_NO_SHARE)
			continue;
		z->tier2[WET_LBL_EDGE] += 8 * dp->nmore;
		for (int i = 0; i < WET_DEP_STREAMS; i++)
			add_stream(zr, &z->tier2[WET_LBL_EDGE], dp->s[i]);
	}
	for (int k = 0; k < WET_NLBL; k++)
		after += z->tier2[k];
	n->bytes = after - before;
}

struct wet_thread *wet_build_finish(struct wet_build *b)
{
	struct wet_thread *t = b->t;

	if (release_idle(b) < 0)
		goto fail;
	t->flow = wet_builder_finish(&b->flow);
	if (!t->flow)
		goto fail;
	struct sizer z = {0};
	wet_dedup_init(&z.dd);
	t->sizes.orig[WET_LBL_FLOW] = 8 * t->nts;
	t->sizes.tier1[WET_LBL_FLOW] = 8 * t->nts;
	add_stream(&z, &t->sizes.tier2[WET_LBL_FLOW], t->flow);
	for (uint32_t i = 0; i < t->nnodes && !z.oom; i++) {
		if (wet_node_finish(t->nodes[i]) < 0)
			z.oom = 1;
		else
			node_sizes(&z, &t->sizes, t->nodes[i]);
	}
	wet_dedup_free(&z.dd);
	if (z.oom)
		goto fail;
	b->t = NULL;
	wet_build_free(b);
	return t;
fail:
	wet_build_free(b);
	return NULL;
}

void wet_build_free(struct wet_build *b)
{
	if (!b)
		return;
	if (b->t) {
		if (!b->t->flow)
			wet_builder_abort(&b->flow);
		wet_thread_free(b->t);
	}
	for (uint32_t d = 0; d < WET_MAX_SIGNAL_DEPTH; d++) {
		for (uint32_t i = 0; i < b->stacks[d].cap; i++) {
			free(b->stacks[d].f[i].insn);
			free(b->stacks[d].f[i].blk);
			free(b->stacks[d].f[i].args);
		}
		free(b->stacks[d].f);
	}
	free(b->map.keys);
	free(b->map.idx);
	wet_cdg_cache_free(&b->cdgs);
	wet_shadow_free(b->sh);
	free(b);
}

void wet_thread_free(struct wet_thread *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->nnodes; i++)
		wet_node_free(t->nodes[i]);
	free(t->nodes);
	if (t->flow)
		wet_stream_free(t->flow);
	free(t->gaps);
	free(t->blob);
	free(t);
}
