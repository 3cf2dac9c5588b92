/* SPDX-License-Identifier: MIT */
/*
 * wet_node.c — a WET node's static analysis (wet_node.h): statements and
 * slots of a path, tier-1 groups from input sets (the paper's 3.2), local
 * and labelled dependence slots (its 3.3), control dependences from the
 * function's CFG.  Done once per distinct path, so it favours plain loops
 * over cleverness.
 */
#include "analysis/wet/wet_node.h"

#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "symbolizer/meta_wet_model.h"
#include "decode/wet_values.h"
#include "common/array_grow.h"

/* Input sets are 256-bit: inputs beyond that share bits, which can only
 * merge groups (less compression), never change a value. */
#define SET_WORDS 4u
#define SET_BITS  (64u * SET_WORDS)

int wet_fn_cdg_build(const struct wpp_fn *fn, struct wet_fn_cdg *c)
{
	uint32_t n = fn->nblocks, ne = 0;
	uint32_t *off = calloc((size_t)n + 1, sizeof(*off));
	uint32_t *succ = malloc(((size_t)fn->nedges + 1) * sizeof(*succ));
	uint32_t *ipdom = malloc(((size_t)n + 1) * sizeof(*ipdom));
	int rc = -1;

	c->fn = fn;
	c->cd = (struct wet_cdeps){0};
	if (!off || !succ || !ipdom)
		goto out;
	/* The CFG's edges: real DAG edges, and the CFG edges that back, call
	 * and cut exits stand for (their entry twins name the same edge). */
	for (uint32_t src = 0; src < n; src++) {
		off[src] = ne;
		for (uint32_t e = 0; e < fn->nedges; e++) {
			const struct wpp_meta_edge *ed = &fn->edges[e];
			uint32_t from = ed->src, to = ed->dst;

			if (ed->kind == WPP_EDGE_BACK_EXIT || ed->kind == WPP_EDGE_CALL_EXIT ||
			    ed->kind == WPP_EDGE_CUT_EXIT) {
				from = ed->cfg_src;
				to = ed->cfg_dst;
			} else if (ed->kind != WPP_EDGE_REAL)
				continue;
			if (from == src && to < n)
				succ[ne++] = to;
		}
	}
	off[n] = ne;
	struct wet_cfg g = {.nblocks = n, .succ_off = off, .succ = succ};
	if (wet_postdom(&g, ipdom) == 0 && wet_control_deps(&g, ipdom, &c->cd) == 0)
		rc = 0;
out:
	free(off);
	free(succ);
	free(ipdom);
	return rc;
}

void wet_fn_cdg_free(struct wet_fn_cdg *c)
{
	wet_cdeps_free(&c->cd);
	c->fn = NULL;
}

static uint64_t fn_hash(const struct wpp_fn *fn)
{
	return (uint64_t)(uintptr_t)fn * UINT64_C(0x9e3779b97f4a7c15) >> 17;
}

const struct wet_fn_cdg *wet_cdg_cache_get(struct wet_cdg_cache *c, const struct wpp_fn *fn)
{
	if ((c->n + 1) * 2 > c->cap) {
		uint32_t nc = c->cap ? 2 * c->cap : 64;
		struct wet_fn_cdg *v = calloc(nc, sizeof(*v));
		if (!v)
			return NULL;
		for (uint32_t i = 0; i < c->cap; i++) {
			if (!c->v[i].fn)
				continue;
			uint32_t j = (uint32_t)(fn_hash(c->v[i].fn) & (nc - 1));
			while (v[j].fn)
				j = (j + 1) & (nc - 1);
			v[j] = c->v[i];
		}
		free(c->v);
		c->v = v;
		c->cap = nc;
	}
	uint32_t j = (uint32_t)(fn_hash(fn) & (c->cap - 1));
	for (; c->v[j].fn; j = (j + 1) & (c->cap - 1))
		if (c->v[j].fn == fn)
			return &c->v[j];
	if (wet_fn_cdg_build(fn, &c->v[j]) < 0) {
		wet_fn_cdg_free(&c->v[j]);
		return NULL;
	}
	c->n++;
	return &c->v[j];
}

void wet_cdg_cache_free(struct wet_cdg_cache *c)
{
	for (uint32_t i = 0; i < c->cap; i++)
		if (c->v[i].fn)
			wet_fn_cdg_free(&c->v[i]);
	free(c->v);
	*c = (struct wet_cdg_cache){0};
}

