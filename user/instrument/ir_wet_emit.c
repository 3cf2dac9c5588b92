/* SPDX-License-Identifier: MIT */
/*
 * ir_wet_emit.c — the code a WET function runs (see ir_wet.h): the
 * reservation at path starts, the value stores, the path end, and what
 * follows a call.  Each is a call of a module-internal always_inline
 * helper, so the plugin inlines them right after the pass and the cursor
 * slot, the value slot and the path register become registers.
 */
#include <stdlib.h>

#include "instrument/ir_calls.h"
#include "instrument/ir_wet_internal.h"
#include "wpp/trace_abi.h"
#include "wpp/wet_abi.h"

#define COLD_WEIGHT 1
#define HOT_WEIGHT  100000

static LLVMValueRef k64(struct wpp_probes *p, uint64_t v)
{
	return LLVMConstInt(p->i64, v, 0);
}

static LLVMValueRef gep64(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef base,
			  LLVMValueRef idx)
{
	return LLVMBuildGEP2(b, p->i64, base, &idx, 1, "");
}

static LLVMValueRef new_helper(struct wpp_probes *p, const char *name, LLVMTypeRef ty,
			       LLVMBuilderRef b)
{
	LLVMValueRef f = wpp_probes_inline_helper(p, name, ty);
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(p->ctx, f, "entry"));
	return f;
}

/* __wpp_wet_reserve(curslot, vpslot, need, hdr): room for need words at
 * the cursor (the runtime makes it when the limit is closer), then the
 * value slot past the record's header of hdr words. */
static void build_reserve(struct wpp_wet_tu *w, LLVMBuilderRef b)
{
	struct wpp_probes *p = w->p;
	LLVMValueRef f = new_helper(p, "__wpp_wet_reserve", w->reserve_fn, b);
	LLVMBasicBlockRef entry = LLVMGetInsertBlock(b);
	LLVMBasicBlockRef cold = LLVMAppendBasicBlockInContext(p->ctx, f, "reserve");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(p->ctx, f, "done");
	LLVMValueRef curslot = LLVMGetParam(f, 0), vpslot = LLVMGetParam(f, 1);
	LLVMValueRef need = LLVMGetParam(f, 2), hdr = LLVMGetParam(f, 3);
	LLVMValueRef cur = LLVMBuildLoad2(b, p->ptr, curslot, "cur");
	LLVMValueRef lim = LLVMBuildLoad2(b, p->ptr, p->limit, "lim");
	LLVMValueRef end = gep64(p, b, cur, need);
	LLVMValueRef full = LLVMBuildICmp(b, LLVMIntUGT, end, lim, "full");
	wpp_probes_branch_weights(p, LLVMBuildCondBr(b, full, cold, done), COLD_WEIGHT, HOT_WEIGHT);
	LLVMPositionBuilderAtEnd(b, cold);
	LLVMValueRef call = LLVMBuildCall2(b, w->stub_fn, w->stub, &need, 1, "");
	LLVMSetInstructionCallConv(call, LLVMPreserveMostCallConv);
	LLVMValueRef moved = LLVMBuildLoad2(b, p->ptr, p->cursor, "moved");
	LLVMBuildStore(b, moved, curslot);
	LLVMBuildBr(b, done);
	LLVMPositionBuilderAtEnd(b, done);
	LLVMValueRef at = LLVMBuildPhi(b, p->ptr, "at");
	LLVMValueRef in_v[2] = {cur, moved};
	LLVMBasicBlockRef in_b[2] = {entry, cold};
	LLVMAddIncoming(at, in_v, in_b, 2);
	LLVMBuildStore(b, gep64(p, b, at, hdr), vpslot);
	LLVMBuildRetVoid(b);
	w->reserve = f;
}

