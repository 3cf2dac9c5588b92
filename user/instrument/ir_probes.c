/* SPDX-License-Identifier: MIT */
/* ir_probes.c — runtime symbols and the record sequence (see ir_probes.h). */
#include "ir_probes.h"

#include <llvm-c/Comdat.h>
#include <stdlib.h>
#include <string.h>

#include "wpp/trace_abi.h"

/* Probability the flush branch is taken, as branch weights: a buffer holds
 * thousands of words, so the slow path is very rare. */
#define COLD_WEIGHT 1
#define HOT_WEIGHT 100000

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
	LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(ctx, kind, 0));
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
 * called directly, that jumps through the GOT entry bound at load time.
 */
static LLVMValueRef build_flush_stub(struct wpp_probes *p)
{
	static const char name[] = "__wpp_flush_stub";
	static const char body[] = "jmp *" WPP_SYM_FLUSH "@GOTPCREL(%rip)";
	LLVMValueRef f = LLVMGetNamedFunction(p->mod, name);
	if (f)
		return f;
	f = LLVMAddFunction(p->mod, name, p->void_fn);
	LLVMSetFunctionCallConv(f, LLVMPreserveMostCallConv);
	LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
	LLVMSetVisibility(f, LLVMHiddenVisibility);
	LLVMSetComdat(f, LLVMGetOrInsertComdat(p->mod, name));
	add_fn_attr(p->ctx, f, "naked");
	add_fn_attr(p->ctx, f, "noinline");
	add_fn_attr(p->ctx, f, "nounwind");
	add_fn_attr(p->ctx, f, "cold");
	LLVMBuilderRef b = LLVMCreateBuilderInContext(p->ctx);
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(p->ctx, f, "entry"));
	LLVMValueRef jmp = LLVMGetInlineAsm(p->void_fn, (char *)body, sizeof(body) - 1, (char *)"", 0,
					    1, 0, LLVMInlineAsmDialectATT, 0);
	LLVMBuildCall2(b, p->void_fn, jmp, NULL, 0, "");
	LLVMBuildUnreachable(b);
	LLVMDisposeBuilder(b);
	return f;
}

/* Reads the thread's cursor into the function's cursor slot. */
static void build_cursor_load(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef slot)
{
	LLVMBuildStore(b, LLVMBuildLoad2(b, p->ptr, p->cursor, "wpp.cur"), slot);
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
	f = LLVMAddFunction(p->mod, name, fnty);
	LLVMSetLinkage(f, LLVMInternalLinkage);
	add_fn_attr(p->ctx, f, "alwaysinline");
	add_fn_attr(p->ctx, f, "nounwind");
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
	LLVMValueRef br = LLVMBuildCondBr(b, full, cold, done);
	LLVMMetadataRef ops[3] = {
		LLVMMDStringInContext2(p->ctx, "branch_weights", 14),
		LLVMValueAsMetadata(LLVMConstInt(p->i32, COLD_WEIGHT, 0)),
		LLVMValueAsMetadata(LLVMConstInt(p->i32, HOT_WEIGHT, 0)),
	};
	LLVMSetMetadata(br, LLVMGetMDKindIDInContext(p->ctx, "prof", 4),
			LLVMMetadataAsValue(p->ctx, LLVMMDNodeInContext2(p->ctx, ops, 3)));
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
	p->cursor = tls_ptr(p, WPP_SYM_CURSOR);
	/* One TLS symbol for both (trace_abi.h): x86 addresses the limit as
	 * %fs:8(%reg) with the cursor's offset already in %reg. */
	LLVMValueRef off = LLVMConstInt(p->i64, WPP_LIMIT_OFFSET, 0);
	p->limit = LLVMConstInBoundsGEP2(LLVMInt8TypeInContext(p->ctx), p->cursor, &off, 1);
	p->flush = get_or_add_fn(m, WPP_SYM_FLUSH, p->void_fn);
	p->flush = build_flush_stub(p);
	p->flush_all = get_or_add_fn(m, WPP_SYM_FLUSH_ALL, p->void_fn);
	add_fn_attr(p->ctx, p->flush_all, "nounwind");
	p->register_tu = get_or_add_fn(m, WPP_SYM_REGISTER, p->reg_fn);
	p->rec1 = build_record_helper(p, "__wpp_rec1", p->rec1_fn, 1);
	p->rec2 = build_record_helper(p, "__wpp_rec2", p->rec2_fn, 2);
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
	LLVMValueRef args[2] = {slot, w};
	LLVMBuildCall2(b, p->rec1_fn, p->rec1, args, 2, "");
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
	return callee == p->rec1 || callee == p->rec2;
}

void wpp_emit_flush_all(struct wpp_probes *p, LLVMBuilderRef b)
{
	LLVMBuildCall2(b, p->void_fn, p->flush_all, NULL, 0, "");
}

LLVMValueRef wpp_emit_fid_word(struct wpp_probes *p, LLVMBuilderRef b, uint32_t local_index)
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
	return LLVMBuildLoad2(b, p->i64, slot, "wpp.fidw");
}

void wpp_emit_fid_slots_fill(struct wpp_probes *p, LLVMBuilderRef b)
{
	LLVMValueRef unreg = LLVMConstInt(p->i64, unregistered_word(), 0);
	LLVMValueRef base = LLVMBuildLoad2(b, p->i64, p->fid_base_slot, "base");
	LLVMValueRef isunreg = LLVMBuildICmp(b, LLVMIntEQ, base, unreg, "");
	for (uint32_t i = 0; i < p->nfid_slots; i++) {
		uint64_t off = (uint64_t)p->fid_slots[i].local_index << WPP_FID_SHIFT;
		LLVMValueRef sum = LLVMBuildAdd(b, base, LLVMConstInt(p->i64, off, 0), "");
		LLVMBuildStore(b, LLVMBuildSelect(b, isunreg, unreg, sum, ""), p->fid_slots[i].global);
	}
}

void wpp_probes_free(struct wpp_probes *p)
{
	free(p->fid_slots);
	p->fid_slots = NULL;
	p->nfid_slots = p->fid_slots_cap = 0;
}
