/* SPDX-License-Identifier: MIT */
/* ir_probes.c — runtime symbols and the record sequence (see ir_probes.h). */
#include "instrument/ir_probes.h"

#include <llvm-c/Comdat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wpp/trace_abi.h"

/* Probability the flush branch is taken, as branch weights: a buffer holds
 * thousands of words, so the slow path is very rare. */
#define COLD_WEIGHT 1
#define HOT_WEIGHT  100000

static uint64_t unregistered_word(void)
{
	return (uint64_t)WPP_FID_UNREGISTERED << WPP_FID_SHIFT;
}

static LLVMValueRef get_or_add_fn(LLVMModuleRef m, const char *name, LLVMTypeRef ty)
{
	LLVMValueRef f = LLVMGetNamedFunction(m, name);
	return f ? f : LLVMAddFunction(m, name, ty);
}

static void add_fn_attr(LLVMContextRef ctx, LLVMValueRef f, const char *attr)
{
	unsigned kind = LLVMGetEnumAttributeKindForName(attr, strlen(attr));
	LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
				LLVMCreateEnumAttribute(ctx, kind, 0));
}

static LLVMValueRef tls_ptr(struct wpp_probes *p, const char *name)
{
	LLVMValueRef g = LLVMGetNamedGlobal(p->mod, name);
	if (!g) {
		g = LLVMAddGlobal(p->mod, p->ptr, name);
		LLVMSetLinkage(g, LLVMExternalLinkage);
	}
	LLVMSetThreadLocal(g, 1);
	LLVMSetThreadLocalMode(g, LLVMInitialExecTLSModel);
	return g;
}

/*
 * The records call __wpp_flush with the preserve_most convention: the call
 * clobbers no general register but r11, so the cold call costs the hot
 * code no spills and no callee-saved pushes.  It must not go through a
 * lazily bound PLT entry (the resolver does not preserve r10), and a call
 * through the GOT makes the register allocator keep the GOT entry in a
 * register across loops.  So each linked module gets one hidden stub,
 * called directly, that jumps through the GOT entry bound at load time
 * (counting mode's hash call is built the same way, ir_counts.c).
 */
LLVMValueRef wpp_probes_got_stub(struct wpp_probes *p, const char *stub, const char *target,
				 LLVMTypeRef fnty, int cold)
{
	char body[256];
	int len = snprintf(body, sizeof(body), "jmp *%s@GOTPCREL(%%rip)", target);
	LLVMValueRef f = LLVMGetNamedFunction(p->mod, stub);
	if (f)
		return f;
	f = LLVMAddFunction(p->mod, stub, fnty);
	LLVMSetFunctionCallConv(f, LLVMPreserveMostCallConv);
	LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
	LLVMSetVisibility(f, LLVMHiddenVisibility);
	LLVMSetComdat(f, LLVMGetOrInsertComdat(p->mod, stub));
	add_fn_attr(p->ctx, f, "naked");
	add_fn_attr(p->ctx, f, "noinline");
	add_fn_attr(p->ctx, f, "nounwind");
	if (cold)
		add_fn_attr(p->ctx, f, "cold");
	LLVMBuilderRef b = LLVMCreateBuilderInContext(p->ctx);
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(p->ctx, f, "entry"));
	LLVMValueRef jmp = LLVMGetInlineAsm(p->void_fn, body, (size_t)len, (char *)"", 0, 1, 0,
					    LLVMInlineAsmDialectATT, 0);
	LLVMBuildCall2(b, p->void_fn, jmp, NULL, 0, "");
	LLVMBuildUnreachable(b);
	LLVMDisposeBuilder(b);
	return f;
}

void wpp_probes_branch_weights(struct wpp_probes *p, LLVMValueRef br, uint32_t taken,
			       uint32_t not_taken)
{
	LLVMMetadataRef ops[3] = {
	    LLVMMDStringInContext2(p->ctx, "branch_weights", 14),
	    LLVMValueAsMetadata(LLVMConstInt(p->i32, taken, 0)),
	    LLVMValueAsMetadata(LLVMConstInt(p->i32, not_taken, 0)),
	};
	LLVMSetMetadata(br, LLVMGetMDKindIDInContext(p->ctx, "prof", 4),
			LLVMMetadataAsValue(p->ctx, LLVMMDNodeInContext2(p->ctx, ops, 3)));
}