static void set_bit(uint64_t *set, uint64_t key)
{
	uint32_t bit = (uint32_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 56) % SET_BITS;

	set[bit / 64] |= UINT64_C(1) << (bit % 64);
}

static void set_or(uint64_t *a, const uint64_t *b)
{
	for (uint32_t w = 0; w < SET_WORDS; w++)
		a[w] |= b[w];
}

/* A statement whose value comes from outside the node: an input. */
static int reads_input(uint8_t kind)
{
	return kind == WPP_WET_LOAD || kind == WPP_WET_RMW || kind == WPP_WET_EXTCALL ||
	       kind == WPP_WET_CALL || kind == WPP_WET_INTRINSIC;
}

/* Per slot its input set (the paper: the inputs a statement depends on,
 * directly or through other statements of the node), then the groups. */
static int node_groups(struct wet_node *n, const uint32_t *insn_pos)
{
	const struct wpp_meta_wet_operand *ops = n->fn->tu->wet->ops;
	uint64_t *stmt_set = calloc((size_t)n->nstmts * SET_WORDS, sizeof(uint64_t));
	uint64_t *slot_set = calloc((size_t)n->nslots * SET_WORDS, sizeof(uint64_t));
	uint32_t *count = NULL;
	int rc = -1;

	if (!stmt_set || !slot_set)
		goto out;
	for (uint32_t s = 0; s < n->nstmts; s++) {
		const struct wpp_meta_wet_stmt *st = n->stmts[s];
		uint64_t *set = stmt_set + (size_t)s * SET_WORDS;

		for (uint32_t i = 0; i < st->nops; i++) {
			const struct wpp_meta_wet_operand *op = &ops[st->first_op + i];
			uint32_t d = op->kind == WPP_WET_OP_INSN ? insn_pos[op->id] : UINT32_MAX;

			if (d < s)
				set_or(set, stmt_set + (size_t)d * SET_WORDS);
			else if (op->kind == WPP_WET_OP_INSN || op->kind == WPP_WET_OP_ARG)
				set_bit(set, (uint64_t)op->kind << 32 | op->id);
		}
		for (uint32_t sl = 0; sl < n->nslots; sl++)
			if (n->slot_stmt[sl] == s)
				set_or(slot_set + (size_t)sl * SET_WORDS, set);
		if (reads_input(st->kind)) {
			set_bit(set, UINT64_C(0xff) << 32 | s);
			uint32_t v = wet_node_slot_of(n, s, WPP_WET_REC_VALUE);
			if (v != UINT32_MAX)
				set_or(slot_set + (size_t)v * SET_WORDS, set);
		}
	}
	int ng = wet_tier1_groups_from_inputs(n->nslots, SET_WORDS, slot_set, n->slot_group);
	if (ng <= 0)
		goto out;
	n->ngroups = (uint32_t)ng;
	count = calloc(n->ngroups, sizeof(*count));
	n->gb = calloc(n->ngroups, sizeof(*n->gb));
	if (!count || !n->gb)
		goto out;
	for (uint32_t sl = 0; sl < n->nslots; sl++)
		n->slot_member[sl] = count[n->slot_group[sl]]++;
	for (uint32_t g = 0; g < n->ngroups; g++)
		if (wet_t1_builder_init(&n->gb[g], count[g]) < 0) {
			for (uint32_t h = 0; h < g; h++)
				wet_t1_builder_abort(&n->gb[h]);
			free(n->gb);
			n->gb = NULL;
			goto out;
		}
	rc = 0;
out:
	free(stmt_set);
	free(slot_set);
	free(count);
	return rc;
}

static struct wet_dep *add_dep(struct wet_node *n, uint32_t *cap, uint32_t pos, uint8_t kind,
			       uint16_t op, uint32_t local_pos)
{
	if (ARRAY_GROW(n->deps, *cap, (size_t)n->ndeps + 1, 8))
		return NULL;
	struct wet_dep *d = &n->deps[n->ndeps++];
	*d = (struct wet_dep){.pos = pos, .op = op, .kind = kind, .share = WET_NO_SHARE};
	if (local_pos != UINT32_MAX) {
		d->local = 1;
		d->local_pos = local_pos;
		return d;
	}
	for (int i = 0; i < WET_DEP_STREAMS; i++)
		if (wet_builder_init(&d->b[i], NULL) < 0) {
			for (int j = 0; j < i; j++)
				wet_builder_abort(&d->b[j]);
			n->ndeps--;
			return NULL;
		}
	return d;
}

