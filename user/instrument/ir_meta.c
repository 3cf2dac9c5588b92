/* SPDX-License-Identifier: MIT */
/* ir_meta.c — metadata entries and TU registration (see ir_meta.h). */
#include "instrument/ir_meta.h"

#include <llvm-c/DebugInfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/ir_calls.h"
#include "wpp/meta_format.h"
#include "wpp/trace_abi.h"

#define WPPCC_VERSION "0.1"

uint32_t wpp_ir_meta_file_string(struct wpp_meta_builder *mb, LLVMMetadataRef file)
{
	if (!file)
		return 0;
	unsigned dlen = 0, flen = 0;
	const char *dir = LLVMDIFileGetDirectory(file, &dlen);
	const char *name = LLVMDIFileGetFilename(file, &flen);
	if (!name || !flen)
		return 0;
	if (name[0] == '/' || !dir || !dlen)
		return wpp_mb_str(mb, name, flen);
	char *buf = malloc((size_t)dlen + flen + 2);
	if (!buf)
		return 0;
	memcpy(buf, dir, dlen);
	buf[dlen] = '/';
	memcpy(buf + dlen + 1, name, flen);
	uint32_t s = wpp_mb_str(mb, buf, (size_t)dlen + 1 + flen);
	free(buf);
	return s;
}

/* The name of the subprogram a debug scope belongs to.  LLVM-C has no
 * accessor for a scope's parent or a subprogram's name, but both are plain
 * MDNode operands: a lexical block (DILexicalBlockBase) names its parent
 * scope as operand 1, a DISubprogram its name (DW_AT_name, not the linkage
 * name) as operand 2.  The kind is checked at every step, so a node of any
 * other shape ends the walk with no name. */
#define SCOPE_MAX_OPERANDS 32
static uint32_t subprogram_name(struct wpp_meta_builder *mb, LLVMContextRef ctx,
				LLVMMetadataRef scope)
{
	for (int depth = 0; scope && depth < 256; depth++) {
		LLVMMetadataKind kind = LLVMGetMetadataKind(scope);
		LLVMValueRef node = LLVMMetadataAsValue(ctx, scope), ops[SCOPE_MAX_OPERANDS];
		unsigned n = LLVMGetMDNodeNumOperands(node), len = 0;
		int block = kind == LLVMDILexicalBlockMetadataKind ||
			    kind == LLVMDILexicalBlockFileMetadataKind;

		if ((kind != LLVMDISubprogramMetadataKind && !block) || n < 2 + !block ||
		    n > SCOPE_MAX_OPERANDS)
			return 0;
		LLVMGetMDNodeOperands(node, ops);
		if (block) {
			scope = ops[1] ? LLVMValueAsMetadata(ops[1]) : NULL;
			continue;
		}
		const char *name = ops[2] ? LLVMGetMDString(ops[2], &len) : NULL;
		return name && len ? wpp_mb_str(mb, name, len) : 0;
	}
	return 0;
}

/* For a position of inlined code (its location has an inlinedAt), the
 * function the code was inlined from: the innermost one, as DWARF's deepest
 * DW_TAG_inlined_subroutine names it.  0 for the function's own code. */
static uint32_t inlined_from_string(struct wpp_meta_builder *mb, LLVMValueRef insn,
				    LLVMMetadataRef loc)
{
	if (!LLVMDILocationGetInlinedAt(loc))
		return 0;
	return subprogram_name(mb, LLVMGetTypeContext(LLVMTypeOf(insn)),
			       LLVMDILocationGetScope(loc));
}

/* Small set of source positions already listed for the current block. */
struct pos_set {
	uint64_t *keys;
	uint32_t cap, used;
};

static int pos_set_add(struct pos_set *s, uint64_t key)
{
	if ((s->used + 1) * 2 > s->cap) {
		uint32_t ncap = s->cap ? s->cap * 2 : 64;
		uint64_t *nk = calloc(ncap, sizeof(uint64_t));
		if (!nk)
			return 0;
		for (uint32_t i = 0; i < s->cap; i++)
			if (s->keys[i]) {
				uint32_t h =
				    (uint32_t)(s->keys[i] * 0x9e3779b97f4a7c15u >> 40) & (ncap - 1);
				while (nk[h])
					h = (h + 1) & (ncap - 1);
				nk[h] = s->keys[i];
			}
		free(s->keys);
		s->keys = nk;
		s->cap = ncap;
	}
	uint32_t h = (uint32_t)(key * 0x9e3779b97f4a7c15u >> 40) & (s->cap - 1);
	for (; s->keys[h]; h = (h + 1) & (s->cap - 1))
		if (s->keys[h] == key)
			return 0;
	s->keys[h] = key;
	s->used++;
	return 1;
}