/* Reads the thread's cursor into the function's cursor slot. */
static void build_cursor_load(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef slot)
{
	LLVMBuildStore(b, LLVMBuildLoad2(b, p->ptr, p->cursor, "wpp.cur"), slot);
}

LLVMValueRef wpp_probes_inline_helper(struct wpp_probes *p, const char *name, LLVMTypeRef fnty)
{
	LLVMValueRef f = LLVMAddFunction(p->mod, name, fnty);
	LLVMSetLinkage(f, LLVMInternalLinkage);
	add_fn_attr(p->ctx, f, "alwaysinline");
	add_fn_attr(p->ctx, f, "nounwind");
	return f;
}

static LLVMValueRef k64(struct wpp_probes *p, uint64_t v)
{
	return LLVMConstInt(p->i64, v, 0);
}

static void call_rec1(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef cur, LLVMValueRef w)
{
	LLVMValueRef args[2] = {cur, w};
	LLVMBuildCall2(b, p->rec1_fn, p->rec1, args, 2, "");
}

/* Body of __wpp_rec{1,2}(slot, words...): the sequence from trace_abi.h,
 * with the cursor read from and written back to the caller's cursor slot,
 * an alloca that is promoted to a register after inlining.  The word goes
 * to memory first; the release store (singlethread: a compiler barrier, a
 * plain mov on x86) then publishes the new cursor, so __wpp_cursor only
 * ever covers words that are written. */
static LLVMValueRef build_record_helper(struct wpp_probes *p, const char *name, LLVMTypeRef fnty,
					unsigned nwords)
{
	LLVMValueRef f = LLVMGetNamedFunction(p->mod, name);
	if (f)
		return f;
	f = wpp_probes_inline_helper(p, name, fnty);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(p->ctx, f, "entry");
	LLVMBasicBlockRef cold = LLVMAppendBasicBlockInContext(p->ctx, f, "flush");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(p->ctx, f, "done");
	LLVMBuilderRef b = LLVMCreateBuilderInContext(p->ctx);
	LLVMValueRef slot = LLVMGetParam(f, 0);
	LLVMPositionBuilderAtEnd(b, entry);
	LLVMValueRef cur = LLVMBuildLoad2(b, p->ptr, slot, "p");
	for (unsigned i = 0; i < nwords; i++) {
		LLVMValueRef idx = LLVMConstInt(p->i64, i, 0);
		LLVMValueRef at = i ? LLVMBuildGEP2(b, p->i64, cur, &idx, 1, "") : cur;
		LLVMBuildStore(b, LLVMGetParam(f, 1 + i), at);
	}
	LLVMValueRef k = LLVMConstInt(p->i64, nwords, 0);
	LLVMValueRef next = LLVMBuildGEP2(b, p->i64, cur, &k, 1, "n");
	LLVMBuildStore(b, next, slot);
	LLVMValueRef pub = LLVMBuildStore(b, next, p->cursor);
	LLVMSetOrdering(pub, LLVMAtomicOrderingRelease);
	LLVMSetAtomicSingleThread(pub, 1);
	LLVMSetAlignment(pub, 8);
	LLVMValueRef lim = LLVMBuildLoad2(b, p->ptr, p->limit, "lim");
	LLVMValueRef full = LLVMBuildICmp(b, LLVMIntUGE, next, lim, "full");
	wpp_probes_branch_weights(p, LLVMBuildCondBr(b, full, cold, done), COLD_WEIGHT, HOT_WEIGHT);
	LLVMPositionBuilderAtEnd(b, cold);
	LLVMValueRef call = LLVMBuildCall2(b, p->void_fn, p->flush, NULL, 0, "");
	LLVMSetInstructionCallConv(call, LLVMPreserveMostCallConv);
	build_cursor_load(p, b, slot); /* the flush moved it */
	LLVMBuildBr(b, done);
	LLVMPositionBuilderAtEnd(b, done);
	LLVMBuildRetVoid(b);
	LLVMDisposeBuilder(b);
	return f;
}

/* __wpp_run_flush(cur, count): writes count (>= 1) pending repeats as
 * REPEAT words, WPP_REPEAT_MAX at a time (count is 64-bit, an operand 32). */
