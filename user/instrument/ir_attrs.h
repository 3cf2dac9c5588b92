/* SPDX-License-Identifier: MIT */
/*
 * ir_attrs.h — keep the optimizer honest about instrumented code.
 *
 * Earlier passes infer (or the source asserts, with __attribute__((const))
 * and pure) that a function does not touch memory, cannot be speculated
 * into trouble, and so on.  Once instrumented, every function writes the
 * thread's trace buffer and may call the runtime's flush; a call that still
 * claims memory(none) may be deleted when its result is unused, merged with
 * an identical call, or moved across the caller's own records, and the trace
 * would no longer be what ran.  So the claims go, on definitions, on
 * declarations (the callee may be instrumented in another translation unit)
 * and on call sites, for everything but LLVM intrinsics.
 */
#ifndef WPP_IR_ATTRS_H
#define WPP_IR_ATTRS_H

#include <llvm-c/Core.h>

void wpp_ir_drop_memory_claims(LLVMModuleRef m);

#endif