/* __wpp_wet_val(vpslot, v): one slot (wet_abi.h), escaped when needed. */
static void build_val(struct wpp_wet_tu *w, LLVMBuilderRef b)
{
	struct wpp_probes *p = w->p;
	LLVMValueRef f = new_helper(p, "__wpp_wet_val", w->val_fn, b);
	LLVMBasicBlockRef plain = LLVMAppendBasicBlockInContext(p->ctx, f, "plain");
	LLVMBasicBlockRef esc = LLVMAppendBasicBlockInContext(p->ctx, f, "escape");
	LLVMValueRef vpslot = LLVMGetParam(f, 0), v = LLVMGetParam(f, 1);
	LLVMValueRef vp = LLVMBuildLoad2(b, p->ptr, vpslot, "vp");
	LLVMValueRef z = LLVMBuildXor(b, LLVMBuildShl(b, v, k64(p, 1), ""),
				      LLVMBuildAShr(b, v, k64(p, 63), ""), "zz");
	LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGE, z, k64(p, WPP_WET_PLAIN_MAX), "big");
	wpp_probes_branch_weights(p, LLVMBuildCondBr(b, big, esc, plain), COLD_WEIGHT, HOT_WEIGHT);
	LLVMPositionBuilderAtEnd(b, plain);
	LLVMValueRef word =
	    LLVMBuildOr(b, LLVMBuildAdd(b, z, k64(p, 1), ""), k64(p, WPP_WET_VALUE_BIT), "word");
	LLVMBuildStore(b, word, vp);
	LLVMBuildStore(b, gep64(p, b, vp, k64(p, 1)), vpslot);
	LLVMBuildRetVoid(b);
	LLVMPositionBuilderAtEnd(b, esc);
	LLVMBuildStore(b, k64(p, WPP_WET_ESCAPE), vp);
	LLVMBuildStore(b, v, gep64(p, b, vp, k64(p, 1)));
	LLVMBuildStore(b, gep64(p, b, vp, k64(p, 2)), vpslot);
	LLVMBuildRetVoid(b);
	w->val = f;
}

/* __wpp_wet_end1(curslot, vpslot, w) / __wpp_wet_end2(curslot, vpslot,
 * ctrl, id): the header into the reserved words, then one release store
 * of the cursor past the values (trace_abi.h's publication rule). */
static LLVMValueRef build_end(struct wpp_wet_tu *w, LLVMBuilderRef b, const char *name,
			      LLVMTypeRef ty, unsigned nwords)
{
	struct wpp_probes *p = w->p;
	LLVMValueRef f = new_helper(p, name, ty, b);
	LLVMValueRef curslot = LLVMGetParam(f, 0), vpslot = LLVMGetParam(f, 1);
	LLVMValueRef cur = LLVMBuildLoad2(b, p->ptr, curslot, "cur");
	for (unsigned i = 0; i < nwords; i++)
		LLVMBuildStore(b, LLVMGetParam(f, 2 + i), i ? gep64(p, b, cur, k64(p, i)) : cur);
	LLVMValueRef next = LLVMBuildLoad2(b, p->ptr, vpslot, "next");
	LLVMBuildStore(b, next, curslot);
	LLVMValueRef pub = LLVMBuildStore(b, next, p->cursor);
	LLVMSetOrdering(pub, LLVMAtomicOrderingRelease);
	LLVMSetAtomicSingleThread(pub, 1);
	LLVMSetAlignment(pub, 8);
	LLVMBuildRetVoid(b);
	return f;
}

void wpp_wet_build_helpers(struct wpp_wet_tu *w)
{
	struct wpp_probes *p = w->p;
	LLVMTypeRef params[4] = {p->ptr, p->ptr, p->i64, p->i64};
	LLVMBuilderRef b = LLVMCreateBuilderInContext(p->ctx);

	w->stub_fn = LLVMFunctionType(p->voidty, &p->i64, 1, 0);
	w->reserve_fn = LLVMFunctionType(p->voidty, params, 4, 0);
	w->val_fn = LLVMFunctionType(p->voidty, params + 1, 2, 0);
	w->end1_fn = LLVMFunctionType(p->voidty, params, 3, 0);
	w->end2_fn = LLVMFunctionType(p->voidty, params, 4, 0);
	w->stub = wpp_probes_got_stub(p, "__wpp_reserve_stub", WPP_SYM_RESERVE, w->stub_fn, 1);
	build_reserve(w, b);
	build_val(w, b);
	w->end1 = build_end(w, b, "__wpp_wet_end1", w->end1_fn, 1);
	w->end2 = build_end(w, b, "__wpp_wet_end2", w->end2_fn, 2);
	LLVMDisposeBuilder(b);
}