/* Statement deps: operands (local when defined earlier in the path),
 * phis, arguments, call results, memory. */
static int stmt_deps(struct wet_node *n, const struct wpp_path *p, const uint32_t *insn_pos,
		     uint32_t *cap)
{
	const struct wpp_meta_wet_operand *ops = n->fn->tu->wet->ops;

	for (uint32_t s = 0; s < n->nstmts; s++) {
		const struct wpp_meta_wet_stmt *st = n->stmts[s];

		if (st->kind == WPP_WET_PHI) {
			if (!add_dep(n, cap, s, WET_DEP_PHI, 0, UINT32_MAX))
				return -1;
		} else {
			for (uint32_t i = 0; i < st->nops && i < UINT16_MAX; i++) {
				const struct wpp_meta_wet_operand *op = &ops[st->first_op + i];
				uint32_t d =
				    op->kind == WPP_WET_OP_INSN ? insn_pos[op->id] : UINT32_MAX;
				uint8_t kind =
				    op->kind == WPP_WET_OP_ARG ? WET_DEP_ARG : WET_DEP_REG;

				if (op->kind != WPP_WET_OP_INSN && op->kind != WPP_WET_OP_ARG)
					continue;
				if (!add_dep(n, cap, s, kind, (uint16_t)i, d < s ? d : UINT32_MAX))
					return -1;
			}
		}
		/* A path resuming at a call block starts with the call: its
		 * result comes from the callee's ret. */
		if ((st->kind == WPP_WET_CALL || st->kind == WPP_WET_EXTCALL) &&
		    p->start == WPP_START_CALL && n->stmt_block[s] == 0 && st->vtype &&
		    !add_dep(n, cap, s, WET_DEP_RET, 0, UINT32_MAX))
			return -1;
		if ((st->kind == WPP_WET_LOAD || st->kind == WPP_WET_RMW) &&
		    (st->records & WPP_WET_REC_ADDR) &&
		    !add_dep(n, cap, s, WET_DEP_MEM, 0, UINT32_MAX))
			return -1;
	}
	return 0;
}

/* Block deps: the latest controlling block earlier in the path (local), or
 * a label; a function's entry block always takes its call block's. */
static int ctrl_deps(struct wet_node *n, const struct wet_fn_cdg *cdg, uint32_t *cap)
{
	for (uint32_t j = 0; j < n->nblocks; j++) {
		uint32_t b = n->blocks[j], local = UINT32_MAX;

		for (uint32_t c = cdg->cd.off[b]; c < cdg->cd.off[b + 1]; c++)
			for (uint32_t i = 0; i < j; i++)
				if (n->blocks[i] == cdg->cd.on[c] &&
				    (local == UINT32_MAX || i > local))
					local = i;
		if (cdg->cd.off[b] == cdg->cd.off[b + 1] && b != 0)
			continue; /* depends on nothing (runs whenever its function does) */
		if (!add_dep(n, cap, j, WET_DEP_CTRL, 0, local))
			return -1;
	}
	return 0;
}