static LLVMValueRef build_run_flush(struct wpp_probes *p)
{
	LLVMValueRef f = LLVMGetNamedFunction(p->mod, "__wpp_run_flush");
	if (f)
		return f; /* the module was instrumented before */
	f = wpp_probes_inline_helper(p, "__wpp_run_flush", p->run_flush_fn);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(p->ctx, f, "entry");
	LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(p->ctx, f, "loop");
	LLVMBasicBlockRef chunk = LLVMAppendBasicBlockInContext(p->ctx, f, "chunk");
	LLVMBasicBlockRef tail = LLVMAppendBasicBlockInContext(p->ctx, f, "tail");
	LLVMBuilderRef b = LLVMCreateBuilderInContext(p->ctx);
	LLVMValueRef cur = LLVMGetParam(f, 0), count = LLVMGetParam(f, 1);
	uint64_t repeat0 = wpp_make_ctrl(WPP_CTRL_REPEAT, 0);
	LLVMPositionBuilderAtEnd(b, entry);
	LLVMValueRef c0 = LLVMBuildLoad2(b, p->i64, count, "c0");
	LLVMBuildBr(b, loop);
	LLVMPositionBuilderAtEnd(b, loop);
	LLVMValueRef c = LLVMBuildPhi(b, p->i64, "c");
	LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGT, c, k64(p, WPP_REPEAT_MAX), "big");
	wpp_probes_branch_weights(p, LLVMBuildCondBr(b, big, chunk, tail), COLD_WEIGHT, HOT_WEIGHT);
	LLVMPositionBuilderAtEnd(b, chunk);
	call_rec1(p, b, cur, k64(p, repeat0 | WPP_REPEAT_MAX));
	LLVMValueRef rest = LLVMBuildSub(b, c, k64(p, WPP_REPEAT_MAX), "rest");
	LLVMBuildBr(b, loop);
	LLVMValueRef in_v[2] = {c0, rest};
	LLVMBasicBlockRef in_b[2] = {entry, chunk};
	LLVMAddIncoming(c, in_v, in_b, 2);
	LLVMPositionBuilderAtEnd(b, tail);
	call_rec1(p, b, cur, LLVMBuildOr(b, c, k64(p, repeat0), "rep"));
	LLVMBuildRetVoid(b);
	LLVMDisposeBuilder(b);
	return f;
}

/* `if (count) __wpp_run_flush(cur, count);` then continues at `done`. */
static void build_flush_if_pending(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef f,
				   LLVMValueRef cur, LLVMValueRef count, LLVMBasicBlockRef done)
{
	LLVMBasicBlockRef flush = LLVMAppendBasicBlockInContext(p->ctx, f, "flush");
	LLVMValueRef c = LLVMBuildLoad2(b, p->i64, count, "c");
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntNE, c, k64(p, 0), "pending"), flush, done);
	LLVMPositionBuilderAtEnd(b, flush);
	LLVMValueRef args[2] = {cur, count};
	LLVMBuildCall2(b, p->run_flush_fn, p->run_flush, args, 2, "");
	LLVMBuildBr(b, done);
}

/* Likelihood that a qualifying loop repeats its last path, as branch
 * weights: the repeat branch becomes the fall-through. */
#define SAME_WEIGHT   64
#define CHANGE_WEIGHT 1

/* __wpp_run_rec(cur, last, count, w) and __wpp_run_rec2(cur, last, count,
 * ctrl, id): see ir_probes.h.  The last word of the record (the narrow
 * word, or the wide id) is what `last` holds: never 0. */
