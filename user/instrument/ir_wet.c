/* SPDX-License-Identifier: MIT */
/*
 * ir_wet.c — the WET plan of one function (see ir_wet.h): its statements,
 * what each records, and the cuts that keep every path's record within
 * WPP_WET_MAX_WORDS value words.
 */
#include <stdlib.h>
#include <string.h>

#include "instrument/dag_walk.h"
#include "instrument/ir_calls.h"
#include "instrument/ir_wet_internal.h"
#include "instrument/numbering.h"
#include "wpp/meta_format.h"
#include "wpp/wet_abi.h"

struct wpp_wet_tu *wpp_wet_tu_new(struct wpp_probes *p, uint32_t values)
{
	struct wpp_wet_tu *w = calloc(1, sizeof(*w));
	const char *layout;

	if (!w)
		return NULL;
	w->p = p;
	w->values = values;
	layout = LLVMGetDataLayoutStr(p->mod);
	w->td = LLVMCreateTargetData(layout ? layout : "");
	wpp_wet_build_helpers(w);
	return w;
}

void wpp_wet_tu_free(struct wpp_wet_tu *w)
{
	if (!w)
		return;
	if (w->td)
		LLVMDisposeTargetData(w->td);
	free(w->funcs), free(w->blocks), free(w->stmts), free(w->ops), free(w->tail);
	free(w);
}

static int name_is(LLVMValueRef fn, const char *want)
{
	size_t len;
	const char *name = LLVMGetValueName2(fn, &len);
	return strlen(want) == len && memcmp(name, want, len) == 0;
}

int wpp_wet_skips_function(LLVMValueRef fn)
{
	return name_is(fn, "memcpy") || name_is(fn, "memmove") || name_is(fn, "memset");
}

/* ---- instruction ids ---- */

static uint32_t ptr_slot(LLVMValueRef v, uint32_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)v * 0x9e3779b97f4a7c15u;
	return (uint32_t)(h >> 40) & (cap - 1);
}

uint32_t wpp_wet_insn_id(const struct wpp_wet_fn *f, LLVMValueRef inst)
{
	if (!f->map_cap)
		return UINT32_MAX;
	for (uint32_t h = ptr_slot(inst, f->map_cap);; h = (h + 1) & (f->map_cap - 1)) {
		if (f->map_key[h] == inst)
			return f->map_val[h];
		if (!f->map_key[h])
			return UINT32_MAX;
	}
}

static int number_insns(struct wpp_wet_fn *f)
{
	uint32_t n = 0, cap = 64;

	for (uint32_t v = 0; v < f->c->cfg.nblocks; v++)
		for (LLVMValueRef i = LLVMGetFirstInstruction(f->c->blocks[v]); i;
		     i = LLVMGetNextInstruction(i))
			n += !wpp_ir_is_debug_intrinsic(i);
	while (cap < 2 * (uint64_t)n + 2)
		cap *= 2;
	f->map_key = calloc(cap, sizeof(*f->map_key));
	f->map_val = calloc(cap, sizeof(*f->map_val));
	f->stmt_of_insn = malloc(((size_t)n + 1) * sizeof(uint32_t));
	if (!f->map_key || !f->map_val || !f->stmt_of_insn)
		return -1;
	f->map_cap = cap;
	f->ninsns = n;
	memset(f->stmt_of_insn, 0xff, ((size_t)n + 1) * sizeof(uint32_t));
	n = 0;
	for (uint32_t v = 0; v < f->c->cfg.nblocks; v++)
		for (LLVMValueRef i = LLVMGetFirstInstruction(f->c->blocks[v]); i;
		     i = LLVMGetNextInstruction(i)) {
			if (wpp_ir_is_debug_intrinsic(i))
				continue;
			uint32_t h = ptr_slot(i, cap);
			while (f->map_key[h])
				h = (h + 1) & (cap - 1);
			f->map_key[h] = i;
			f->map_val[h] = n++;
		}
	return 0;
}

/* ---- what a statement is and records ---- */

static uint8_t vtype_of(LLVMTypeRef t, uint32_t *bits)
{
	*bits = 0;
	switch (LLVMGetTypeKind(t)) {
	case LLVMIntegerTypeKind:
		*bits = LLVMGetIntTypeWidth(t);
		return *bits <= 64 ? WPP_WET_VT_INT : WPP_WET_VT_NONE;
	case LLVMPointerTypeKind:
		*bits = 64;
		return WPP_WET_VT_PTR;
	case LLVMHalfTypeKind:
	case LLVMBFloatTypeKind:
		*bits = 16;
		return WPP_WET_VT_HALF;
	case LLVMFloatTypeKind:
		*bits = 32;
		return WPP_WET_VT_FLOAT;
	case LLVMDoubleTypeKind:
		*bits = 64;
		return WPP_WET_VT_DOUBLE;
	default:
		return WPP_WET_VT_NONE;
	}
}