struct wet_node *wet_node_new(const struct wpp_fn *fn, uint64_t path_id, const struct wpp_path *p,
			      const struct wet_fn_cdg *cdg)
{
	struct wet_node *n = calloc(1, sizeof(*n));
	uint32_t *insn_pos = NULL, cap = 0;
	struct wpp_wet_item *items = NULL;

	if (!n)
		return NULL;
	n->fn = fn;
	n->path_id = path_id;
	n->nblocks = p->nblocks;
	n->blocks = malloc(((size_t)p->nblocks + 1) * sizeof(*n->blocks));
	if (!n->blocks || wet_builder_init(&n->tsb, NULL) < 0)
		goto fail;
	memcpy(n->blocks, p->blocks, p->nblocks * sizeof(*n->blocks));
	if (!fn->wet)
		return n; /* not a WET build: timestamps only */
	const struct wpp_wet_tu_model *w = fn->tu->wet;
	for (uint32_t j = 0; j < p->nblocks; j++)
		n->nstmts += fn->wet->blocks[p->blocks[j]].nstmts;
	n->nslots = (uint32_t)wpp_wet_path_nslots(fn, p);
	n->stmts = calloc((size_t)n->nstmts + 1, sizeof(*n->stmts));
	n->stmt_block = calloc((size_t)n->nstmts + 1, sizeof(*n->stmt_block));
	n->slot_stmt = calloc((size_t)n->nslots + 1, sizeof(*n->slot_stmt));
	n->slot_what = calloc((size_t)n->nslots + 1, 1);
	n->slot_group = calloc((size_t)n->nslots + 1, sizeof(*n->slot_group));
	n->slot_member = calloc((size_t)n->nslots + 1, sizeof(*n->slot_member));
	items = calloc((size_t)n->nslots + 1, sizeof(*items));
	insn_pos = malloc(((size_t)fn->wet->ninsns + 1) * sizeof(*insn_pos));
	if (!n->stmts || !n->stmt_block || !n->slot_stmt || !n->slot_what || !n->slot_group ||
	    !n->slot_member || !items || !insn_pos)
		goto fail;
	memset(insn_pos, 0xff, ((size_t)fn->wet->ninsns + 1) * sizeof(*insn_pos));
	uint32_t s = 0;
	for (uint32_t j = 0; j < p->nblocks; j++) {
		const struct wpp_meta_wet_block *bl = &fn->wet->blocks[p->blocks[j]];
		for (uint32_t i = 0; i < bl->nstmts; i++, s++) {
			n->stmts[s] = &w->stmts[bl->first_stmt + i];
			n->stmt_block[s] = j;
			n->stores +=
			    n->stmts[s]->kind == WPP_WET_STORE || n->stmts[s]->kind == WPP_WET_RMW;
			insn_pos[n->stmts[s]->insn] = s;
		}
	}
	wpp_wet_path_items(fn, p, items);
	/* Items and statements are both in path order: one cursor. */
	for (uint32_t sl = 0, st = 0; sl < n->nslots; sl++) {
		while (n->stmts[st] != items[sl].stmt)
			st++;
		n->slot_stmt[sl] = st;
		n->slot_what[sl] = items[sl].what;
	}
	if ((n->nslots && node_groups(n, insn_pos) < 0) || stmt_deps(n, p, insn_pos, &cap) < 0 ||
	    ctrl_deps(n, cdg, &cap) < 0)
		goto fail;
	free(items);
	free(insn_pos);
	return n;
fail:
	free(items);
	free(insn_pos);
	wet_node_free(n);
	return NULL;
}

struct wet_node *wet_node_shell(const struct wpp_fn *fn, uint64_t path_id, const struct wpp_path *p,
				const struct wet_fn_cdg *cdg)
{
	struct wet_node *n = wet_node_new(fn, path_id, p, cdg);

	if (!n)
		return NULL;
	wet_builder_abort(&n->tsb);
	for (uint32_t g = 0; n->gb && g < n->ngroups; g++)
		wet_t1_builder_abort(&n->gb[g]);
	free(n->gb);
	n->gb = NULL;
	for (uint32_t d = 0; d < n->ndeps; d++)
		for (int i = 0; !n->deps[d].local && i < WET_DEP_STREAMS; i++)
			wet_builder_abort(&n->deps[d].b[i]);
	return n;
}

uint32_t wet_node_slot_of(const struct wet_node *n, uint32_t pos, uint8_t what)
{
	for (uint32_t sl = 0; sl < n->nslots; sl++)
		if (n->slot_stmt[sl] == pos && n->slot_what[sl] == what)
			return sl;
	return UINT32_MAX;
}

/* settle == 0: release the streams' tables; else also settle warm-ups of
 * at least `settle` values (wet_builder_settle). */
static int each_builder(struct wet_builder *b, uint32_t settle)
{
	return settle ? wet_builder_settle(b, settle) : wet_builder_release(b);
}

static int release_or_settle(struct wet_node *n, uint32_t settle)
{
	int rc = each_builder(&n->tsb, settle);

	for (uint32_t g = 0; n->gb && g < n->ngroups; g++) {
		struct wet_t1_builder *gb = &n->gb[g];
		rc |= each_builder(&gb->pattern, settle);
		for (uint32_t s = 0; s < gb->nstmts; s++) {
			rc |= each_builder(&gb->uvals[s], settle);
			if (gb->direct)
				rc |= each_builder(&gb->direct[s], settle);
		}
	}
	for (uint32_t d = 0; d < n->ndeps; d++)
		for (int i = 0; !n->deps[d].local && i < WET_DEP_STREAMS; i++)
			rc |= each_builder(&n->deps[d].b[i], settle);
	return rc ? -1 : 0;
}

int wet_node_release(struct wet_node *n)
{
	return release_or_settle(n, 0);
}

int wet_node_settle(struct wet_node *n)
{
	return release_or_settle(n, WET_NODE_SETTLE_MIN);
}

