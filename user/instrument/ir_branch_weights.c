/* SPDX-License-Identifier: MIT */
/* ir_branch_weights.c — measured !prof branch_weights (see ir_branch_weights.h). */
#include "instrument/ir_branch_weights.h"

#include <stdlib.h>

/* Weights must fit in 32 bits: counts are divided by a common scale. */
static uint64_t weight_scale(uint64_t max)
{
	return max < UINT32_MAX ? 1 : max / (UINT32_MAX - 1) + 1;
}

static void set_weights(LLVMValueRef term, const uint64_t *slot_count, unsigned ns)
{
	LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(term));
	LLVMTypeRef i32 = LLVMInt32TypeInContext(ctx);
	LLVMMetadataRef *ops = malloc(((size_t)ns + 1) * sizeof(*ops));
	uint64_t max = 0;
	if (!ops)
		return; /* a hint only: the branch keeps LLVM's guess */
	for (unsigned s = 0; s < ns; s++)
		max = slot_count[s] > max ? slot_count[s] : max;
	uint64_t scale = weight_scale(max);
	ops[0] = LLVMMDStringInContext2(ctx, "branch_weights", 14);
	for (unsigned s = 0; s < ns; s++)
		ops[1 + s] = LLVMValueAsMetadata(LLVMConstInt(i32, slot_count[s] / scale + 1, 0));
	LLVMSetMetadata(term, LLVMGetMDKindIDInContext(ctx, "prof", 4),
			LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, ops, ns + 1)));
	free(ops);
}

uint32_t wpp_ir_measured_branch_weights(const struct wpp_ir_cfg *c, const struct wpp_dag *d,
					const uint64_t *count)
{
	uint32_t n = c->cfg.nblocks, ne = c->cfg.nedges, weighted = 0;
	uint32_t first = 0; /* wpp_ir_cfg_describe lists each block's edges together */
	/* per target block, while its source is looked at: the edge to it and
	 * how many successor slots name it */
	uint32_t *edge_to = malloc(((size_t)n + 1) * sizeof(uint32_t));
	uint32_t *nslots = calloc((size_t)n + 1, sizeof(uint32_t));
	uint64_t *slot_count = NULL;
	unsigned cap = 0;
	if (!edge_to || !nslots)
		goto out;
	for (uint32_t u = 0; u < n; u++) {
		uint32_t end = first;
		while (end < ne && c->edge_src[end] == u)
			end++;
		LLVMValueRef t = LLVMGetBasicBlockTerminator(c->blocks[u]);
		LLVMOpcode op = LLVMGetInstructionOpcode(t);
		unsigned ns = LLVMGetNumSuccessors(t);
		uint64_t total = 0;
		for (uint32_t e = first; e < end; e++)
			total += count[d->cfg_edge_dag[e]];
		if ((op == LLVMBr || op == LLVMSwitch) && end - first >= 2 && total > 0) {
			if (ns > cap) {
				free(slot_count);
				cap = ns;
				if (!(slot_count = malloc(cap * sizeof(*slot_count))))
					goto out;
			}
			for (uint32_t e = first; e < end; e++)
				edge_to[c->edge_dst[e]] = e, nslots[c->edge_dst[e]] = 0;
			for (unsigned s = 0; s < ns; s++)
				nslots[wpp_ir_block_index(c, LLVMGetSuccessor(t, s))]++;
			for (unsigned s = 0; s < ns; s++) {
				uint32_t v = wpp_ir_block_index(c, LLVMGetSuccessor(t, s));
				slot_count[s] = count[d->cfg_edge_dag[edge_to[v]]] / nslots[v];
			}
			set_weights(t, slot_count, ns);
			weighted++;
		}
		first = end;
	}
out:
	free(edge_to), free(nslots), free(slot_count);
	return weighted;
}
