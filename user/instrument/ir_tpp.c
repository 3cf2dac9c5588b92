/* SPDX-License-Identifier: MIT */
/*
 * ir_tpp.c — targeted path profiling's code in a function (see ir_tpp.h
 * and docs/instrumentation.md, "Targeted path profiling").  The plan
 * (tpp_plan.c) decides what runs on each edge; this file turns one edge's
 * decision into IR.
 */
#include "instrument/ir_tpp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/numbering.h"
#include "wpp/trace_abi.h"

int wpp_ir_tpp_plan(struct wpp_ir_tpp *x, const struct wpp_cfg *cfg, const struct wpp_dag *d,
		    const struct wpp_edge_prof_fn *f, const double *weight, double cold_pct,
		    double loop_pct, char *why, size_t whylen)
{
	uint64_t *train = calloc((size_t)d->nedges + 1, sizeof(uint64_t));
	struct wpp_tpp_params p = {cold_pct,
				   loop_pct,
				   WPP_NARROW_PATH_LIMIT,
				   WPP_WIDE_PATH_LIMIT,
				   weight,
				   wpp_counts_array_limit()};
	int rc = -1;

	memset(x, 0, sizeof(*x));
	if (!train) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	if (f && wpp_edge_prof_counts(f, d, train)) {
		snprintf(why, whylen, "profile entry does not match");
		goto out;
	}
	if (wpp_tpp_plan(&x->plan, cfg, d, train, &p, why, whylen))
		goto out;
	x->active = 1;
	rc = 0;
out:
	free(train);
	return rc;
}

void wpp_ir_tpp_free(struct wpp_ir_tpp *x)
{
	wpp_tpp_accum_free(&x->accum);
	free(x->acc_slot);
	if (x->active)
		wpp_tpp_free(&x->plan);
	memset(x, 0, sizeof(*x));
}

uint64_t wpp_ir_tpp_ncounters(const struct wpp_ir_tpp *x)
{
	return wpp_tpp_ncounters(&x->plan);
}

static int has_flush(const struct wpp_ir_tpp *x, uint32_t e)
{
	return x->accum.flush_start && x->accum.flush_start[e] != x->accum.flush_start[e + 1];
}

int wpp_ir_tpp_has_code(const struct wpp_ir_tpp *x, uint32_t e)
{
	const struct wpp_tpp_edge *te = &x->plan.edge[e];
	return te->op != WPP_TPP_NONE || te->counter != WPP_NONE || has_flush(x, e);
}

/* Inline asm may do anything a call does (a syscall that exits). */
static int has_inline_asm(LLVMBasicBlockRef bb)
{
	for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
		if (LLVMGetInstructionOpcode(i) == LLVMCall &&
		    LLVMIsAInlineAsm(LLVMGetCalledValue(i)))
			return 1;
	return 0;
}

int wpp_ir_tpp_accum_prepare(struct wpp_ir_tpp *x, LLVMBuilderRef b, const struct wpp_cfg *cfg,
			     const struct wpp_dag *d, LLVMBasicBlockRef *blocks, unsigned md_kind,
			     LLVMValueRef md)
{
	const char *env = getenv("WPP_TPP_ACCUM");
	if (x->first == UINT64_MAX || !x->plan.nobvious || (env && strcmp(env, "0") == 0))
		return 0;
	uint8_t *opaque = malloc((size_t)cfg->nblocks + 1);
	if (!opaque)
		return -1;
	for (uint32_t v = 0; v < cfg->nblocks; v++)
		opaque[v] = (uint8_t)has_inline_asm(blocks[v]);
	int rc = wpp_tpp_accum_plan(&x->accum, &x->plan, cfg, d, opaque);
	free(opaque);
	if (rc || !x->accum.nacc)
		return rc;
	x->acc_slot = calloc(x->plan.nobvious, sizeof(LLVMValueRef));
	if (!x->acc_slot) {
		wpp_tpp_accum_free(&x->accum);
		return -1;
	}
	for (uint32_t k = 0; k < x->plan.nobvious; k++)
		if (x->accum.acc[k]) {
			x->acc_slot[k] = LLVMBuildAlloca(b, x->counts->p->i64, "wpp.tpp.acc");
			LLVMSetMetadata(x->acc_slot[k], md_kind, md);
		}
	return 0;
}

int wpp_ir_tpp_needs_saved(const struct wpp_ir_tpp *x)
{
	for (uint32_t e = 0; e < x->plan.full.nedges; e++)
		if (x->plan.edge[e].at_target && x->plan.edge[e].op == WPP_TPP_COLD)
			return 1;
	return 0;
}

static LLVMValueRef k64(const struct wpp_ir_tpp *x, uint64_t v)
{
	return LLVMConstInt(x->counts->p->i64, v, 0);
}

static LLVMValueRef load_reg(struct wpp_ir_tpp *x, LLVMBuilderRef b, LLVMValueRef slot)
{
	return LLVMBuildLoad2(b, x->counts->p->i64, slot, "");
}

/* counter[slot] += 1, in the array or the hash */
static void count(struct wpp_ir_tpp *x, LLVMBuilderRef b, LLVMValueRef slot)
{
	if (x->first == UINT64_MAX)
		wpp_emit_count_hash(x->counts, b, x->fidw, slot);
	else
		wpp_emit_count_array(x->counts, b, x->base, x->first, slot);
}

/* The cold counter (k = 0) or edge counter k - 1: in a split function the
 * array's counter k (meta_tpp.h), else the plan's counter nslots + k. */
static LLVMValueRef side_counter(struct wpp_ir_tpp *x, uint64_t k)
{
	return k64(x, x->split ? k : x->plan.nslots + k);
}