static LLVMValueRef build_run_rec(struct wpp_probes *p, const char *name, LLVMTypeRef fnty,
				  unsigned nwords)
{
	LLVMValueRef f = LLVMGetNamedFunction(p->mod, name);
	if (f)
		return f; /* the module was instrumented before */
	f = wpp_probes_inline_helper(p, name, fnty);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(p->ctx, f, "entry");
	LLVMBasicBlockRef again = LLVMAppendBasicBlockInContext(p->ctx, f, "again");
	LLVMBasicBlockRef change = LLVMAppendBasicBlockInContext(p->ctx, f, "change");
	LLVMBasicBlockRef write = LLVMAppendBasicBlockInContext(p->ctx, f, "write");
	LLVMBuilderRef b = LLVMCreateBuilderInContext(p->ctx);
	LLVMValueRef cur = LLVMGetParam(f, 0), last = LLVMGetParam(f, 1);
	LLVMValueRef count = LLVMGetParam(f, 2), w = LLVMGetParam(f, 2 + nwords);
	LLVMPositionBuilderAtEnd(b, entry);
	LLVMValueRef same =
	    LLVMBuildICmp(b, LLVMIntEQ, w, LLVMBuildLoad2(b, p->i64, last, "last"), "same");
	wpp_probes_branch_weights(p, LLVMBuildCondBr(b, same, again, change), SAME_WEIGHT,
				  CHANGE_WEIGHT);
	LLVMPositionBuilderAtEnd(b, again);
	LLVMValueRef c = LLVMBuildLoad2(b, p->i64, count, "c");
	/* 64-bit: no overflow test on the hot path (2^64 iterations do not
	 * happen); the flush splits counts above WPP_REPEAT_MAX. */
	LLVMBuildStore(b, LLVMBuildAdd(b, c, k64(p, 1), "c1"), count);
	LLVMBuildRetVoid(b);
	LLVMPositionBuilderAtEnd(b, change);
	build_flush_if_pending(p, b, f, cur, count, write);
	LLVMPositionBuilderAtEnd(b, write);
	if (nwords == 1) {
		call_rec1(p, b, cur, w);
	} else {
		LLVMValueRef args[3] = {cur, LLVMGetParam(f, 3), w};
		LLVMBuildCall2(b, p->rec2_fn, p->rec2, args, 3, "");
	}
	LLVMBuildStore(b, w, last);
	LLVMBuildStore(b, k64(p, 0), count);
	LLVMBuildRetVoid(b);
	LLVMDisposeBuilder(b);
	return f;
}

/* __wpp_run_end(cur, last, count): see ir_probes.h. */
static LLVMValueRef build_run_end(struct wpp_probes *p)
{
	LLVMValueRef f = LLVMGetNamedFunction(p->mod, "__wpp_run_end");
	if (f)
		return f; /* the module was instrumented before */
	f = wpp_probes_inline_helper(p, "__wpp_run_end", p->run_end_fn);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(p->ctx, f, "entry");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(p->ctx, f, "done");
	LLVMBuilderRef b = LLVMCreateBuilderInContext(p->ctx);
	LLVMValueRef cur = LLVMGetParam(f, 0), last = LLVMGetParam(f, 1),
		     count = LLVMGetParam(f, 2);
	LLVMPositionBuilderAtEnd(b, entry);
	build_flush_if_pending(p, b, f, cur, count, done);
	LLVMPositionBuilderAtEnd(b, done);
	LLVMBuildStore(b, k64(p, 0), last);
	LLVMBuildStore(b, k64(p, 0), count);
	LLVMBuildRetVoid(b);
	LLVMDisposeBuilder(b);
	return f;
}

