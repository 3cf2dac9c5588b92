/* SPDX-License-Identifier: MIT */
/* ir_cfg.c — CFG preparation and description (see ir_cfg.h). */
#include "instrument/ir_cfg.h"

#include <stdlib.h>
#include <string.h>

#include "instrument/ir_calls.h"
#include "instrument/ir_split.h"

int wpp_ir_is_debug_intrinsic(LLVMValueRef inst)
{
	return LLVMIsADbgInfoIntrinsic(inst) != NULL;
}

int wpp_ir_function_supported(LLVMValueRef fn)
{
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i)) {
			switch (LLVMGetInstructionOpcode(i)) {
			case LLVMCatchSwitch:
			case LLVMCatchPad:
			case LLVMCleanupPad:
			case LLVMCatchRet:
			case LLVMCleanupRet:
				return -1; /* funclet EH (Windows ABI): not on Linux */
			default:
				break;
			}
		}
	return 0;
}

void wpp_ir_prepare_cfg(LLVMValueRef fn)
{
	LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
	     bb = LLVMGetNextBasicBlock(bb)) {
		/* In the entry block a leading call is split off too: the path
		 * starting at function entry must exist and be recorded. */
		int seen_code = bb == entry;
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i)) {
			if (LLVMIsAPHINode(i) || LLVMIsALandingPadInst(i) ||
			    wpp_ir_is_debug_intrinsic(i))
				continue;
			if (wpp_ir_is_path_ending_call(i) && seen_code) {
				/* The rest of bb moves to the new block, which the
				 * outer loop visits next; stop scanning here. */
				wpp_ir_split_block_before(i, "wpp.call");
				break;
			}
			seen_code = 1;
		}
	}
}

static uint32_t ptr_hash(const void *p, uint32_t cap)
{
	uint64_t x = (uint64_t)(uintptr_t)p;
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdu;
	x ^= x >> 33;
	return (uint32_t)x & (cap - 1);
}

uint32_t wpp_ir_block_index(const struct wpp_ir_cfg *c, LLVMBasicBlockRef bb)
{
	for (uint32_t h = ptr_hash(bb, c->map_cap);; h = (h + 1) & (c->map_cap - 1)) {
		if (c->map_key[h] == bb)
			return c->map_val[h];
		if (!c->map_key[h])
			return WPP_NONE;
	}
}

static void map_put(struct wpp_ir_cfg *c, LLVMBasicBlockRef bb, uint32_t idx)
{
	uint32_t h = ptr_hash(bb, c->map_cap);
	while (c->map_key[h])
		h = (h + 1) & (c->map_cap - 1);
	c->map_key[h] = bb;
	c->map_val[h] = idx;
}

/* Branch weights of a terminator, one per successor slot, or 0. */
static int branch_weights(LLVMValueRef term, unsigned ns, double *w)
{
	LLVMContextRef ctx = LLVMGetTypeContext(LLVMTypeOf(term));
	unsigned kind = LLVMGetMDKindIDInContext(ctx, "prof", 4);
	LLVMValueRef md = LLVMGetMetadata(term, kind);
	if (!md)
		return 0;
	unsigned nops = LLVMGetMDNodeNumOperands(md);
	if (nops < 2 || nops > 2 + ns + 1)
		return 0;
	LLVMValueRef *ops = malloc(nops * sizeof(*ops));
	LLVMGetMDNodeOperands(md, ops);
	unsigned len = 0, k = 0;
	const char *tag = ops[0] ? LLVMGetMDString(ops[0], &len) : NULL;
	int ok = tag && len == 14 && memcmp(tag, "branch_weights", 14) == 0;
	for (unsigned i = 1; ok && i < nops; i++) {
		if (ops[i] && LLVMIsAMDString(ops[i]))
			continue; /* optional "expected" marker */
		if (!ops[i] || !LLVMIsAConstantInt(ops[i]) || k >= ns) {
			ok = 0;
			break;
		}
		w[k++] = (double)LLVMConstIntGetZExtValue(ops[i]);
	}
	free(ops);
	return ok && k == ns;
}

static LLVMValueRef first_code(LLVMBasicBlockRef bb)
{
	LLVMValueRef i = LLVMGetFirstInstruction(bb);
	while (i && (LLVMIsAPHINode(i) || LLVMIsALandingPadInst(i) || wpp_ir_is_debug_intrinsic(i)))
		i = LLVMGetNextInstruction(i);
	return i;
}