/* Words one slot may take: values that can reach |v| >= 2^61 escape. */
static uint32_t slot_words(uint8_t vtype, uint32_t bits)
{
	if (vtype == WPP_WET_VT_INT)
		return bits <= 32 ? 1 : 2;
	return vtype == WPP_WET_VT_HALF || vtype == WPP_WET_VT_FLOAT ? 1 : 2;
}

static uint32_t stmt_words(const struct wet_stmt *s)
{
	return (s->records & WPP_WET_REC_ADDR ? 2 : 0) +
	       (s->records & WPP_WET_REC_VALUE ? slot_words(s->vtype, s->bits) : 0);
}

static int defined_here(LLVMValueRef callee)
{
	size_t len;
	const char *name;

	if (!callee || LLVMIsDeclaration(callee) ||
	    LLVMGetLinkage(callee) == LLVMAvailableExternallyLinkage ||
	    wpp_wet_skips_function(callee))
		return 0;
	name = LLVMGetValueName2(callee, &len);
	return !(len >= 5 && memcmp(name, "__wpp", 5) == 0);
}

static uint8_t call_kind(LLVMValueRef i)
{
	LLVMValueRef called = LLVMGetCalledValue(i);
	LLVMValueRef fn = wpp_ir_direct_callee(i);

	if ((called && LLVMIsAInlineAsm(called)) || (fn && LLVMGetIntrinsicID(fn)))
		return WPP_WET_INTRINSIC;
	return defined_here(fn) ? WPP_WET_CALL : WPP_WET_EXTCALL;
}

static uint32_t access_bytes(struct wpp_wet_tu *w, LLVMTypeRef t)
{
	return w->td && LLVMTypeIsSized(t) ? (uint32_t)LLVMStoreSizeOfType(w->td, t) : 0;
}

/* Fills s for instruction i; 0 when i is no statement. */
static int classify(struct wpp_wet_fn *f, LLVMValueRef i, struct wet_stmt *s)
{
	struct wpp_wet_tu *w = f->tu;
	LLVMOpcode op = LLVMGetInstructionOpcode(i);
	LLVMTypeRef ty = LLVMTypeOf(i);
	int all = w->values == WPP_WET_VALUES_ALL;
	int produces = LLVMGetTypeKind(ty) != LLVMVoidTypeKind;

	memset(s, 0, sizeof(*s));
	s->inst = i;
	s->vtype = produces ? vtype_of(ty, &s->bits) : WPP_WET_VT_NONE;
	switch (op) {
	case LLVMLoad:
		s->kind = WPP_WET_LOAD;
		s->access = access_bytes(w, ty);
		s->records = WPP_WET_REC_ADDR | (s->vtype ? WPP_WET_REC_VALUE : 0);
		return 1;
	case LLVMStore: {
		LLVMTypeRef vt = LLVMTypeOf(LLVMGetOperand(i, 0));
		s->kind = WPP_WET_STORE;
		s->vtype = vtype_of(vt, &s->bits);
		s->access = access_bytes(w, vt);
		s->records = WPP_WET_REC_ADDR | (s->vtype ? WPP_WET_REC_VALUE : 0);
		return 1;
	}
	case LLVMAtomicRMW:
	case LLVMAtomicCmpXchg:
		s->kind = WPP_WET_RMW;
		s->access = produces && op == LLVMAtomicRMW ? access_bytes(w, ty) : 0;
		s->records =
		    WPP_WET_REC_ADDR | (op == LLVMAtomicRMW && s->vtype ? WPP_WET_REC_VALUE : 0);
		return 1;
	case LLVMCall:
	case LLVMInvoke:
	case LLVMCallBr:
		s->kind = call_kind(i);
		if (s->kind == WPP_WET_INTRINSIC && !produces && !LLVMIsAMemIntrinsic(i))
			return 0; /* lifetime markers, assumes, ... */
		/* An invoke's result exists on its normal edge only, a musttail
		 * call's is returned as it is: neither is recorded. */
		if (produces && s->vtype && op == LLVMCall &&
		    LLVMGetTailCallKind(i) != LLVMTailCallKindMustTail &&
		    (s->kind == WPP_WET_EXTCALL || all))
			s->records = WPP_WET_REC_VALUE;
		return 1;
	case LLVMPHI:
		s->kind = WPP_WET_PHI;
		return 1;
	case LLVMRet:
		s->kind = WPP_WET_RET;
		return LLVMGetNumOperands(i) > 0;
	case LLVMBr:
		s->kind = WPP_WET_BRANCH;
		return LLVMIsConditional(i);
	case LLVMSwitch:
	case LLVMIndirectBr:
		s->kind = WPP_WET_BRANCH;
		return 1;
	default:
		if (!produces)
			return 0;
		s->kind = WPP_WET_COMPUTED;
		if (all && s->vtype && op != LLVMAlloca && op != LLVMLandingPad)
			s->records = WPP_WET_REC_VALUE;
		return 1;
	}
}