void wpp_probes_init(struct wpp_probes *p, LLVMModuleRef m)
{
	memset(p, 0, sizeof(*p));
	p->mod = m;
	p->ctx = LLVMGetModuleContext(m);
	p->i32 = LLVMInt32TypeInContext(p->ctx);
	p->i64 = LLVMInt64TypeInContext(p->ctx);
	p->ptr = LLVMPointerTypeInContext(p->ctx, 0);
	p->voidty = LLVMVoidTypeInContext(p->ctx);
	p->void_fn = LLVMFunctionType(p->voidty, NULL, 0, 0);
	LLVMTypeRef params[3] = {p->ptr, p->i64, p->i64};
	p->rec1_fn = LLVMFunctionType(p->voidty, params, 2, 0);
	p->rec2_fn = LLVMFunctionType(p->voidty, params, 3, 0);
	p->reg_fn = LLVMFunctionType(p->voidty, &p->ptr, 1, 0);
	LLVMTypeRef run_params[5] = {p->ptr, p->ptr, p->ptr, p->i64, p->i64};
	p->run_rec_fn = LLVMFunctionType(p->voidty, run_params, 4, 0);
	p->run_rec2_fn = LLVMFunctionType(p->voidty, run_params, 5, 0);
	p->run_end_fn = LLVMFunctionType(p->voidty, run_params, 3, 0);
	p->run_flush_fn = LLVMFunctionType(p->voidty, run_params, 2, 0);
	p->cursor = tls_ptr(p, WPP_SYM_CURSOR);
	/* One TLS symbol for both (trace_abi.h): x86 addresses the limit as
	 * %fs:8(%reg) with the cursor's offset already in %reg. */
	LLVMValueRef off = LLVMConstInt(p->i64, WPP_LIMIT_OFFSET, 0);
	p->limit = LLVMConstInBoundsGEP2(LLVMInt8TypeInContext(p->ctx), p->cursor, &off, 1);
	p->flush = get_or_add_fn(m, WPP_SYM_FLUSH, p->void_fn);
	p->flush = wpp_probes_got_stub(p, "__wpp_flush_stub", WPP_SYM_FLUSH, p->void_fn, 1);
	p->flush_all = get_or_add_fn(m, WPP_SYM_FLUSH_ALL, p->void_fn);
	add_fn_attr(p->ctx, p->flush_all, "nounwind");
	p->register_tu = get_or_add_fn(m, WPP_SYM_REGISTER, p->reg_fn);
	p->rec1 = build_record_helper(p, "__wpp_rec1", p->rec1_fn, 1);
	p->rec2 = build_record_helper(p, "__wpp_rec2", p->rec2_fn, 2);
	/* After rec1 in the module: the always-inliner visits helpers in
	 * module order, so each is flattened before it is inlined. */
	p->run_flush = build_run_flush(p);
	p->run_rec = build_run_rec(p, "__wpp_run_rec", p->run_rec_fn, 1);
	p->run_rec2 = build_run_rec(p, "__wpp_run_rec2", p->run_rec2_fn, 2);
	p->run_end = build_run_end(p);
	p->fid_base_slot = LLVMAddGlobal(m, p->i64, "__wpp_fid_base");
	LLVMSetLinkage(p->fid_base_slot, LLVMPrivateLinkage);
	LLVMSetInitializer(p->fid_base_slot, LLVMConstInt(p->i64, unregistered_word(), 0));
	LLVMSetAlignment(p->fid_base_slot, 8);
	p->reg_md_kind = LLVMGetMDKindIDInContext(p->ctx, "wpp.reg", 7);
}

LLVMValueRef wpp_emit_cursor_slot(struct wpp_probes *p, LLVMBuilderRef b)
{
	LLVMValueRef slot = LLVMBuildAlloca(b, p->ptr, "wpp.cur");
	LLVMSetMetadata(slot, p->reg_md_kind,
			LLVMMetadataAsValue(p->ctx, LLVMMDNodeInContext2(p->ctx, NULL, 0)));
	return slot;
}

void wpp_emit_cursor_reload(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef slot)
{
	build_cursor_load(p, b, slot);
}

void wpp_emit_record1(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef slot, LLVMValueRef w)
{
	call_rec1(p, b, slot, w);
}

void wpp_emit_record2(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef slot, LLVMValueRef w0,
		      LLVMValueRef w1)
{
	LLVMValueRef args[3] = {slot, w0, w1};
	LLVMBuildCall2(b, p->rec2_fn, p->rec2, args, 3, "");
}

int wpp_is_record_call(struct wpp_probes *p, LLVMValueRef inst)
{
	if (LLVMGetInstructionOpcode(inst) != LLVMCall)
		return 0;
	LLVMValueRef callee = LLVMGetCalledValue(inst);
	if (callee == p->rec1 || callee == p->rec2 || callee == p->run_rec ||
	    callee == p->run_rec2 || callee == p->run_end)
		return 1;
	/* Other emitters' helpers (ir_wet_emit.c) keep the cursor slot
	 * themselves, like these: module-internal "__wpp_" functions. */
	size_t len = 0;
	const char *name =
	    callee && LLVMIsAFunction(callee) ? LLVMGetValueName2(callee, &len) : NULL;
	return name && len > 6 && memcmp(name, "__wpp_", 6) == 0 &&
	       LLVMGetLinkage(callee) == LLVMInternalLinkage;
}