/* The serialized labels of a dep: its streams' bytes, end to end. */
struct label_bytes {
	uint8_t *b;
	size_t n;
	uint32_t crc;
};

static int label_bytes(struct wet_dep *d, struct label_bytes *out)
{
	*out = (struct label_bytes){0};
	for (int i = 0; i < WET_DEP_STREAMS; i++) {
		uint8_t *b = NULL;
		size_t n = wet_stream_serialize_bare(d->s[i], &b);
		uint8_t *nb = n ? realloc(out->b, out->n + n + 8) : NULL;
		if (!nb) {
			free(b);
			free(out->b);
			out->b = NULL;
			return -1;
		}
		out->b = nb;
		memcpy(out->b + out->n, &n, 8); /* where one stream ends counts */
		memcpy(out->b + out->n + 8, b, n);
		out->n += n + 8;
		free(b);
	}
	out->crc = wpp_crc32c(0, out->b, out->n);
	return 0;
}

/* Labelled deps whose streams (and extra writers) are equal to an earlier
 * one's drop theirs and read that one's: a value used by several
 * statements of a path has the same def everywhere. */
static int share_labels(struct wet_node *n)
{
	struct label_bytes *lb = calloc((size_t)n->ndeps + 1, sizeof(*lb));
	int rc = -1;

	if (!lb)
		return -1;
	for (uint32_t d = 0; d < n->ndeps; d++) {
		struct wet_dep *dp = &n->deps[d];
		if (dp->local)
			continue;
		if (label_bytes(dp, &lb[d]) < 0)
			goto out;
		for (uint32_t e = 0; e < d; e++) {
			struct wet_dep *ep = &n->deps[e];
			if (ep->local || ep->share != WET_NO_SHARE || lb[e].crc != lb[d].crc ||
			    lb[e].n != lb[d].n || memcmp(lb[e].b, lb[d].b, lb[d].n) ||
			    ep->nmore != dp->nmore ||
			    (dp->nmore &&
			     memcmp(ep->more, dp->more, dp->nmore * sizeof(*dp->more))))
				continue;
			for (int i = 0; i < WET_DEP_STREAMS; i++) {
				wet_stream_free(dp->s[i]);
				dp->s[i] = ep->s[i];
			}
			dp->share = e;
			break;
		}
	}
	rc = 0;
out:
	for (uint32_t d = 0; d < n->ndeps; d++)
		free(lb[d].b);
	free(lb);
	return rc;
}

int wet_node_finish(struct wet_node *n)
{
	n->ts = wet_builder_finish(&n->tsb);
	if (!n->ts)
		return -1;
	if (n->gb) {
		n->groups = calloc(n->ngroups, sizeof(*n->groups));
		if (!n->groups)
			return -1;
		for (uint32_t g = 0; g < n->ngroups; g++)
			if (wet_t1_builder_finish(&n->gb[g], &n->groups[g]) < 0)
				return -1;
		free(n->gb);
		n->gb = NULL;
	}
	for (uint32_t d = 0; d < n->ndeps; d++)
		for (int i = 0; !n->deps[d].local && i < WET_DEP_STREAMS; i++) {
			n->deps[d].s[i] = wet_builder_finish(&n->deps[d].b[i]);
			if (!n->deps[d].s[i])
				return -1;
		}
	return share_labels(n);
}

void wet_node_free(struct wet_node *n)
{
	if (!n)
		return;
	if (n->ts)
		wet_stream_free(n->ts);
	else
		wet_builder_abort(&n->tsb);
	for (uint32_t g = 0; g < n->ngroups; g++) {
		if (n->gb)
			wet_t1_builder_abort(&n->gb[g]);
		if (n->groups)
			wet_t1_group_free(&n->groups[g]);
	}
	for (uint32_t d = 0; d < n->ndeps; d++) {
		struct wet_dep *dp = &n->deps[d];
		for (int i = 0; !dp->local && dp->share == WET_NO_SHARE && i < WET_DEP_STREAMS;
		     i++) {
			if (dp->s[i])
				wet_stream_free(dp->s[i]);
			else
				wet_builder_abort(&dp->b[i]);
		}
		free(dp->more);
	}
	free(n->gb);
	free(n->groups);
	free(n->deps);
	free(n->blocks);
	free(n->stmts);
	free(n->stmt_block);
	free(n->slot_stmt);
	free(n->slot_what);
	free(n->slot_group);
	free(n->slot_member);
	free(n->lost);
	free(n);
}
