/* SPDX-License-Identifier: MIT */
/* ir_dual_tags.c — the C pass's half of dual builds (see ir_dual.h). */
#include "instrument/ir_dual.h"

#include <stdlib.h>
#include <string.h>

int wpp_dual_from_env(void)
{
	const char *v = getenv("WPP_DUAL");
	return v && strcmp(v, "1") == 0;
}

void wpp_dual_tag(LLVMValueRef v, const char *kind, int arg)
{
	LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(v));
	LLVMMetadataRef op =
	    LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), (unsigned)arg, 0));
	LLVMMetadataRef node = LLVMMDNodeInContext2(ctx, &op, 1);
	unsigned k = LLVMGetMDKindIDInContext(ctx, kind, (unsigned)strlen(kind));
	if (LLVMIsAFunction(v))
		LLVMGlobalSetMetadata(v, k, node);
	else
		LLVMSetMetadata(v, k, LLVMMetadataAsValue(ctx, node));
}