void wpp_wet_emit_slots(struct wpp_wet_fn *f, LLVMBuilderRef b, LLVMValueRef cur, int wide)
{
	struct wpp_probes *p = f->tu->p;

	f->cur = cur;
	f->hdr = wide ? 2 : 1;
	if (!f->max_words)
		return; /* records no values: plain paths-mode records */
	f->vp = LLVMBuildAlloca(b, p->ptr, "wpp.vp");
	LLVMSetMetadata(f->vp, p->reg_md_kind,
			LLVMMetadataAsValue(p->ctx, LLVMMDNodeInContext2(p->ctx, NULL, 0)));
}

int wpp_wet_reserves_after_call(const struct wpp_wet_fn *f, uint32_t v)
{
	uint32_t k = f->block_first[v];

	if (!(f->c->flags[v] & WPP_CFGB_CALL_HEAD))
		return 0;
	/* The plan's statements are the original instructions: the first
	 * after the phis is the block's call (instrumentation may already
	 * stand before it). */
	while (k < f->block_first[v + 1] && f->stmts[k].kind == WPP_WET_PHI)
		k++;
	if (k == f->block_first[v + 1])
		return 0;
	LLVMValueRef i = f->stmts[k].inst;
	return wpp_ir_is_path_ending_call(i) &&
	       !(LLVMGetInstructionOpcode(i) == LLVMCall &&
		 LLVMGetTailCallKind(i) == LLVMTailCallKindMustTail);
}

void wpp_wet_emit_start(struct wpp_wet_fn *f, LLVMBuilderRef b)
{
	struct wpp_wet_tu *w = f->tu;

	if (!f->max_words)
		return;
	LLVMValueRef args[4] = {f->cur, f->vp, k64(w->p, f->hdr + f->max_words), k64(w->p, f->hdr)};
	LLVMBuildCall2(b, w->reserve_fn, w->reserve, args, 4, "");
}

void wpp_wet_emit_end(struct wpp_wet_fn *f, LLVMBuilderRef b, LLVMValueRef ctrl, LLVMValueRef word)
{
	struct wpp_wet_tu *w = f->tu;

	if (!f->max_words) {
		if (ctrl)
			wpp_emit_record2(w->p, b, f->cur, ctrl, word);
		else
			wpp_emit_record1(w->p, b, f->cur, word);
		return;
	}
	if (ctrl) {
		LLVMValueRef args[4] = {f->cur, f->vp, ctrl, word};
		LLVMBuildCall2(b, w->end2_fn, w->end2, args, 4, "");
	} else {
		LLVMValueRef args[3] = {f->cur, f->vp, word};
		LLVMBuildCall2(b, w->end1_fn, w->end1, args, 3, "");
	}
}

/* v as the 64 bits a slot holds (meta_wet.h, enum wpp_wet_vtype). */
static LLVMValueRef as_i64(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef v, uint8_t vtype,
			   uint32_t bits)
{
	LLVMContextRef ctx = p->ctx;

	switch (vtype) {
	case WPP_WET_VT_INT:
		if (bits == 64)
			return v;
		return bits == 1 ? LLVMBuildZExt(b, v, p->i64, "")
				 : LLVMBuildSExt(b, v, p->i64, "");
	case WPP_WET_VT_PTR:
		return LLVMBuildPtrToInt(b, v, p->i64, "");
	case WPP_WET_VT_HALF:
		return LLVMBuildZExt(b, LLVMBuildBitCast(b, v, LLVMInt16TypeInContext(ctx), ""),
				     p->i64, "");
	case WPP_WET_VT_FLOAT:
		return LLVMBuildZExt(b, LLVMBuildBitCast(b, v, p->i32, ""), p->i64, "");
	default:
		return LLVMBuildBitCast(b, v, p->i64, "");
	}
}