/* count[r + k]++, counting mode's path end: a hot path's register holds
 * its slot, a poisoned one a poison slot (tpp.h), so no bound check is
 * needed (the paper's appendix A.1 picks the cold counter with a compare
 * and a conditional move here; test_tpp checks s against the slot or the
 * poison range on every recorded path of its random CFGs).  A hashed
 * function with cold edges does pick the cold counter, by a compare and
 * a select: there every poison slot would be one more key in the
 * thread's hash, probed and missed, where one cold key is a hit. */
static void record(struct wpp_ir_tpp *x, LLVMBuilderRef b, uint64_t k)
{
	LLVMValueRef s = load_reg(x, b, x->reg);
	if (k)
		s = LLVMBuildAdd(b, s, k64(x, k), "");
	int hashed = x->first == UINT64_MAX || x->split;
	if (hashed && x->plan.ncold) {
		LLVMValueRef n = k64(x, x->plan.nslots);
		s = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULT, s, n, ""), s, n,
				    "wpp.tpp.slot");
	}
	if (x->split && x->log2) /* the cache's key: the hash counter + 1 */
		wpp_emit_count_cached(
		    x->counts, b, x->base, x->keys, x->log2, x->fid_slot,
		    LLVMBuildAdd(b, s, k64(x, 2 + (uint64_t)x->plan.nobvious), ""));
	else if (x->split) /* after the array's counters (meta_tpp.h) */
		wpp_emit_count_hash(x->counts, b, x->fidw,
				    LLVMBuildAdd(b, s, k64(x, 1 + (uint64_t)x->plan.nobvious), ""));
	else
		count(x, b, s);
}

/* Every path that reaches a recording point sets the register first; the
 * entry's value only gives it one on every path. */
void wpp_ir_tpp_emit_entry(struct wpp_ir_tpp *x, LLVMBuilderRef b)
{
	LLVMBuildStore(b, k64(x, wpp_tpp_poison_base(&x->plan)), x->reg);
	for (uint32_t k = 0; x->acc_slot && k < x->plan.nobvious; k++)
		if (x->acc_slot[k])
			LLVMBuildStore(b, k64(x, 0), x->acc_slot[k]);
}

/* Edge counter k: one more execution, in its register or in memory. */
static void count_edge(struct wpp_ir_tpp *x, LLVMBuilderRef b, uint32_t k)
{
	if (x->acc_slot && x->acc_slot[k])
		LLVMBuildStore(b, LLVMBuildAdd(b, load_reg(x, b, x->acc_slot[k]), k64(x, 1), ""),
			       x->acc_slot[k]);
	else
		count(x, b, side_counter(x, 1 + (uint64_t)k));
}

/* Leaving a loop: its edge counters' registers into memory, and cleared. */
static void flush_edge(struct wpp_ir_tpp *x, LLVMBuilderRef b, uint32_t e)
{
	if (!has_flush(x, e))
		return;
	for (uint32_t i = x->accum.flush_start[e]; i < x->accum.flush_start[e + 1]; i++) {
		uint32_t k = x->accum.flush[i];
		wpp_emit_count_array_add(x->counts, b, x->base, x->first,
					 side_counter(x, 1 + (uint64_t)k),
					 load_reg(x, b, x->acc_slot[k]));
		LLVMBuildStore(b, k64(x, 0), x->acc_slot[k]);
	}
}

void wpp_ir_tpp_emit_edge(struct wpp_ir_tpp *x, LLVMBuilderRef b, uint32_t e)
{
	const struct wpp_tpp_edge *te = &x->plan.edge[e];
	switch (te->op) {
	case WPP_TPP_ADD:
		LLVMBuildStore(b, LLVMBuildAdd(b, load_reg(x, b, x->reg), k64(x, te->value), ""),
			       x->reg);
		break;
	case WPP_TPP_SET:
		LLVMBuildStore(b, k64(x, te->value), x->reg);
		break;
	case WPP_TPP_RECORD:
		record(x, b, te->value);
		break;
	case WPP_TPP_COLD:
		count(x, b, side_counter(x, 0));
		break;
	default:
		break;
	}
	flush_edge(x, b, e);
	if (te->counter != WPP_NONE)
		count_edge(x, b, te->counter);
}

void wpp_ir_tpp_emit_landing(struct wpp_ir_tpp *x, LLVMBuilderRef b)
{
	record(x, b, 0);
}

void wpp_ir_tpp_emit_preadjust(struct wpp_ir_tpp *x, LLVMBuilderRef b, uint32_t e)
{
	const struct wpp_tpp_edge *te = &x->plan.edge[e];
	if (te->op == WPP_TPP_COLD) {
		LLVMBuildStore(b, load_reg(x, b, x->reg), x->saved);
		LLVMBuildStore(b, k64(x, wpp_tpp_poison_base(&x->plan)), x->reg);
	} else if (te->op == WPP_TPP_RECORD && te->value) {
		LLVMBuildStore(b, LLVMBuildAdd(b, load_reg(x, b, x->reg), k64(x, te->value), ""),
			       x->reg);
	}
}

void wpp_ir_tpp_emit_undo(struct wpp_ir_tpp *x, LLVMBuilderRef b, uint32_t e)
{
	const struct wpp_tpp_edge *te = &x->plan.edge[e];
	if (te->op == WPP_TPP_COLD)
		LLVMBuildStore(b, load_reg(x, b, x->saved), x->reg);
	else if (te->op == WPP_TPP_RECORD && te->value)
		LLVMBuildStore(b, LLVMBuildSub(b, load_reg(x, b, x->reg), k64(x, te->value), ""),
			       x->reg);
}
