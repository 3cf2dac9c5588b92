/* SPDX-License-Identifier: MIT */
/*
 * ir_calls.h — which calls matter to path tracing.
 *
 * A path ends before every call or invoke that is neither an LLVM intrinsic
 * nor inline asm: the callee may be instrumented, or may call back into
 * instrumented code (qsort, signal trampolines), and the caller's path so far
 * must be in the trace before anything the callee records.
 */
#ifndef WPP_INSTRUMENT_IR_CALLS_H
#define WPP_INSTRUMENT_IR_CALLS_H

#include <llvm-c/Core.h>

/* call/invoke to something that may run instrumented code. */
int wpp_ir_is_path_ending_call(LLVMValueRef inst);

/* Calls after which the thread's cursor may have moved, so a function's
 * cursor register must be reloaded: path-ending calls, and the memory
 * intrinsics that are lowered to calls of memcpy/memmove/memset (a program
 * may define those itself).  Other intrinsics and inline asm are assumed
 * not to run instrumented code. */
int wpp_ir_may_move_cursor(LLVMValueRef inst);

/* Calls that replace or terminate the process without running atexit
 * handlers (exec*, _exit, abort, ...): buffered words must be flushed first. */
int wpp_ir_is_process_ending_call(LLVMValueRef inst);

/* The directly called function, or NULL (indirect call / asm). */
LLVMValueRef wpp_ir_direct_callee(LLVMValueRef inst);

/* Call to a function with the returns_twice attribute (setjmp and friends). */
int wpp_ir_is_returns_twice_call(LLVMValueRef inst);

#endif
