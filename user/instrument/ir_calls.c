/* SPDX-License-Identifier: MIT */
/* ir_calls.c — call classification (see ir_calls.h). */
#include "instrument/ir_calls.h"

#include <string.h>

LLVMValueRef wpp_ir_direct_callee(LLVMValueRef inst)
{
	LLVMOpcode op = LLVMGetInstructionOpcode(inst);
	if (op != LLVMCall && op != LLVMInvoke && op != LLVMCallBr)
		return NULL;
	LLVMValueRef callee = LLVMGetCalledValue(inst);
	if (!callee)
		return NULL;
	return LLVMIsAFunction(callee);
}

int wpp_ir_is_path_ending_call(LLVMValueRef inst)
{
	LLVMOpcode op = LLVMGetInstructionOpcode(inst);
	if (op != LLVMCall && op != LLVMInvoke)
		return 0;
	LLVMValueRef callee = LLVMGetCalledValue(inst);
	if (callee && LLVMIsAInlineAsm(callee))
		return 0;
	LLVMValueRef fn = wpp_ir_direct_callee(inst);
	if (fn && LLVMGetIntrinsicID(fn) != 0)
		return 0;
	return 1;
}

int wpp_ir_may_move_cursor(LLVMValueRef inst)
{
	if (wpp_ir_is_path_ending_call(inst))
		return 1;
	/* memcpy & co. become library calls, and a program may define (and
	 * instrument) its own memcpy. */
	return LLVMGetInstructionOpcode(inst) == LLVMCall && LLVMIsAMemIntrinsic(inst) != NULL;
}

int wpp_ir_is_process_ending_call(LLVMValueRef inst)
{
	static const char *const names[] = {
	    "execve",  "execv",	   "execvp", "execvpe", "execl", "execle",     "execlp",
	    "fexecve", "execveat", "_exit",  "_Exit",	"abort", "quick_exit",
	};
	LLVMValueRef fn = wpp_ir_direct_callee(inst);
	if (!fn)
		return 0;
	size_t len;
	const char *name = LLVMGetValueName2(fn, &len);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
			return 1;
	return 0;
}

int wpp_ir_is_returns_twice_call(LLVMValueRef inst)
{
	LLVMOpcode op = LLVMGetInstructionOpcode(inst);
	if (op != LLVMCall && op != LLVMInvoke)
		return 0;
	unsigned kind = LLVMGetEnumAttributeKindForName("returns_twice", 13);
	if (LLVMGetCallSiteEnumAttribute(inst, LLVMAttributeFunctionIndex, kind))
		return 1;
	LLVMValueRef fn = wpp_ir_direct_callee(inst);
	return fn && LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, kind) != NULL;
}