static void pos_set_clear(struct pos_set *s)
{
	if (s->keys)
		memset(s->keys, 0, s->cap * sizeof(uint64_t));
	s->used = 0;
}

static void add_block(struct wpp_meta_builder *mb, const struct wpp_ir_cfg *c,
		      const struct wpp_dag *d, uint32_t v, struct pos_set *seen)
{
	struct wpp_meta_block blk = {.first_line = mb->nlines};
	pos_set_clear(seen);
	for (LLVMValueRef i = LLVMGetFirstInstruction(c->blocks[v]); i;
	     i = LLVMGetNextInstruction(i)) {
		if (LLVMIsADbgInfoIntrinsic(i))
			continue;
		blk.ninsns++;
		LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(i);
		if (!loc)
			continue;
		unsigned line = LLVMDILocationGetLine(loc), col = LLVMDILocationGetColumn(loc);
		if (!line)
			continue;
		LLVMMetadataRef scope = LLVMDILocationGetScope(loc);
		uint32_t file = scope ? wpp_ir_meta_file_string(mb, LLVMDIScopeGetFile(scope)) : 0;
		uint32_t inlined_from = inlined_from_string(mb, i, loc);
		uint64_t key = ((uint64_t)file << 40) ^ ((uint64_t)line << 12) ^ col ^ 1 ^
			       ((uint64_t)inlined_from * 0x9e3779b97f4a7c15u);
		if (!pos_set_add(seen, key))
			continue;
		struct wpp_meta_line *ln = wpp_mb_add_line(mb);
		if (!ln)
			return;
		ln->file_str = file;
		ln->line = line;
		ln->column = col;
		ln->inlined_from_str = inlined_from;
	}
	blk.nlines = mb->nlines - blk.first_line;
	uint8_t f = c->flags[v];
	if (f & WPP_CFGB_CALL_HEAD)
		blk.flags |= WPP_BLOCK_CALL_HEAD;
	if (c->exits[v] == WPP_CFG_EXIT_RETURN)
		blk.flags |= WPP_BLOCK_RETURN;
	if (c->exits[v] == WPP_CFG_EXIT_NORETURN)
		blk.flags |= WPP_BLOCK_UNREACHABLE;
	if (d->loop_header[v])
		blk.flags |= WPP_BLOCK_LOOP_HEADER;
	struct wpp_meta_block *out = wpp_mb_add_block(mb);
	if (out)
		*out = blk;
}

int wpp_ir_meta_add_function(struct wpp_meta_builder *mb, LLVMValueRef fn,
			     const struct wpp_ir_cfg *c, const struct wpp_dag *d,
			     uint32_t local_index, uint64_t stable_id)
{
	struct wpp_meta_func f = {0};
	size_t nlen;
	const char *name = LLVMGetValueName2(fn, &nlen);
	f.stable_id = stable_id;
	f.npaths = d->npaths;
	f.local_index = local_index;
	f.name_str = wpp_mb_str(mb, name, nlen);
	LLVMMetadataRef sp = LLVMGetSubprogram(fn);
	if (sp) {
		f.file_str = wpp_ir_meta_file_string(mb, LLVMDIScopeGetFile(sp));
		f.line = LLVMDISubprogramGetLine(sp);
	}
	if (d->wide)
		f.flags |= WPP_FUNC_WIDE;
	if (d->truncated)
		f.flags |= WPP_FUNC_TRUNCATED;
	if (LLVMIsFunctionVarArg(LLVMGlobalGetValueType(fn)))
		f.flags |= WPP_FUNC_VARIADIC;
	if (c->returns_twice)
		f.flags |= WPP_FUNC_RETURNS_TWICE;
	if (c->has_indirect)
		f.flags |= WPP_FUNC_HAS_INDIRECTBR;
	f.nblocks = c->cfg.nblocks;
	f.first_block = mb->nblocks;
	f.nedges = d->nedges;
	f.first_edge = mb->nedges;

	struct pos_set seen = {0};
	for (uint32_t v = 0; v < c->cfg.nblocks; v++)
		add_block(mb, c, d, v, &seen);
	free(seen.keys);

	uint32_t *ord = wpp_dag_meta_order(d);
	if (!ord)
		return -1;
	for (uint32_t k = 0; k < d->nedges; k++) {
		const struct wpp_dag_edge *e = &d->edges[ord[k]];
		struct wpp_meta_edge *me = wpp_mb_add_edge(mb);
		if (!me)
			break;
		me->src = e->src;
		me->dst = e->dst;
		me->val = e->val;
		me->inc = e->inc;
		me->kind = e->kind;
		me->cfg_src = e->cfg_src;
		me->cfg_dst = e->cfg_dst;
	}
	free(ord);
	struct wpp_meta_func *out = wpp_mb_add_func(mb);
	if (!out)
		return -1;
	*out = f;
	return mb->failed ? -1 : 0;
}