static void store_slot(struct wpp_wet_fn *f, LLVMBuilderRef b, LLVMValueRef v64)
{
	LLVMValueRef args[2] = {f->vp, v64};
	LLVMBuildCall2(b, f->tu->val_fn, f->tu->val, args, 2, "");
}

/* The statement's items, address first, at the builder's position. */
static void store_items(struct wpp_wet_fn *f, LLVMBuilderRef b, const struct wet_stmt *s)
{
	struct wpp_probes *p = f->tu->p;
	LLVMValueRef value = s->inst;

	if (s->kind == WPP_WET_STORE)
		value = LLVMGetOperand(s->inst, 0);
	if (s->records & WPP_WET_REC_ADDR) {
		LLVMValueRef addr = LLVMGetOperand(s->inst, s->kind == WPP_WET_STORE ? 1 : 0);
		store_slot(f, b, as_i64(p, b, addr, WPP_WET_VT_PTR, 64));
	}
	if (s->records & WPP_WET_REC_VALUE)
		store_slot(f, b, as_i64(p, b, value, s->vtype, s->bits));
}

/* The entry block's static allocas first again: a helper's branch splits
 * the block where it is inlined, and allocas after that point would no
 * longer be static. */
static void hoist_allocas(LLVMValueRef fn, LLVMBuilderRef b)
{
	LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
	LLVMValueRef first = LLVMGetFirstInstruction(entry), i = first, next;
	int before_other = 1;

	for (; i; i = next) {
		next = LLVMGetNextInstruction(i);
		int movable = LLVMIsAAllocaInst(i) && LLVMIsAConstant(LLVMGetOperand(i, 0));
		if (!movable) {
			before_other = 0;
			continue;
		}
		if (before_other)
			continue; /* already among the first */
		LLVMInstructionRemoveFromParent(i);
		LLVMPositionBuilderBefore(b, first);
		LLVMInsertIntoBuilder(b, i);
	}
}

void wpp_wet_emit_values(struct wpp_wet_fn *f, LLVMBuilderRef b, LLVMMetadataRef loc)
{
	if (!f->max_words)
		return;
	for (uint32_t k = 0; k < f->nstmts; k++) {
		const struct wet_stmt *s = &f->stmts[k];
		if (!s->records || wpp_ir_is_path_ending_call(s->inst))
			continue; /* call results: wpp_wet_after_call */
		LLVMPositionBuilderBefore(b, LLVMGetNextInstruction(s->inst));
		LLVMSetCurrentDebugLocation2(b, loc);
		store_items(f, b, s);
	}
	hoist_allocas(f->fn, b);
}

void wpp_wet_after_call(struct wpp_wet_fn *f, LLVMBuilderRef b, LLVMValueRef inst)
{
	struct wpp_probes *p = f->tu->p;
	uint32_t id, k;

	/* Monotonic (a plain mov on x86): an unordered load may be replaced
	 * by the value the path end stored before the call when the
	 * optimizer's facts about the callee predate its instrumentation
	 * (an internal function that was pure: seen on recursion.c's fib). */
	LLVMValueRef now = LLVMBuildLoad2(b, p->ptr, p->cursor, "wpp.cur");
	LLVMSetOrdering(now, LLVMAtomicOrderingMonotonic);
	LLVMSetAtomicSingleThread(now, 1);
	LLVMSetAlignment(now, 8);
	LLVMBuildStore(b, now, f->cur);
	if (!f->max_words || !(LLVMIsALandingPadInst(inst) || wpp_ir_is_path_ending_call(inst)))
		return; /* a memory intrinsic: the path goes on */
	/* The call ended the path; the one it began is reserved now that
	 * the callee's records are in, before the call's result is stored. */
	wpp_wet_emit_start(f, b);
	id = wpp_wet_insn_id(f, inst);
	k = id == UINT32_MAX ? UINT32_MAX : f->stmt_of_insn[id];
	if (k != UINT32_MAX && (f->stmts[k].records & WPP_WET_REC_VALUE) &&
	    LLVMGetInstructionOpcode(inst) == LLVMCall)
		store_items(f, b, &f->stmts[k]);
}
