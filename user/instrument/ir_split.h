/* SPDX-License-Identifier: MIT */
/*
 * ir_split.h — CFG surgery the LLVM-C API does not offer: splitting a block
 * before an instruction and splitting an edge, keeping phi nodes valid.
 */
#ifndef WPP_INSTRUMENT_IR_SPLIT_H
#define WPP_INSTRUMENT_IR_SPLIT_H

#include <llvm-c/Core.h>

/* Moves `first` and everything after it in its block into a new block
 * placed right after it; the old block ends with `br new`.  Phis in the
 * successors are updated.  Returns the new block. */
LLVMBasicBlockRef wpp_ir_split_block_before(LLVMValueRef first, const char *name);

/* Redirects every successor slot of `from`'s terminator that names `to` to a
 * new block (placed after `from`) that branches to `to`; phis in `to` get one
 * entry for the new block.  Returns the new block.  Not valid for
 * indirectbr/callbr sources or landing-pad targets (callers avoid them). */
LLVMBasicBlockRef wpp_ir_split_edge(LLVMBasicBlockRef from, LLVMBasicBlockRef to, const char *name);

/* First instruction of a block that is not a phi or landingpad: where code
 * placed "at the start of the block" goes. */
LLVMValueRef wpp_ir_first_insertion_point(LLVMBasicBlockRef bb);

/* Number of successor slots of bb's terminator that name `to`. */
unsigned wpp_ir_count_succ_slots(LLVMBasicBlockRef bb, LLVMBasicBlockRef to);

#endif
