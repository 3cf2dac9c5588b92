/* SPDX-License-Identifier: MIT */
/*
 * ir_wet_meta.c — a WET TU's statement tables (meta_wet.h): rows per
 * function as the blob gets its entries, laid out as the blob's tail at
 * the end.
 */
#include <llvm-c/DebugInfo.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/ir_meta.h"
#include "instrument/ir_wet_internal.h"
#include "instrument/meta_blob.h"

static uint32_t arg_index(LLVMValueRef fn, LLVMValueRef arg)
{
	uint32_t n = LLVMCountParams(fn);
	for (uint32_t k = 0; k < n; k++)
		if (LLVMGetParam(fn, k) == arg)
			return k;
	return UINT32_MAX;
}

static struct wpp_meta_wet_operand operand(const struct wpp_wet_fn *f, struct wpp_meta_builder *mb,
					   LLVMValueRef v)
{
	struct wpp_meta_wet_operand o = {.kind = WPP_WET_OP_OTHER, .block = WPP_WET_NO_BLOCK};
	uint32_t id;

	if (!v)
		return o;
	if (LLVMValueIsBasicBlock(v)) {
		id = wpp_ir_block_index(f->c, LLVMValueAsBasicBlock(v));
		if (id != WPP_NONE)
			o.kind = WPP_WET_OP_BLOCK, o.id = id;
	} else if (LLVMIsAInstruction(v)) {
		if ((id = wpp_wet_insn_id(f, v)) != UINT32_MAX)
			o.kind = WPP_WET_OP_INSN, o.id = id;
	} else if (LLVMIsAArgument(v)) {
		if ((id = arg_index(f->fn, v)) != UINT32_MAX)
			o.kind = WPP_WET_OP_ARG, o.id = id;
	} else if (LLVMIsAGlobalValue(v)) {
		size_t len;
		const char *name = LLVMGetValueName2(v, &len);
		o.kind = WPP_WET_OP_GLOBAL;
		o.id = wpp_mb_str(mb, name, len);
	} else if (LLVMIsAConstantInt(v)) {
		o.kind = WPP_WET_OP_CONST;
		o.id = LLVMGetIntTypeWidth(LLVMTypeOf(v)) <= 64
			   ? (uint32_t)LLVMConstIntGetZExtValue(v)
			   : 0;
	} else if (LLVMIsAConstant(v)) {
		o.kind = WPP_WET_OP_CONST;
	}
	return o;
}

static int add_op(struct wpp_wet_tu *w, struct wpp_meta_wet_operand o)
{
	if (wpp_mb_grow((void **)&w->ops, &w->cap_ops, w->nops + 1, sizeof(*w->ops)))
		return -1;
	w->ops[w->nops++] = o;
	return 0;
}

static int add_operands(struct wpp_wet_tu *w, const struct wpp_wet_fn *f,
			struct wpp_meta_builder *mb, LLVMValueRef i, struct wpp_meta_wet_stmt *row)
{
	row->first_op = w->nops;
	if (LLVMIsAPHINode(i)) {
		unsigned n = LLVMCountIncoming(i);
		for (unsigned k = 0; k < n; k++) {
			struct wpp_meta_wet_operand o = operand(f, mb, LLVMGetIncomingValue(i, k));
			o.block = wpp_ir_block_index(f->c, LLVMGetIncomingBlock(i, k));
			if (o.block == WPP_NONE)
				o.block = WPP_WET_NO_BLOCK;
			if (add_op(w, o))
				return -1;
		}
	} else {
		int n = LLVMGetNumOperands(i);
		for (int k = 0; k < n; k++)
			if (add_op(w, operand(f, mb, LLVMGetOperand(i, (unsigned)k))))
				return -1;
	}
	row->nops = w->nops - row->first_op;
	return 0;
}

static void position(struct wpp_meta_builder *mb, LLVMValueRef i, struct wpp_meta_wet_stmt *row)
{
	LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(i);
	if (!loc)
		return;
	LLVMMetadataRef scope = LLVMDILocationGetScope(loc);
	row->line = LLVMDILocationGetLine(loc);
	row->column = LLVMDILocationGetColumn(loc);
	row->file_str = scope ? wpp_ir_meta_file_string(mb, LLVMDIScopeGetFile(scope)) : 0;
}