/* Appends `elem` to an appending-linkage array global (llvm.global_ctors,
 * llvm.compiler.used), recreating it since constants are immutable. */
static void append_to_array_global(LLVMModuleRef m, const char *name, LLVMTypeRef elem_ty,
				   LLVMValueRef elem, const char *section)
{
	LLVMValueRef old = LLVMGetNamedGlobal(m, name);
	unsigned n = 0;
	LLVMValueRef init = old ? LLVMGetInitializer(old) : NULL;
	if (init)
		n = LLVMGetArrayLength2(LLVMTypeOf(init));
	LLVMValueRef *elems = malloc((n + 1) * sizeof(*elems));
	for (unsigned i = 0; i < n; i++)
		elems[i] = LLVMGetOperand(init, i);
	elems[n] = elem;
	LLVMValueRef arr = LLVMConstArray2(elem_ty, elems, n + 1);
	free(elems);
	if (old)
		LLVMDeleteGlobal(old);
	LLVMValueRef g = LLVMAddGlobal(m, LLVMTypeOf(arr), name);
	LLVMSetLinkage(g, LLVMAppendingLinkage);
	LLVMSetInitializer(g, arr);
	if (section)
		LLVMSetSection(g, section);
}

int wpp_ir_meta_emit_tu(struct wpp_probes *p, struct wpp_meta_builder *mb, uint32_t nfuncs,
			uint64_t tu_hash, uint32_t mode, const char *source, size_t source_len)
{
	unsigned maj, min, pat;
	char producer[96];
	LLVMGetVersion(&maj, &min, &pat);
	snprintf(producer, sizeof(producer), "wppcc %s (clang %u.%u.%u)", WPPCC_VERSION, maj, min,
		 pat);
	uint32_t src = wpp_mb_str(mb, source, source_len);
	uint32_t prod = wpp_mb_str(mb, producer, strlen(producer));
	size_t size;
	void *blob = wpp_mb_finish(mb, tu_hash, mode, src, prod, &size);
	if (!blob)
		return -1;
	LLVMValueRef data = LLVMConstStringInContext(p->ctx, blob, (unsigned)size, 1);
	free(blob);
	LLVMValueRef meta = LLVMAddGlobal(p->mod, LLVMTypeOf(data), "__wpp_meta");
	LLVMSetLinkage(meta, LLVMPrivateLinkage);
	LLVMSetInitializer(meta, data);
	LLVMSetGlobalConstant(meta, 1);
	LLVMSetSection(meta, WPP_META_SECTION);
	LLVMSetAlignment(meta, 8);

	/* struct wpp_tu_desc (trace_abi.h) */
	LLVMTypeRef fields[6] = {p->i32, p->i32, p->i64, p->ptr, p->ptr, p->i64};
	LLVMTypeRef desc_ty = LLVMStructTypeInContext(p->ctx, fields, 6, 0);
	LLVMValueRef vals[6] = {
	    LLVMConstInt(p->i32, WPP_ABI_VERSION, 0),
	    LLVMConstInt(p->i32, nfuncs, 0),
	    LLVMConstInt(p->i64, tu_hash, 0),
	    p->fid_base_slot,
	    meta,
	    LLVMConstInt(p->i64, size, 0),
	};
	LLVMValueRef desc = LLVMAddGlobal(p->mod, desc_ty, "__wpp_desc");
	LLVMSetLinkage(desc, LLVMPrivateLinkage);
	LLVMSetInitializer(desc, LLVMConstStructInContext(p->ctx, vals, 6, 0));
	LLVMSetAlignment(desc, 8);

	LLVMValueRef ctor = LLVMAddFunction(p->mod, "__wpp_ctor", p->void_fn);
	LLVMSetLinkage(ctor, LLVMInternalLinkage);
	LLVMBuilderRef b = LLVMCreateBuilderInContext(p->ctx);
	LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(p->ctx, ctor, "entry"));
	LLVMBuildCall2(b, p->reg_fn, p->register_tu, &desc, 1, "");
	wpp_emit_fid_slots_fill(p, b);
	LLVMBuildRetVoid(b);
	LLVMDisposeBuilder(b);

	LLVMTypeRef ctor_fields[3] = {p->i32, p->ptr, p->ptr};
	LLVMTypeRef ctor_ty = LLVMStructTypeInContext(p->ctx, ctor_fields, 3, 0);
	LLVMValueRef cvals[3] = {LLVMConstInt(p->i32, 0, 0), ctor, LLVMConstNull(p->ptr)};
	append_to_array_global(p->mod, "llvm.global_ctors", ctor_ty,
			       LLVMConstStructInContext(p->ctx, cvals, 3, 0), NULL);
	append_to_array_global(p->mod, "llvm.compiler.used", p->ptr, meta, "llvm.metadata");
	return 0;
}
