/* SPDX-License-Identifier: MIT */
/*
 * ir_wet_internal.h — what the files of the WET pass side share (ir_wet.h
 * is the interface): the TU's helpers and metadata tables, a function's
 * plan.
 */
#ifndef WPP_INSTRUMENT_IR_WET_INTERNAL_H
#define WPP_INSTRUMENT_IR_WET_INTERNAL_H

#include <llvm-c/Core.h>
#include <llvm-c/Target.h>

#include "instrument/ir_wet.h"
#include "wpp/meta_wet.h"

struct wpp_wet_tu {
	struct wpp_probes *p;
	uint32_t values; /* enum wpp_wet_values */
	LLVMTargetDataRef td;
	/* helpers (ir_wet_emit.c) */
	LLVMTypeRef reserve_fn, val_fn, end1_fn, end2_fn, stub_fn;
	LLVMValueRef reserve, val, end1, end2, stub;
	/* metadata rows (ir_wet_meta.c) */
	struct wpp_meta_wet_func *funcs;
	struct wpp_meta_wet_block *blocks;
	struct wpp_meta_wet_stmt *stmts;
	struct wpp_meta_wet_operand *ops;
	uint32_t nfuncs, nblocks, nstmts, nops;
	uint32_t cap_funcs, cap_blocks, cap_stmts, cap_ops;
	unsigned char *tail;
	size_t tail_size;
};

struct wet_stmt {
	LLVMValueRef inst;
	uint32_t id, block;
	uint8_t kind, records, vtype;
	uint32_t bits, access;
};

struct wpp_wet_fn {
	struct wpp_wet_tu *tu;
	LLVMValueRef fn;
	const struct wpp_ir_cfg *c;
	struct wet_stmt *stmts;
	uint32_t nstmts, cap_stmts;
	uint32_t *block_first;	/* [nblocks + 1]: a block's statements */
	uint32_t *stmt_of_insn; /* [ninsns]: statement index or UINT32_MAX */
	uint32_t ninsns, nargs, max_words;
	/* instruction -> id, open addressing on the pointer */
	LLVMValueRef *map_key;
	uint32_t *map_val;
	uint32_t map_cap;
	/* emission: the cursor and value slots, header words of a record */
	LLVMValueRef cur, vp;
	uint32_t hdr;
};

/* Instruction id of inst in f, or UINT32_MAX. */
uint32_t wpp_wet_insn_id(const struct wpp_wet_fn *f, LLVMValueRef inst);

/* Builds the helpers into the module (ir_wet_emit.c). */
void wpp_wet_build_helpers(struct wpp_wet_tu *w);

#endif