int wpp_wet_meta_add(struct wpp_wet_tu *w, struct wpp_meta_builder *mb, struct wpp_wet_fn *f)
{
	uint32_t nblocks = f->c->cfg.nblocks;

	if (wpp_mb_grow((void **)&w->funcs, &w->cap_funcs, w->nfuncs + 1, sizeof(*w->funcs)) ||
	    wpp_mb_grow((void **)&w->blocks, &w->cap_blocks, w->nblocks + nblocks,
			sizeof(*w->blocks)) ||
	    wpp_mb_grow((void **)&w->stmts, &w->cap_stmts, w->nstmts + f->nstmts,
			sizeof(*w->stmts)))
		goto fail;
	w->funcs[w->nfuncs++] = (struct wpp_meta_wet_func){
	    .ninsns = f->ninsns, .nargs = f->nargs, .max_words = f->max_words};
	for (uint32_t v = 0; v < nblocks; v++)
		w->blocks[w->nblocks++] = (struct wpp_meta_wet_block){
		    w->nstmts + f->block_first[v], f->block_first[v + 1] - f->block_first[v]};
	for (uint32_t k = 0; k < f->nstmts; k++) {
		const struct wet_stmt *s = &f->stmts[k];
		struct wpp_meta_wet_stmt row = {.insn = s->id,
						.kind = s->kind,
						.records = s->records,
						.vtype = s->vtype,
						.bits = s->bits,
						.access = s->access};
		LLVMValueRef callee = LLVMIsACallInst(s->inst) || LLVMIsAInvokeInst(s->inst)
					  ? LLVMGetCalledValue(s->inst)
					  : NULL;
		position(mb, s->inst, &row);
		if (callee && LLVMIsAFunction(callee)) {
			size_t len;
			const char *name = LLVMGetValueName2(callee, &len);
			row.callee_str = wpp_mb_str(mb, name, len);
		}
		if (add_operands(w, f, mb, s->inst, &row))
			goto fail;
		w->stmts[w->nstmts++] = row;
	}
	return mb->failed ? -1 : 0;
fail:
	mb->failed = 1;
	return -1;
}

static size_t align8(size_t x)
{
	return (x + 7) & ~(size_t)7;
}

int wpp_wet_meta_finish(struct wpp_wet_tu *w, struct wpp_meta_builder *mb)
{
	struct wpp_meta_wet_header h = {.version = WPP_META_WET_VERSION,
					.header_size = sizeof(h),
					.values = w->values,
					.nfuncs = w->nfuncs,
					.nblocks = w->nblocks,
					.nstmts = w->nstmts,
					.nops = w->nops};
	size_t off = align8(sizeof(h));

	memcpy(h.magic, WPP_META_WET_MAGIC, sizeof(h.magic));
	h.funcs_off = off;
	off = align8(off + (size_t)w->nfuncs * sizeof(*w->funcs));
	h.blocks_off = off;
	off = align8(off + (size_t)w->nblocks * sizeof(*w->blocks));
	h.stmts_off = off;
	off = align8(off + (size_t)w->nstmts * sizeof(*w->stmts));
	h.ops_off = off;
	off += (size_t)w->nops * sizeof(*w->ops);
	free(w->tail);
	w->tail = calloc(1, off);
	if (!w->tail) {
		mb->failed = 1;
		return -1;
	}
	memcpy(w->tail, &h, sizeof(h));
	if (w->nfuncs)
		memcpy(w->tail + h.funcs_off, w->funcs, w->nfuncs * sizeof(*w->funcs));
	if (w->nblocks)
		memcpy(w->tail + h.blocks_off, w->blocks, w->nblocks * sizeof(*w->blocks));
	if (w->nstmts)
		memcpy(w->tail + h.stmts_off, w->stmts, w->nstmts * sizeof(*w->stmts));
	if (w->nops)
		memcpy(w->tail + h.ops_off, w->ops, w->nops * sizeof(*w->ops));
	w->tail_size = off;
	mb->tail = w->tail;
	mb->tail_size = off;
	return 0;
}
