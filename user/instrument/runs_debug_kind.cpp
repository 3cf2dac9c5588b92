// SPDX-License-Identifier: MIT
// runs_debug_kind.cpp — what the LLVM-C API of LLVM 19 cannot ask: whether
// a function's compile unit has full debug information (runs_debug.h).
// wppcc builds without -g with -gline-tables-only, whose units may hold no
// variables (the DWARF writer crashes on one).
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm-c/Core.h"

extern "C" int wpp_fn_has_full_debug(LLVMValueRef fn)
{
	const llvm::DISubprogram *sp = llvm::unwrap<llvm::Function>(fn)->getSubprogram();
	const llvm::DICompileUnit *cu = sp ? sp->getUnit() : nullptr;
	return cu && cu->getEmissionKind() == llvm::DICompileUnit::FullDebug;
}