static LLVMValueRef run_slot(struct wpp_probes *p, LLVMBuilderRef b, const char *name)
{
	LLVMValueRef slot = LLVMBuildAlloca(b, p->i64, name);
	LLVMSetMetadata(slot, p->reg_md_kind,
			LLVMMetadataAsValue(p->ctx, LLVMMDNodeInContext2(p->ctx, NULL, 0)));
	LLVMBuildStore(b, k64(p, 0), slot);
	return slot;
}

void wpp_emit_run_slots(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef *last,
			LLVMValueRef *count)
{
	*last = run_slot(p, b, "wpp.last");
	*count = run_slot(p, b, "wpp.count");
}

void wpp_emit_run_record(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef cur,
			 LLVMValueRef last, LLVMValueRef count, LLVMValueRef w)
{
	LLVMValueRef args[4] = {cur, last, count, w};
	LLVMBuildCall2(b, p->run_rec_fn, p->run_rec, args, 4, "");
}

void wpp_emit_run_record2(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef cur,
			  LLVMValueRef last, LLVMValueRef count, LLVMValueRef ctrl, LLVMValueRef id)
{
	LLVMValueRef args[5] = {cur, last, count, ctrl, id};
	LLVMBuildCall2(b, p->run_rec2_fn, p->run_rec2, args, 5, "");
}

void wpp_emit_run_end(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef cur, LLVMValueRef last,
		      LLVMValueRef count)
{
	LLVMValueRef args[3] = {cur, last, count};
	LLVMBuildCall2(b, p->run_end_fn, p->run_end, args, 3, "");
}

void wpp_emit_flush_all(struct wpp_probes *p, LLVMBuilderRef b)
{
	LLVMBuildCall2(b, p->void_fn, p->flush_all, NULL, 0, "");
}

LLVMValueRef wpp_emit_fid_word(struct wpp_probes *p, LLVMBuilderRef b, uint32_t local_index)
{
	return LLVMBuildLoad2(b, p->i64, wpp_fid_slot_global(p, local_index), "wpp.fidw");
}

LLVMValueRef wpp_fid_slot_global(struct wpp_probes *p, uint32_t local_index)
{
	LLVMValueRef slot = p->fid_base_slot; /* index 0: the base is the word */
	if (local_index != 0 && p->nfid_slots == p->fid_slots_cap) {
		uint32_t cap = p->fid_slots_cap ? 2 * p->fid_slots_cap : 64;
		struct wpp_fid_slot *grown = realloc(p->fid_slots, cap * sizeof(*grown));
		if (!grown)
			abort(); /* the function is already being rewritten */
		p->fid_slots = grown;
		p->fid_slots_cap = cap;
	}
	if (local_index != 0) {
		slot = LLVMAddGlobal(p->mod, p->i64, "__wpp_fidw");
		LLVMSetLinkage(slot, LLVMPrivateLinkage);
		LLVMSetInitializer(slot, LLVMConstInt(p->i64, unregistered_word(), 0));
		LLVMSetAlignment(slot, 8);
		p->fid_slots[p->nfid_slots++] = (struct wpp_fid_slot){local_index, slot};
	}
	return slot;
}

void wpp_emit_fid_slots_fill(struct wpp_probes *p, LLVMBuilderRef b)
{
	LLVMValueRef unreg = LLVMConstInt(p->i64, unregistered_word(), 0);
	LLVMValueRef base = LLVMBuildLoad2(b, p->i64, p->fid_base_slot, "base");
	LLVMValueRef isunreg = LLVMBuildICmp(b, LLVMIntEQ, base, unreg, "");
	for (uint32_t i = 0; i < p->nfid_slots; i++) {
		uint64_t off = (uint64_t)p->fid_slots[i].local_index << WPP_FID_SHIFT;
		LLVMValueRef sum = LLVMBuildAdd(b, base, LLVMConstInt(p->i64, off, 0), "");
		LLVMBuildStore(b, LLVMBuildSelect(b, isunreg, unreg, sum, ""),
			       p->fid_slots[i].global);
	}
}

void wpp_probes_free(struct wpp_probes *p)
{
	free(p->fid_slots);
	p->fid_slots = NULL;
	p->nfid_slots = p->fid_slots_cap = 0;
}
