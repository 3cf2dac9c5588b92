/* SPDX-License-Identifier: MIT */
/*
 * ir_cfg.h — from an LLVM function to the plain CFG description of dag.h.
 *
 * wpp_ir_prepare_cfg() first splits blocks so that every path-ending call
 * (ir_calls.h) is the first real instruction of its block; in the entry
 * block even a leading call is split off, so the function-entry path always
 * exists.  wpp_ir_cfg_describe() then indexes blocks in function order and
 * lists distinct successor edges with branch probabilities.
 */
#ifndef WPP_INSTRUMENT_IR_CFG_H
#define WPP_INSTRUMENT_IR_CFG_H

#include <llvm-c/Core.h>
#include <stdint.h>

#include "instrument/dag.h"

struct wpp_ir_cfg {
	struct wpp_cfg cfg; /* points into the arrays below */
	LLVMBasicBlockRef *blocks;
	uint32_t *edge_src, *edge_dst;
	double *edge_prob; /* per edge, given its source */
	uint8_t *flags, *exits;
	/* pointer -> index map (open addressing) */
	LLVMBasicBlockRef *map_key;
	uint32_t *map_val;
	uint32_t map_cap;
	int has_indirect;
	int returns_twice;
};

/* Returns 0, or -1 if the function uses constructs we cannot instrument
 * (funclet-based EH), in which case it is left untouched. */
int wpp_ir_function_supported(LLVMValueRef fn);
void wpp_ir_prepare_cfg(LLVMValueRef fn);
int wpp_ir_cfg_describe(LLVMValueRef fn, struct wpp_ir_cfg *out);
void wpp_ir_cfg_free(struct wpp_ir_cfg *c);
uint32_t wpp_ir_block_index(const struct wpp_ir_cfg *c, LLVMBasicBlockRef bb);

/* Debug intrinsics are not code; they never count as a block's content. */
int wpp_ir_is_debug_intrinsic(LLVMValueRef inst);

#endif
