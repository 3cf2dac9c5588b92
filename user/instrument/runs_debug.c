/* SPDX-License-Identifier: MIT */
/* runs_debug.c — the run count as a debug variable (runs_debug.h). */
#include "instrument/runs_debug.h"

#include <llvm-c/DebugInfo.h>
#include <stdlib.h>
#include <string.h>

#define DW_ATE_UNSIGNED 0x08

void wpp_runs_debug_count(LLVMModuleRef m, LLVMValueRef fn, LLVMValueRef count_slot)
{
	LLVMMetadataRef sp = LLVMGetSubprogram(fn);
	const char *env = getenv("WPP_RUN_COUNT_DEBUG");
	/* Only a unit with full debug information may hold variables (wppcc
	 * compiles without -g with -gline-tables-only). */
	if (!sp || !wpp_fn_has_full_debug(fn) || (env && !strcmp(env, "0")))
		return;
	LLVMContextRef ctx = LLVMGetModuleContext(m);
	LLVMDIBuilderRef dib = LLVMCreateDIBuilderDisallowUnresolved(m);
	LLVMMetadataRef ty =
	    LLVMDIBuilderCreateBasicType(dib, "unsigned long", 13, 64, DW_ATE_UNSIGNED, 0);
	/* Not AlwaysPreserve: that would make finalizing rewrite the
	 * subprogram's retained variables; a count optimized away entirely
	 * simply has no location (attribution then keeps its older rule). */
	LLVMMetadataRef var = LLVMDIBuilderCreateAutoVariable(
	    dib, sp, WPP_RUN_COUNT_VAR, strlen(WPP_RUN_COUNT_VAR), LLVMDIScopeGetFile(sp), 0, ty, 0,
	    LLVMDIFlagArtificial, 0);
	LLVMMetadataRef loc = LLVMDIBuilderCreateDebugLocation(ctx, 0, 0, sp, NULL);
	LLVMMetadataRef expr = LLVMDIBuilderCreateExpression(dib, NULL, 0);
	LLVMValueRef after = LLVMGetNextInstruction(count_slot);
	if (LLVMIsNewDbgInfoFormat(m)) {
		if (after)
			LLVMDIBuilderInsertDeclareRecordBefore(dib, count_slot, var, expr, loc,
							       after);
		else
			LLVMDIBuilderInsertDeclareRecordAtEnd(dib, count_slot, var, expr, loc,
							      LLVMGetInstructionParent(count_slot));
	} else {
		/* The module is in the intrinsic format here (clang 19 runs the
		 * pass plugins before converting); the C API of LLVM 19 builds
		 * only records, so the llvm.dbg.declare call is built by hand.
		 * (Switching the module's format would delete dbg intrinsics the
		 * pass holds on to.) */
		unsigned id = LLVMLookupIntrinsicID("llvm.dbg.declare", 16);
		LLVMValueRef decl = LLVMGetIntrinsicDeclaration(m, id, NULL, 0);
		LLVMTypeRef fnty = LLVMIntrinsicGetType(ctx, id, NULL, 0);
		LLVMValueRef args[3] = {LLVMMetadataAsValue(ctx, LLVMValueAsMetadata(count_slot)),
					LLVMMetadataAsValue(ctx, var),
					LLVMMetadataAsValue(ctx, expr)};
		LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
		if (after)
			LLVMPositionBuilderBefore(b, after);
		else
			LLVMPositionBuilderAtEnd(b, LLVMGetInstructionParent(count_slot));
		LLVMValueRef call = LLVMBuildCall2(b, fnty, decl, args, 3, "");
		LLVMInstructionSetDebugLoc(call, loc);
		LLVMDisposeBuilder(b);
	}
	LLVMDIBuilderFinalize(dib);
	LLVMDisposeDIBuilder(dib);
}
