/* SPDX-License-Identifier: MIT */
/* ir_split.c — block and edge splitting on top of LLVM-C (see ir_split.h). */
#include "instrument/ir_split.h"

#include <llvm-c/DebugInfo.h>

#include <stdlib.h>
#include <string.h>

unsigned wpp_ir_count_succ_slots(LLVMBasicBlockRef bb, LLVMBasicBlockRef to)
{
	LLVMValueRef term = LLVMGetBasicBlockTerminator(bb);
	unsigned n = 0;
	if (!term)
		return 0;
	for (unsigned i = 0, ns = LLVMGetNumSuccessors(term); i < ns; i++)
		n += LLVMGetSuccessor(term, i) == to;
	return n;
}

LLVMValueRef wpp_ir_first_insertion_point(LLVMBasicBlockRef bb)
{
	LLVMValueRef i = LLVMGetFirstInstruction(bb);
	while (i && (LLVMIsAPHINode(i) || LLVMIsALandingPadInst(i)))
		i = LLVMGetNextInstruction(i);
	return i;
}

/* LLVM-C cannot change a phi's incoming block, so each phi in `succ` that
 * names `old_pred` is rebuilt: entries for old_pred are renamed to new_pred,
 * keeping as many of them as new_pred has edges into succ (phis carry one
 * entry per edge, duplicates included), and the old phi is replaced. */
static void phis_rename_pred(LLVMBasicBlockRef succ, LLVMBasicBlockRef old_pred,
			     LLVMBasicBlockRef new_pred, unsigned new_edges)
{
	LLVMBuilderRef b =
	    LLVMCreateBuilderInContext(LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(succ))));
	LLVMValueRef phi = LLVMGetFirstInstruction(succ);
	while (phi && LLVMIsAPHINode(phi)) {
		LLVMValueRef next = LLVMGetNextInstruction(phi);
		unsigned n = LLVMCountIncoming(phi), kept = 0, out = 0, touched = 0;
		LLVMValueRef *vals = malloc((n + 1) * sizeof(*vals));
		LLVMBasicBlockRef *blocks = malloc((n + 1) * sizeof(*blocks));
		for (unsigned i = 0; i < n; i++) {
			LLVMBasicBlockRef in = LLVMGetIncomingBlock(phi, i);
			if (in == old_pred) {
				touched = 1;
				if (kept++ >= new_edges)
					continue;
				in = new_pred;
			}
			vals[out] = LLVMGetIncomingValue(phi, i);
			blocks[out++] = in;
		}
		if (touched) {
			LLVMPositionBuilderBefore(b, phi);
			size_t len;
			const char *nm = LLVMGetValueName2(phi, &len);
			char *name = strndup(nm, len);
			LLVMValueRef np = LLVMBuildPhi(b, LLVMTypeOf(phi), "");
			LLVMAddIncoming(np, vals, blocks, out);
			if (LLVMCanValueUseFastMathFlags(phi))
				LLVMSetFastMathFlags(np, LLVMGetFastMathFlags(phi));
			LLVMReplaceAllUsesWith(phi, np);
			LLVMInstructionEraseFromParent(phi);
			LLVMSetValueName2(np, name, len);
			free(name);
		}
		free(vals);
		free(blocks);
		phi = next;
	}
	LLVMDisposeBuilder(b);
}

static LLVMBasicBlockRef new_block_after(LLVMBasicBlockRef after, const char *name)
{
	LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(after)));
	LLVMBasicBlockRef next = LLVMGetNextBasicBlock(after);
	if (next)
		return LLVMInsertBasicBlockInContext(ctx, next, name);
	return LLVMAppendBasicBlockInContext(ctx, LLVMGetBasicBlockParent(after), name);
}

LLVMBasicBlockRef wpp_ir_split_block_before(LLVMValueRef first, const char *name)
{
	LLVMBasicBlockRef bb = LLVMGetInstructionParent(first);
	LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(first));
	LLVMBasicBlockRef nb = new_block_after(bb, name);
	LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
	LLVMPositionBuilderAtEnd(b, nb);
	for (LLVMValueRef i = first; i;) {
		LLVMValueRef next = LLVMGetNextInstruction(i);
		LLVMInstructionRemoveFromParent(i);
		LLVMInsertIntoBuilder(b, i);
		i = next;
	}
	LLVMPositionBuilderAtEnd(b, bb);
	LLVMBuildBr(b, nb);
	LLVMDisposeBuilder(b);
	/* The terminator moved: successors now see nb as predecessor. */
	LLVMValueRef term = LLVMGetBasicBlockTerminator(nb);
	unsigned ns = term ? LLVMGetNumSuccessors(term) : 0;
	for (unsigned i = 0; i < ns; i++) {
		LLVMBasicBlockRef s = LLVMGetSuccessor(term, i);
		int seen = 0;
		for (unsigned j = 0; j < i; j++)
			seen |= LLVMGetSuccessor(term, j) == s;
		if (!seen)
			phis_rename_pred(s, bb, nb, wpp_ir_count_succ_slots(nb, s));
	}
	return nb;
}

LLVMBasicBlockRef wpp_ir_split_edge(LLVMBasicBlockRef from, LLVMBasicBlockRef to, const char *name)
{
	LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(LLVMBasicBlockAsValue(from)));
	LLVMBasicBlockRef nb = new_block_after(from, name);
	LLVMValueRef term = LLVMGetBasicBlockTerminator(from);
	for (unsigned i = 0, ns = LLVMGetNumSuccessors(term); i < ns; i++)
		if (LLVMGetSuccessor(term, i) == to)
			LLVMSetSuccessor(term, i, nb);
	LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
	LLVMPositionBuilderAtEnd(b, nb);
	LLVMValueRef br = LLVMBuildBr(b, to);
	/* keep a debug location on the new branch if the old terminator had one */
	LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(term);
	if (loc)
		LLVMInstructionSetDebugLoc(br, loc);
	LLVMDisposeBuilder(b);
	phis_rename_pred(to, from, nb, 1);
	return nb;
}