int wpp_ir_cfg_describe(LLVMValueRef fn, struct wpp_ir_cfg *c)
{
	memset(c, 0, sizeof(*c));
	uint32_t n = LLVMCountBasicBlocks(fn), ecap = 0;
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
	     bb = LLVMGetNextBasicBlock(bb)) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
		if (!t)
			return -1; /* malformed IR */
		ecap += LLVMGetNumSuccessors(t);
	}
	c->map_cap = 16;
	while (c->map_cap < 2 * n + 2)
		c->map_cap *= 2;
	c->blocks = calloc(n + 1, sizeof(*c->blocks));
	c->edge_src = malloc((ecap + 1) * sizeof(uint32_t));
	c->edge_dst = malloc((ecap + 1) * sizeof(uint32_t));
	c->edge_prob = malloc((ecap + 1) * sizeof(double));
	c->flags = calloc(n + 1, 1);
	c->exits = calloc(n + 1, 1);
	c->map_key = calloc(c->map_cap, sizeof(*c->map_key));
	c->map_val = calloc(c->map_cap, sizeof(uint32_t));
	if (!c->blocks || !c->edge_src || !c->edge_dst || !c->edge_prob || !c->flags || !c->exits ||
	    !c->map_key || !c->map_val) {
		wpp_ir_cfg_free(c);
		return -1;
	}
	uint32_t idx = 0;
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
	     bb = LLVMGetNextBasicBlock(bb)) {
		c->blocks[idx] = bb;
		map_put(c, bb, idx++);
	}
	uint32_t ne = 0;
	double *slotw = malloc((ecap + 1) * sizeof(double));
	if (!slotw) {
		wpp_ir_cfg_free(c);
		return -1;
	}
	for (uint32_t u = 0; u < n; u++) {
		LLVMBasicBlockRef bb = c->blocks[u];
		LLVMValueRef t = LLVMGetBasicBlockTerminator(bb);
		LLVMOpcode op = LLVMGetInstructionOpcode(t);
		LLVMValueRef fc = first_code(bb);
		if (fc && wpp_ir_is_path_ending_call(fc))
			c->flags[u] |= WPP_CFGB_CALL_HEAD;
		LLVMValueRef fi = LLVMGetFirstInstruction(bb);
		while (fi && LLVMIsAPHINode(fi))
			fi = LLVMGetNextInstruction(fi);
		if (fi && LLVMIsALandingPadInst(fi))
			c->flags[u] |= WPP_CFGB_PINNED;
		if (op == LLVMIndirectBr || op == LLVMCallBr) {
			c->flags[u] |= WPP_CFGB_INDIRECT_SRC;
			c->has_indirect = 1;
		}
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
			if (wpp_ir_is_returns_twice_call(i))
				c->returns_twice = 1;
		if (op == LLVMRet)
			c->exits[u] = WPP_CFG_EXIT_RETURN;
		else if (op == LLVMUnreachable)
			c->exits[u] = WPP_CFG_EXIT_NORETURN;
		else if (op == LLVMResume)
			c->exits[u] = WPP_CFG_EXIT_RESUME;
		unsigned ns = LLVMGetNumSuccessors(t);
		int have_w = branch_weights(t, ns, slotw);
		double total = 0;
		if (have_w)
			for (unsigned s = 0; s < ns; s++)
				total += slotw[s];
		uint32_t first_edge = ne;
		for (unsigned s = 0; s < ns; s++) {
			uint32_t v = wpp_ir_block_index(c, LLVMGetSuccessor(t, s));
			double p = have_w && total > 0 ? slotw[s] / total : 0;
			uint32_t e;
			for (e = first_edge; e < ne; e++)
				if (c->edge_dst[e] == v)
					break;
			if (e == ne) {
				c->edge_src[ne] = u;
				c->edge_dst[ne] = v;
				c->edge_prob[ne] = 0;
				ne++;
			}
			c->edge_prob[e] += p;
		}
		if (!(have_w && total > 0))
			for (uint32_t e = first_edge; e < ne; e++)
				c->edge_prob[e] = 1.0 / (ne - first_edge);
	}
	free(slotw);
	for (uint32_t e = 0; e < ne; e++)
		if (c->flags[c->edge_src[e]] & WPP_CFGB_INDIRECT_SRC)
			c->flags[c->edge_dst[e]] |= WPP_CFGB_PINNED;
	c->cfg.nblocks = n;
	c->cfg.nedges = ne;
	c->cfg.edge_src = c->edge_src;
	c->cfg.edge_dst = c->edge_dst;
	c->cfg.block_flags = c->flags;
	c->cfg.block_exit = c->exits;
	return 0;
}

void wpp_ir_cfg_free(struct wpp_ir_cfg *c)
{
	free(c->blocks);
	free(c->edge_src);
	free(c->edge_dst);
	free(c->edge_prob);
	free(c->flags);
	free(c->exits);
	free(c->map_key);
	free(c->map_val);
	memset(c, 0, sizeof(*c));
}