static int add_stmt(struct wpp_wet_fn *f, const struct wet_stmt *s)
{
	if (f->nstmts == f->cap_stmts) {
		uint32_t cap = f->cap_stmts ? 2 * f->cap_stmts : 64;
		struct wet_stmt *grown = realloc(f->stmts, cap * sizeof(*grown));
		if (!grown)
			return -1;
		f->stmts = grown;
		f->cap_stmts = cap;
	}
	f->stmt_of_insn[s->id] = f->nstmts;
	f->stmts[f->nstmts++] = *s;
	return 0;
}

/* Statements per block; a block's items beyond WPP_WET_MAX_WORDS words are
 * not recorded (a path cannot be cut inside a block). */
static int find_statements(struct wpp_wet_fn *f, uint32_t *words)
{
	uint32_t n = f->c->cfg.nblocks;

	for (uint32_t v = 0; v < n; v++) {
		f->block_first[v] = f->nstmts;
		words[v] = 0;
		for (LLVMValueRef i = LLVMGetFirstInstruction(f->c->blocks[v]); i;
		     i = LLVMGetNextInstruction(i)) {
			struct wet_stmt s;
			if (wpp_ir_is_debug_intrinsic(i) || !classify(f, i, &s))
				continue;
			s.id = wpp_wet_insn_id(f, i);
			s.block = v;
			if (words[v] + stmt_words(&s) > WPP_WET_MAX_WORDS)
				s.records = 0;
			words[v] += stmt_words(&s);
			if (add_stmt(f, &s))
				return -1;
		}
	}
	f->block_first[n] = f->nstmts;
	return 0;
}

/* K(v) = words(v) + max K over v's REAL successors, bottom-up; where it
 * would pass WPP_WET_MAX_WORDS the heaviest successor is cut (its paths
 * start anew), as numbering.c cuts for path counts.  Counts of blocks done
 * before a later cut may stay high: conservative. */
static int bound_paths(struct wpp_wet_fn *f, struct wpp_dag *d, const uint32_t *words)
{
	struct wpp_dag_walk w;
	uint64_t max = 0;

	if (wpp_dag_walk_begin(&w, d))
		return -1;
	for (uint32_t k = 0; k < w.nn; k++) {
		uint32_t v = w.order[k];
		if (v >= d->nblocks)
			continue; /* ENTRY, EXIT: 0 */
		for (;;) {
			uint64_t best_k = 0;
			uint32_t best = WPP_NONE;
			for (uint32_t i = w.out.start[v]; i < w.out.start[v + 1]; i++) {
				const struct wpp_dag_edge *e = &d->edges[w.out.adj[i]];
				if (e->kind != WPP_EDGE_REAL || e->dst >= d->nblocks)
					continue;
				if (best == WPP_NONE || w.np[e->dst] > best_k)
					best = e->dst, best_k = w.np[e->dst];
			}
			if (words[v] + best_k <= WPP_WET_MAX_WORDS || best == WPP_NONE) {
				w.np[v] = words[v] + best_k;
				break;
			}
			if (wpp_dag_cut_node(d, &w.in, best)) {
				wpp_dag_walk_end(&w);
				return -1;
			}
		}
		if (w.np[v] > max)
			max = w.np[v];
	}
	wpp_dag_walk_end(&w);
	f->max_words = (uint32_t)max;
	return 0;
}

struct wpp_wet_fn *wpp_wet_plan(struct wpp_wet_tu *w, LLVMValueRef fn, const struct wpp_ir_cfg *c,
				struct wpp_dag *d)
{
	struct wpp_wet_fn *f = calloc(1, sizeof(*f));
	uint32_t *words = malloc(((size_t)c->cfg.nblocks + 1) * sizeof(uint32_t));

	if (!f || !words)
		goto fail;
	f->tu = w;
	f->fn = fn;
	f->c = c;
	f->nargs = LLVMCountParams(fn);
	f->block_first = malloc(((size_t)c->cfg.nblocks + 1) * sizeof(uint32_t));
	if (!f->block_first || number_insns(f) || find_statements(f, words) ||
	    bound_paths(f, d, words))
		goto fail;
	free(words);
	return f;
fail:
	free(words);
	wpp_wet_fn_free(f);
	return NULL;
}

void wpp_wet_fn_free(struct wpp_wet_fn *f)
{
	if (!f)
		return;
	free(f->stmts), free(f->block_first), free(f->stmt_of_insn);
	free(f->map_key), free(f->map_val);
	free(f);
}
