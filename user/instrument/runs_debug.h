/* SPDX-License-Identifier: MIT */
/*
 * runs_debug.h — tell the debugger (and the sample attribution) where a
 * function's run count lives (docs/counters.md, "The run's end").
 *
 * A function that counts runs (runs.h) keeps `count`, the repeats of its
 * last run-counting word not yet written, in a promoted slot: a register
 * in the loop.  When the function has a DISubprogram (built with -g), the
 * slot gets an artificial local variable WPP_RUN_COUNT_VAR (wpp_file.h) of type
 * unsigned 64-bit, declared on the slot: promotion turns the declare into
 * debug values at every store and phi, and the backend emits a DWARF
 * location (list) saying which register holds the count where.  A sampler
 * that saved the interrupted registers can then read the count and tell
 * which repetition of a run a sample belongs to.
 *
 * Debug information only: no instruction is added or changed (debug
 * records never change code generation; checked on the test programs by
 * comparing the disassembly with and without the variable).
 */
#ifndef WPP_INSTRUMENT_RUNS_DEBUG_H
#define WPP_INSTRUMENT_RUNS_DEBUG_H

#include <llvm-c/Core.h>

#include "wpp/wpp_file.h" /* WPP_RUN_COUNT_VAR */

/* Declares WPP_RUN_COUNT_VAR on count_slot (an alloca in fn's entry block)
 * right after it.  Nothing when fn has no DISubprogram or its unit only line tables, or when the
 * environment sets WPP_RUN_COUNT_DEBUG=0 (the codegen comparison). */
void wpp_runs_debug_count(LLVMModuleRef m, LLVMValueRef fn, LLVMValueRef count_slot);

/* Whether fn's compile unit has full debug information (not line tables
 * only): runs_debug_kind.cpp, the C API has no accessor for it. */
int wpp_fn_has_full_debug(LLVMValueRef fn);

#endif
