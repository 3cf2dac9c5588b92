/* SPDX-License-Identifier: MIT */
#include "instrument/ir_attrs.h"

#include <string.h>

/* Function attributes that promise something the instrumentation breaks:
 * "memory" (LLVM 16+ memory effects), "speculatable" (a speculated call
 * would record a path that did not run), "nosync" and "nofree" (a flush
 * synchronises with the collector and may release buffers), and the legacy
 * spellings of memory effects. */
static const char *const broken_claims[] = {"memory",	"speculatable", "nosync",    "nofree",
					    "readnone", "readonly",	"writeonly", "argmemonly"};
#define NCLAIMS (sizeof(broken_claims) / sizeof(broken_claims[0]))

static void kinds_init(unsigned kinds[NCLAIMS])
{
	for (size_t i = 0; i < NCLAIMS; i++)
		kinds[i] =
		    LLVMGetEnumAttributeKindForName(broken_claims[i], strlen(broken_claims[i]));
}

static int is_intrinsic(LLVMValueRef fn)
{
	return fn && LLVMGetIntrinsicID(fn) != 0;
}

void wpp_ir_drop_memory_claims(LLVMModuleRef m)
{
	unsigned kinds[NCLAIMS];

	kinds_init(kinds);
	for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
		if (is_intrinsic(f))
			continue;
		for (size_t k = 0; k < NCLAIMS; k++)
			if (kinds[k])
				LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex,
							       kinds[k]);
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b;
		     b = LLVMGetNextBasicBlock(b)) {
			for (LLVMValueRef i = LLVMGetFirstInstruction(b); i;
			     i = LLVMGetNextInstruction(i)) {
				if (!LLVMIsACallInst(i) && !LLVMIsAInvokeInst(i) &&
				    !LLVMIsACallBrInst(i))
					continue;
				LLVMValueRef callee = LLVMGetCalledValue(i);
				if (LLVMIsAFunction(callee) && is_intrinsic(callee))
					continue;
				if (LLVMIsAInlineAsm(callee))
					continue;
				for (size_t k = 0; k < NCLAIMS; k++)
					if (kinds[k])
						LLVMRemoveCallSiteEnumAttribute(
						    i, LLVMAttributeFunctionIndex, kinds[k]);
			}
		}
	}
}
