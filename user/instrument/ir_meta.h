/* SPDX-License-Identifier: MIT */
/*
 * ir_meta.h — one function's metadata entry (meta_format.h) from the
 * prepared CFG, its numbered DAG and the debug locations of its blocks;
 * and the per-TU emission: blob global in section "wpp_meta", the TU
 * descriptor and the registering constructor.
 */
#ifndef WPP_INSTRUMENT_IR_META_H
#define WPP_INSTRUMENT_IR_META_H

#include <llvm-c/Core.h>
#include <stdint.h>

#include "instrument/dag.h"
#include "instrument/ir_cfg.h"
#include "instrument/ir_probes.h"
#include "instrument/meta_blob.h"

int wpp_ir_meta_add_function(struct wpp_meta_builder *mb, LLVMValueRef fn,
			     const struct wpp_ir_cfg *c, const struct wpp_dag *d,
			     uint32_t local_index, uint64_t stable_id);

/* The string of a DIFile: "dir/file" unless the name is already absolute. */
uint32_t wpp_ir_meta_file_string(struct wpp_meta_builder *mb, LLVMMetadataRef file);

/* Emits blob, descriptor and constructor.  Returns 0 or -1. */
int wpp_ir_meta_emit_tu(struct wpp_probes *p, struct wpp_meta_builder *mb, uint32_t nfuncs,
			uint64_t tu_hash, uint32_t mode, const char *source, size_t source_len);

#endif
