/* SPDX-License-Identifier: MIT */
/*
 * ir_function.c — per-function instrumentation (see ir_function.h and
 * docs/instrumentation.md).
 *
 * Emission is done in phases so that code sharing an insertion point comes
 * out in the right order even when a block is nothing but its terminator:
 *   A  edge code placed at the start of a block (its only predecessor's edge)
 *   B  block-start code: landing-pad records, register restarts, block records
 *   C  code before terminators: edge code of single-successor blocks, path
 *      ends at ret/resume/indirectbr/callbr, invoke pre-adjustments
 *   D  edge code in blocks created by splitting an edge
 *   E  __wpp_flush_all() right before process-ending calls
 *   F  cursor reloads after every call that may move the thread's cursor,
 *      ahead of any code the phases above put after that call
 *
 * Runs (runs.h): the back-edge path ends of qualifying loops count repeats
 * instead of recording (wpp_emit_run_record), and each exit edge of such a
 * loop gets wpp_emit_run_end as the first code on the edge, before the
 * edge's own increments or path end.
 *
 * PPP (ppp_plan.h): a function counted preferentially has a second
 * register, its PPP id, which every increment, restart, invoke adjustment
 * and path end updates with the PPP increment of the same DAG edge (struct
 * incs carries both), so the two change on exactly the same edges.
 *
 * TPP (ir_tpp.h): the walk goes over the plan's full DAG instead of the
 * function's, and every edge's code is the plan's op for that full edge
 * (struct incs then names the edge); placement of edge code, cuts,
 * restarts and landing pads are the same as in counting mode.
 */
#include "instrument/ir_function.h"

#include <llvm-c/DebugInfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/dag.h"
#include "instrument/ir_branch_weights.h"
#include "instrument/ir_calls.h"
#include "instrument/ir_cfg.h"
#include "instrument/profile_program.h"
#include "instrument/ir_counts.h"
#include "instrument/ir_dual.h"
#include "instrument/ir_meta.h"
#include "instrument/ir_split.h"
#include "instrument/ir_tpp.h"
#include "instrument/ir_wet.h"
#include "instrument/numbering.h"
#include "instrument/placement.h"
#include "instrument/ppp_plan.h"
#include "instrument/runs.h"
#include "instrument/runs_debug.h"
#include "instrument/interesting_read.h"
#include "instrument/stable_hash.h"
#include "wpp/meta_format.h"
#include "wpp/trace_abi.h"

struct fn_emit {
	struct wpp_probes *p;
	LLVMBuilderRef b;
	LLVMMetadataRef loc;
	struct wpp_ir_cfg *c;
	struct wpp_dag *d;
	LLVMValueRef reg;   /* alloca i64: the path register */
	LLVMValueRef cur;   /* alloca ptr: the cursor slot (ir_probes.h) */
	LLVMValueRef fidw;  /* fid << 40 of this activation */
	LLVMValueRef ctrlw; /* wide: control word naming the fid */
	int wide;
	/* counting mode (ir_counts.h): the thread's array and the function's
	 * first slot in it, or UINT64_MAX when it counts through the hash */
	struct wpp_counts *counts;
	LLVMValueRef count_base;
	uint64_t count_first;
	int count_cached;    /* hashed, with a path cache at count_first */
	uint64_t count_keys; /* its path cache's keys (PPP: its residual paths') */
	unsigned count_log2; /* log2 of the cache's pairs, 0: none */
	/* PPP: the second register, its increments per DAG edge (NULL: the
	 * function counts by Ball-Larus id), its slot table and interval, and
	 * the fid slot its residual paths load */
	LLVMValueRef preg;
	const uint64_t *pinc;
	LLVMValueRef ppp_table, fid_slot;
	uint64_t ppp_interval;
	uint8_t *run_role;	  /* per CFG edge, enum wpp_run_role; NULL: no runs */
	LLVMValueRef last, count; /* run slots (ir_probes.h), when run_role */
	LLVMValueRef *start_at;	  /* per block: first original non-phi instruction */
	LLVMValueRef *term;	  /* per block: original terminator */
	struct wpp_wet_fn *wet;	  /* wet mode (ir_wet.h), else NULL */
	struct wpp_ir_tpp *tpp;	  /* tpp mode with a plan, else NULL */
	int call_head;		  /* wet: restarting before a call that reserves */
	int dual;		  /* tag for the plain copy (ir_dual.h) */
	int restart_back;	  /* dual: the restart being emitted follows a back edge */
};

static void position_before(struct fn_emit *x, LLVMValueRef inst)
{
	LLVMPositionBuilderBefore(x->b, inst);
	LLVMSetCurrentDebugLocation2(x->b, x->loc);
}

static LLVMValueRef k64(struct fn_emit *x, uint64_t v)
{
	return LLVMConstInt(x->p->i64, v, 0);
}

/* What one DAG edge adds to each register (ppp 0 without PPP); in TPP
 * mode only which full-DAG edge it is (tpp: edge + 1, 0 for none). */
struct incs {
	uint64_t bl, ppp;
	uint32_t tpp;
};

static struct incs incs_of(const struct fn_emit *x, uint32_t dag_edge)
{
	if (x->tpp)
		return (struct incs){0, 0, dag_edge + 1};
	return (struct incs){x->d->edges[dag_edge].inc, x->pinc ? x->pinc[dag_edge] : 0, 0};
}

static int incs_any(const struct fn_emit *x, struct incs i)
{
	if (x->tpp)
		return i.tpp && wpp_ir_tpp_has_code(x->tpp, i.tpp - 1);
	return i.bl != 0 || i.ppp != 0;
}

static LLVMValueRef slot_plus(struct fn_emit *x, LLVMValueRef slot, uint64_t inc)
{
	LLVMValueRef r = LLVMBuildLoad2(x->b, x->p->i64, slot, "");
	return inc ? LLVMBuildAdd(x->b, r, k64(x, inc), "") : r;
}

static void emit_add(struct fn_emit *x, struct incs inc)
{
	if (x->tpp) {
		if (inc.tpp)
			wpp_ir_tpp_emit_edge(x->tpp, x->b, inc.tpp - 1);
		return;
	}
	if (inc.bl)
		LLVMBuildStore(x->b, slot_plus(x, x->reg, inc.bl), x->reg);
	if (x->preg && inc.ppp)
		LLVMBuildStore(x->b, slot_plus(x, x->preg, inc.ppp), x->preg);
}

/* Path start: narrow registers carry the fid in their high bits, wide ones
 * the mark bit that keeps their record's second word non-zero. */
static void emit_restart(struct fn_emit *x, struct incs inc)
{
	if (x->tpp) {
		emit_add(x, inc); /* the ENTRY->v edge's op: SET, or nothing */
		return;
	}
	/* counting: the id alone (one above it where a path cache's key is
	 * id + 1, so the path end has its key for nothing) */
	LLVMValueRef v = x->counts ? k64(x, inc.bl + (x->count_cached ? 1 : 0))
			 : x->wide ? k64(x, WPP_WIDE_ID_MARK + inc.bl)
				   : LLVMBuildAdd(x->b, x->fidw, k64(x, inc.bl), "");
	LLVMValueRef st = LLVMBuildStore(x->b, v, x->reg);
	if (x->dual)
		wpp_dual_tag(st, WPP_DUAL_MD_START, x->restart_back);
	if (x->preg)
		LLVMBuildStore(x->b, k64(x, inc.ppp), x->preg);
	if (x->wet && !x->call_head) /* else reserved after the call */
		wpp_wet_emit_start(x->wet, x->b);
}

static void emit_path_end(struct fn_emit *x, struct incs inc, int counts_runs)
{
	if (x->tpp) {
		if (inc.tpp) /* the u->EXIT edge's op: RECORD, COLD or nothing */
			emit_add(x, inc);
		else /* a landing pad: what the invoke prepared */
			wpp_ir_tpp_emit_landing(x->tpp, x->b);
		return;
	}
	LLVMValueRef w = slot_plus(x, x->reg, inc.bl);
	if (x->preg)
		wpp_emit_count_ppp(x->counts, x->b, x->count_base, x->count_first, x->ppp_table,
				   x->ppp_interval, x->count_keys, x->count_log2, x->fid_slot,
				   slot_plus(x, x->preg, inc.ppp), w);
	else if (x->count_cached)
		wpp_emit_count_cached(x->counts, x->b, x->count_base, x->count_keys, x->count_log2,
				      x->fid_slot, w);
	else if (x->counts && x->count_first == UINT64_MAX)
		wpp_emit_count_hash(x->counts, x->b, x->fidw, w);
	else if (x->counts)
		wpp_emit_count_array(x->counts, x->b, x->count_base, x->count_first, w);
	else if (x->wet)
		wpp_wet_emit_end(x->wet, x->b, x->wide ? x->ctrlw : NULL, w);
	else if (counts_runs && x->wide)
		wpp_emit_run_record2(x->p, x->b, x->cur, x->last, x->count, x->ctrlw, w);
	else if (counts_runs)
		wpp_emit_run_record(x->p, x->b, x->cur, x->last, x->count, w);
	else if (x->wide)
		wpp_emit_record2(x->p, x->b, x->cur, x->ctrlw, w);
	else
		wpp_emit_record1(x->p, x->b, x->cur, w);
}

/* An invoke's preparation of its unwind edge's path end, and its undoing
 * on the normal edge. */
static void emit_preadjust(struct fn_emit *x, struct incs inc)
{
	if (x->tpp)
		wpp_ir_tpp_emit_preadjust(x->tpp, x->b, inc.tpp - 1);
	else
		emit_add(x, inc);
}

static void emit_undo(struct fn_emit *x, struct incs inc)
{
	if (x->tpp)
		wpp_ir_tpp_emit_undo(x->tpp, x->b, inc.tpp - 1);
	else
		emit_add(x, (struct incs){(uint64_t)0 - inc.bl, (uint64_t)0 - inc.ppp, 0});
}

/* What one CFG edge needs, in order: a pre-adjust undo (invoke normal edge),
 * an add (real chord) or a path end + optional restart (cut). */
struct edge_code {
	int needed;
	int run_end;	  /* leaves a run-counting loop: write its count first */
	int run_back;	  /* back edge whose path end counts runs */
	struct incs undo; /* subtract first (invoke pre-adjust) */
	int is_cut;
	struct incs inc; /* add (real) or final increment of the ended path (cut) */
	int restart;	 /* cut whose target restarts on the edge */
	struct incs restart_inc;
	int back; /* a back edge (dual builds check the flag there) */
};

/* Counting mode's function entry: the thread's array (array functions,
 * cached ones) or the fid word (hashed ones).  After the entry block's allocas: the array
 * load becomes a branch once inlined, and allocas must stay in the entry
 * block to remain static.  Returns the instruction it went before. */
static LLVMValueRef emit_count_entry(struct fn_emit *x, uint32_t local_index)
{
	LLVMValueRef at = x->start_at[0];
	while (at && LLVMIsAAllocaInst(at))
		at = LLVMGetNextInstruction(at);
	position_before(x, at);
	if (x->count_first == UINT64_MAX || (x->tpp && x->tpp->split))
		x->fidw = wpp_emit_fid_word(x->p, x->b, local_index);
	if (x->count_first != UINT64_MAX)
		x->count_base = wpp_emit_count_base(x->counts, x->b);
	/* residual paths and cache misses load it, PPP and cache hits never do */
	if (x->pinc || x->count_cached || (x->tpp && x->tpp->log2))
		x->fid_slot = wpp_fid_slot_global(x->p, local_index);
	return at;
}

static struct edge_code edge_code_for(struct fn_emit *x, uint32_t e, const struct incs *preadj)
{
	struct edge_code ec = {0};
	uint32_t u = x->c->edge_src[e], v = x->c->edge_dst[e];
	uint32_t dag_edge = x->d->cfg_edge_dag[e];
	const struct wpp_dag_edge *de = &x->d->edges[dag_edge];
	ec.undo = preadj[u];
	ec.run_end = x->run_role && x->run_role[e] == WPP_RUN_EXIT;
	ec.run_back = x->run_role && x->run_role[e] == WPP_RUN_BACK;
	ec.inc = incs_of(x, dag_edge);
	if (de->kind == WPP_EDGE_REAL) {
		ec.needed = incs_any(x, ec.inc) || incs_any(x, ec.undo) || ec.run_end;
		return ec;
	}
	ec.is_cut = 1;
	ec.back = x->dual && x->d->cfg_edge_back[e]; /* TPP's DAGs have no back marks */
	ec.restart = !x->d->restart_at_start[v];
	if (ec.restart)
		ec.restart_inc = incs_of(x, x->d->entry_edge[v]);
	/* a count or trace build ends the path on every cut; TPP's plan says
	 * where nothing needs to run */
	ec.needed = !x->tpp || incs_any(x, ec.inc) || incs_any(x, ec.undo) ||
		    (ec.restart && incs_any(x, ec.restart_inc));
	return ec;
}

static void emit_edge_code(struct fn_emit *x, const struct edge_code *ec)
{
	if (ec->run_end)
		wpp_emit_run_end(x->p, x->b, x->cur, x->last, x->count);
	if (incs_any(x, ec->undo))
		emit_undo(x, ec->undo);
	if (!ec->is_cut) {
		emit_add(x, ec->inc);
		return;
	}
	emit_path_end(x, ec->inc, ec->run_back);
	x->restart_back = ec->back;
	if (ec->restart)
		emit_restart(x, ec->restart_inc);
}

static int is_landing_pad(LLVMBasicBlockRef bb)
{
	LLVMValueRef i = LLVMGetFirstInstruction(bb);
	while (i && LLVMIsAPHINode(i))
		i = LLVMGetNextInstruction(i);
	return i && LLVMIsALandingPadInst(i);
}

/* Where the code of a CFG edge goes (see phases in the header comment). */
enum edge_site { SITE_SRC_END, SITE_DST_START, SITE_SPLIT, SITE_NONE };

static enum edge_site edge_site(struct fn_emit *x, uint32_t e, const uint32_t *npreds,
				const uint32_t *nsuccs)
{
	uint32_t u = x->c->edge_src[e], v = x->c->edge_dst[e];
	LLVMOpcode op = LLVMGetInstructionOpcode(x->term[u]);
	if (is_landing_pad(x->c->blocks[v]))
		return SITE_NONE; /* unwind edge: handled by invoke pre-adjustment */
	if (nsuccs[u] == 1 && op != LLVMInvoke && op != LLVMCallBr && op != LLVMIndirectBr)
		return SITE_SRC_END;
	if (npreds[v] == 1 && v != 0)
		return SITE_DST_START;
	return SITE_SPLIT;
}

static void instrument_paths(struct fn_emit *x)
{
	struct wpp_ir_cfg *c = x->c;
	struct wpp_dag *d = x->d;
	uint32_t n = c->cfg.nblocks, ne = c->cfg.nedges;
	uint32_t *npreds = calloc(n, sizeof(uint32_t));
	uint32_t *nsuccs = calloc(n, sizeof(uint32_t));
	struct incs *preadj = calloc(n, sizeof(*preadj));
	enum edge_site *site = malloc((ne + 1) * sizeof(*site));
	struct edge_code *code = malloc((ne + 1) * sizeof(*code));
	LLVMBasicBlockRef *split = calloc(ne + 1, sizeof(*split));
	uint8_t *back_in = calloc(n + 1, 1); /* dual: a back edge enters the block */
	if (!npreds || !nsuccs || !preadj || !site || !code || !split || !back_in) {
		/* out of memory inside the compiler: leave the function
		 * unrecorded rather than emit half of its probes */
		fprintf(stderr, "wppcc: out of memory instrumenting a function\n");
		goto out;
	}
	for (uint32_t e = 0; e < ne; e++) {
		npreds[c->edge_dst[e]]++, nsuccs[c->edge_src[e]]++;
		if (x->dual) /* only dual builds read it; TPP's DAGs have no back marks */
			back_in[c->edge_dst[e]] |= d->cfg_edge_back[e];
	}
	/* Unwind edges cannot carry code: the invoke adds the unwind edge's
	 * final increment before it runs, the landing pad records the register
	 * as it finds it, and the normal edge takes the adjustment back. */
	for (uint32_t e = 0; e < ne; e++) {
		uint32_t u = c->edge_src[e], v = c->edge_dst[e];
		if (is_landing_pad(c->blocks[v]) &&
		    LLVMGetInstructionOpcode(x->term[u]) == LLVMInvoke)
			preadj[u] = incs_of(x, d->cfg_edge_dag[e]);
	}
	for (uint32_t e = 0; e < ne; e++) {
		uint32_t u = c->edge_src[e];
		site[e] = edge_site(x, e, npreds, nsuccs);
		if (site[e] != SITE_NONE && (c->flags[u] & WPP_CFGB_INDIRECT_SRC))
			site[e] = SITE_NONE; /* path end before the terminator, restart in target */
		code[e] =
		    site[e] == SITE_NONE ? (struct edge_code){0} : edge_code_for(x, e, preadj);
		if (!code[e].needed)
			site[e] = SITE_NONE;
		if (site[e] == SITE_SPLIT)
			split[e] =
			    wpp_ir_split_edge(c->blocks[u], c->blocks[c->edge_dst[e]], "wpp.edge");
	}
	/* A */
	for (uint32_t e = 0; e < ne; e++)
		if (site[e] == SITE_DST_START) {
			position_before(x, x->start_at[c->edge_dst[e]]);
			emit_edge_code(x, &code[e]);
		}
	/* B */
	for (uint32_t v = 0; v < n; v++) {
		position_before(x, x->start_at[v]);
		if (is_landing_pad(c->blocks[v]))
			emit_path_end(x, (struct incs){0, 0, 0},
				      0); /* pre-adjusted by the invoke */
		x->call_head = x->wet && wpp_wet_reserves_after_call(x->wet, v);
		x->restart_back = back_in[v];
		if (d->restart_at_start[v] && d->entry_edge[v] != WPP_NONE)
			emit_restart(x, incs_of(x, d->entry_edge[v]));
		x->call_head = 0;
	}
	/* C */
	for (uint32_t e = 0; e < ne; e++)
		if (site[e] == SITE_SRC_END) {
			position_before(x, x->term[c->edge_src[e]]);
			emit_edge_code(x, &code[e]);
		}
	for (uint32_t u = 0; u < n; u++) {
		uint32_t xe = d->exit_edge[u];
		if (incs_any(x, preadj[u])) {
			position_before(x, x->term[u]);
			emit_preadjust(x, preadj[u]);
		}
		if (xe == WPP_NONE)
			continue;
		int indirect = (c->flags[u] & WPP_CFGB_INDIRECT_SRC) != 0;
		if (!(c->exits[u] == WPP_CFG_EXIT_RETURN || c->exits[u] == WPP_CFG_EXIT_RESUME ||
		      indirect))
			continue; /* unreachable: nothing can be recorded */
		LLVMValueRef at = x->term[u];
		/* nothing may sit between a musttail call and its ret */
		LLVMValueRef prev = LLVMGetPreviousInstruction(at);
		if (prev && LLVMGetInstructionOpcode(prev) == LLVMCall &&
		    LLVMGetTailCallKind(prev) == LLVMTailCallKindMustTail)
			at = prev;
		position_before(x, at);
		emit_path_end(x, incs_of(x, xe), 0);
	}
	/* D */
	for (uint32_t e = 0; e < ne; e++)
		if (site[e] == SITE_SPLIT) {
			position_before(x, LLVMGetBasicBlockTerminator(split[e]));
			emit_edge_code(x, &code[e]);
		}
out:
	free(npreds), free(nsuccs), free(preadj), free(site), free(code), free(split);
	free(back_in);
}

static void instrument_blocks(struct fn_emit *x)
{
	for (uint32_t v = 0; v < x->c->cfg.nblocks; v++) {
		position_before(x, x->start_at[v]);
		wpp_emit_record1(x->p, x->b, x->cur, LLVMBuildAdd(x->b, x->fidw, k64(x, v), ""));
	}
}

static void flush_before_process_end(struct fn_emit *x)
{
	for (uint32_t v = 0; v < x->c->cfg.nblocks; v++)
		for (LLVMValueRef i = x->start_at[v]; i; i = LLVMGetNextInstruction(i))
			if (wpp_ir_is_process_ending_call(i)) {
				position_before(x, i);
				wpp_emit_flush_all(x->p, x->b);
			}
}

/* Where control continues after a call: right after it, or for an invoke
 * at the start of its normal destination (a block of its own, so that the
 * other predecessors do not pay for the reload). */
static LLVMValueRef after_call(struct fn_emit *x, LLVMValueRef call)
{
	if (LLVMGetInstructionOpcode(call) != LLVMInvoke)
		return LLVMGetNextInstruction(call);
	LLVMBasicBlockRef from = LLVMGetInstructionParent(call), to = LLVMGetNormalDest(call);
	if (LLVMGetFirstUse(LLVMBasicBlockAsValue(to)) &&
	    LLVMGetNextUse(LLVMGetFirstUse(LLVMBasicBlockAsValue(to))))
		to = wpp_ir_split_edge(from, to, "wpp.ret");
	(void)x;
	return wpp_ir_first_insertion_point(to);
}

/* asm goto: the cursor is not kept live across it but reloaded in every
 * target.  Besides being cheap (asm goto is rare), this keeps the cursor
 * out of the way of outputs on the indirect edges, which clang's -O0
 * register allocator mishandles when one more value is live across. */
static void reload_in_successors(struct fn_emit *x, LLVMValueRef callbr)
{
	for (unsigned k = 0; k < LLVMGetNumSuccessors(callbr); k++) {
		position_before(x, wpp_ir_first_insertion_point(LLVMGetSuccessor(callbr, k)));
		wpp_emit_cursor_reload(x->p, x->b, x->cur);
	}
}

/* F: the cursor register is only valid until something else may record.
 * Runs after all other phases, and puts the reload first after the call,
 * before any record placed there.  Landing pads are entered from calls.
 * Instructions inserted while walking are loads and stores, skipped. */
static void reload_cursor_after_calls(struct fn_emit *x, LLVMValueRef fn)
{
	for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb;
	     bb = LLVMGetNextBasicBlock(bb)) {
		for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
		     i = LLVMGetNextInstruction(i)) {
			LLVMValueRef at;
			if (LLVMGetInstructionOpcode(i) == LLVMCallBr) {
				reload_in_successors(x, i);
				continue;
			}
			if (LLVMIsALandingPadInst(i))
				at = wpp_ir_first_insertion_point(bb);
			else if (wpp_ir_may_move_cursor(i) && !wpp_is_record_call(x->p, i) &&
				 !(LLVMGetInstructionOpcode(i) == LLVMCall &&
				   LLVMGetTailCallKind(i) == LLVMTailCallKindMustTail))
				at = after_call(x, i);
			else
				continue;
			position_before(x, at);
			if (x->wet)
				wpp_wet_after_call(x->wet, x->b, i);
			else
				wpp_emit_cursor_reload(x->p, x->b, x->cur);
		}
	}
}

/* Blocks that runs must not pass through (runs.h): something in them may
 * record behind the function's back (a memory intrinsic that becomes a
 * call of an instrumented memcpy), or their terminator is not a plain
 * branch or switch, so its edges may not carry the run's exit code.  The
 * call a call head begins with is not such a thing: the edges into the
 * block write the pending count before it (runs.h, "Calls") — unless it
 * returns twice (after a longjmp the run's registers are indeterminate)
 * or ends the process. */
static uint8_t *run_vetoes(const struct wpp_ir_cfg *c)
{
	uint8_t *veto = calloc(c->cfg.nblocks + 1, 1);
	if (!veto)
		return NULL;
	for (uint32_t v = 0; v < c->cfg.nblocks; v++) {
		LLVMValueRef t = LLVMGetBasicBlockTerminator(c->blocks[v]);
		LLVMOpcode op = t ? LLVMGetInstructionOpcode(t) : LLVMUnreachable;
		veto[v] = op != LLVMBr && op != LLVMSwitch;
		int head = (c->cfg.block_flags[v] & WPP_CFGB_CALL_HEAD) != 0;
		for (LLVMValueRef i = LLVMGetFirstInstruction(c->blocks[v]); i && !veto[v];
		     i = LLVMGetNextInstruction(i))
			veto[v] =
			    wpp_ir_may_move_cursor(i) && !(head && wpp_ir_is_path_ending_call(i) &&
							   !wpp_ir_is_returns_twice_call(i) &&
							   !wpp_ir_is_process_ending_call(i));
	}
	return veto;
}

/* Per CFG edge run roles, or NULL when the function has no qualifying loop
 * (or runs are off).  Wide functions count runs of their [ctrl, id] pairs.
 * measured: the training counts per DAG edge, or NULL (runs.h). */
static uint8_t *find_runs(struct wpp_tu_ctx *tu, const struct wpp_ir_cfg *c,
			  const struct wpp_dag *d, const uint64_t *measured)
{
	if (!tu->runs || tu->mode != WPP_MODE_PATHS)
		return NULL;
	uint8_t *veto = run_vetoes(c);
	uint8_t *role = malloc(c->cfg.nedges + 1);
	int nloops = veto && role
			 ? wpp_runs_find_measured(&c->cfg, d, veto, &tu->run_opts, measured, role)
			 : -1;
	free(veto);
	if (nloops <= 0) {
		free(role);
		return NULL;
	}
	return role;
}

static uint64_t function_stable_id(struct wpp_tu_ctx *tu, LLVMValueRef fn,
				   const struct wpp_ir_cfg *c)
{
	size_t len;
	const char *name = LLVMGetValueName2(fn, &len);
	uint64_t h = wpp_hash_str(WPP_HASH_INIT, name, len);
	h = wpp_hash_str(h, tu->source, tu->source_len);
	h = wpp_hash_u64(h, c->cfg.nblocks);
	for (uint32_t e = 0; e < c->cfg.nedges; e++)
		h = wpp_hash_u64(h, (uint64_t)c->edge_src[e] << 32 | c->edge_dst[e]);
	for (uint32_t b = 0; b < c->cfg.nblocks; b++)
		h = wpp_hash_u64(h, (uint64_t)c->flags[b] << 8 | c->exits[b]);
	return wpp_hash_final(h);
}

/* With an edge profile (wppcc --wpp-profile), replace the static weights w
 * by the measured ones when the profile has this very function (same
 * stable id, same DAG; *used is then its entry); a function the profile
 * knows by name and source file only (by name only in a version 1
 * profile), or whose DAG differs, was changed since it was recorded: one
 * warning line, static weights, *stale set (TPP then counts it as plain
 * Ball-Larus paths).  -1 only on allocation failure. */
static int profile_weights(struct wpp_tu_ctx *tu, LLVMValueRef fn, uint64_t stable_id,
			   const struct wpp_dag *d, double *w, const struct wpp_edge_prof_fn **used,
			   int *stale)
{
	const struct wpp_edge_prof_fn *f;
	const char *name;
	size_t len;
	int rc;

	*used = NULL;
	*stale = 0;
	if (!tu->profile)
		return 0;
	name = LLVMGetValueName2(fn, &len);
	f = wpp_edge_prof_find(tu->profile, stable_id);
	const char *their_main = wpp_edge_prof_source_of(tu->profile, "main");
	if (!f && len == 4 && memcmp(name, "main", 4) == 0 &&
	    wpp_profile_other_program(their_main, tu->source, tu->source_len)) {
		fprintf(stderr,
			"wppcc: warning: the profile %s was recorded from another program: its "
			"main is in %s, this program's in %.*s; what it does not name is placed "
			"without it\n",
			tu->profile_name, their_main, (int)tu->source_len, tu->source);
		return 0;
	}
	if (f) {
		if ((rc = wpp_edge_prof_apply(f, d, w)) <= 0) {
			*used = rc == 0 ? f : NULL;
			return rc;
		}
	} else if (!wpp_edge_prof_has_name(tu->profile, name, tu->source, tu->source_len)) {
		return 0; /* not in the recording: nothing measured */
	}
	*stale = 1;
	fprintf(stderr, "wppcc: warning: %s changed since the profile %s was recorded; %s\n", name,
		tu->profile_name,
		tu->mode == WPP_MODE_TPP ? "its paths are all counted (plain Ball-Larus)"
					 : "its increments are placed without it");
	return 0;
}

/* The training run's count of every DAG edge, when the profile has this
 * function (f) and something uses it; else NULL (also when out of memory:
 * the counts only steer choices that are right either way). */
static uint64_t *measured_counts(const struct wpp_tu_ctx *tu, const struct wpp_dag *d,
				 const struct wpp_edge_prof_fn *f)
{
	if (!f || tu->mode == WPP_MODE_BLOCKS || !(tu->profile_layout || tu->profile_runs))
		return NULL;
	uint64_t *count = malloc(((size_t)d->nedges + 1) * sizeof(uint64_t));
	if (count && wpp_edge_prof_counts(f, d, count) != 0) {
		free(count);
		count = NULL;
	}
	return count;
}

/* TPP mode: the function's plan, unless the profile is stale for it. */
static int plan_tpp(struct wpp_tu_ctx *tu, LLVMValueRef fn, const struct wpp_ir_cfg *c,
		    const struct wpp_dag *d, const struct wpp_edge_prof_fn *f, int stale,
		    const double *w, struct wpp_ir_tpp *t)
{
	char why[256];
	memset(t, 0, sizeof(*t));
	if (tu->mode != WPP_MODE_TPP || stale)
		return 0;
	if (wpp_ir_tpp_plan(t, &c->cfg, d, f, w, tu->tpp_cold, tu->tpp_loop, why, sizeof(why))) {
		size_t len;
		fprintf(stderr, "wppcc: %s: targeted path profiling: %s\n",
			LLVMGetValueName2(fn, &len), why);
		return -1;
	}
	return 0;
}

int wpp_instrument_function(struct wpp_tu_ctx *tu, LLVMValueRef fn)
{
	struct wpp_ir_cfg c;
	struct wpp_dag d;
	struct fn_emit x = {0};
	struct wpp_ppp_plan plan = {0};
	struct wpp_ir_tpp tpp = {0};
	const struct wpp_edge_prof_fn *prof = NULL;
	int prof_stale = 0;
	uint64_t *ids = NULL, *id_counts = NULL;
	size_t nids = 0;
	double *w = NULL;
	uint64_t *measured = NULL; /* training counts per DAG edge, or NULL */
	int rc = -1;

	wpp_ir_prepare_cfg(fn);
	if (wpp_ir_cfg_describe(fn, &c))
		return -1;
	if (wpp_dag_build(&d, &c.cfg)) {
		wpp_ir_cfg_free(&c);
		return -1;
	}
	if (tu->mode == WPP_MODE_WET && !(x.wet = wpp_wet_plan(tu->wet, fn, &c, &d)))
		goto out;
	if (wpp_dag_number(&d, WPP_NARROW_PATH_LIMIT, WPP_WIDE_PATH_LIMIT))
		goto out;
	w = malloc(((size_t)d.nedges + 1) * sizeof(double));
	struct wpp_weight_input wi = {&c.cfg, &d, c.edge_prob};
	uint64_t stable_id = function_stable_id(tu, fn, &c);
	if (!w || tu->weigh(&wi, w) ||
	    profile_weights(tu, fn, stable_id, &d, w, &prof, &prof_stale) || wpp_dag_place(&d, w) ||
	    plan_tpp(tu, fn, &c, &d, prof, prof_stale, w, &tpp))
		goto out;
	/* Blocks mode keeps LLVM's guesses: it is the oracle, the same program */
	measured = measured_counts(tu, &d, prof);
	if (measured && tu->profile_layout)
		wpp_ir_measured_branch_weights(&c, &d, measured);
	int match = wpp_ir_stats_lookup(tu->stats, fn, stable_id, &d, &ids, &id_counts, &nids);
	int stale = match == WPP_INTERESTING_STALE;
	/* Where Ball-Larus counting would hash this function (too many paths,
	 * or no room left in the TU's array), PPP may number it whatever
	 * WPP_PPP_MIN_PATHS says: "PPP where counting would hash". */
	int hashes = wpp_meta_mode_counts(tu->mode) ? wpp_counts_would_hash(&tu->counts, d.npaths)
						    : d.npaths > wpp_counts_array_limit();
	uint64_t ppp_min =
	    hashes && d.npaths <= tu->ppp_min_paths ? d.npaths - 1 : tu->ppp_min_paths;
	/* PPP's increments go on the chords wpp_dag_place just chose; where
	 * counting would hash, only if cheaper than its path cache */
	struct wpp_ppp_policy pol = {ppp_min, wpp_ppp_max_interval(tu->counts.max_array_paths),
				     hashes && wpp_ppp_cost_on(),
				     wpp_counts_cache_log2(&tu->counts)};
	if (tu->mode == WPP_MODE_PPP &&
	    wpp_ppp_plan_make(&d, ids, id_counts, nids, stale, &pol, &plan))
		goto out;
	wpp_ir_stats_function(tu->stats, fn, &d, ids, nids, stale, hashes,
			      tu->mode == WPP_MODE_PPP ? &plan : NULL);
	if (tu->mode == WPP_MODE_BLOCKS)
		for (uint32_t i = 0; i < d.nedges; i++)
			d.edges[i].inc = 0; /* nothing is placed in blocks mode */

	/* Metadata describes the code as it is now, before instrumentation. */
	uint32_t local_index = tu->nfuncs;
	if (wpp_ir_meta_add_function(&tu->meta, fn, &c, &d, local_index, stable_id) ||
	    (x.wet && wpp_wet_meta_add(tu->wet, &tu->meta, x.wet)))
		goto out;
	if (tu->mode == WPP_MODE_PPP &&
	    wpp_mb_add_ppp(&tu->meta, ids, nids, plan.how, plan.interval))
		goto out;
	/* a plan too big for the array counts its paths in the hash and the
	 * rest in the array, when that fits (ir_tpp.h) */
	int tpp_split = tpp.active &&
			wpp_counts_would_hash(&tu->counts, wpp_ir_tpp_ncounters(&tpp)) &&
			!wpp_counts_would_hash(&tu->counts, 1 + (uint64_t)tpp.plan.nobvious);
	if (tu->mode == WPP_MODE_TPP &&
	    wpp_tpp_meta_add(&tu->tpp_meta, tpp.active ? &tpp.plan : NULL, d.nedges, tpp_split))
		goto out;

	x.p = &tu->probes;
	x.c = &c;
	x.d = &d;
	x.wide = (tu->mode == WPP_MODE_PATHS || tu->mode == WPP_MODE_WET) && d.wide;
	x.counts = wpp_meta_mode_counts(tu->mode) ? &tu->counts : NULL;
	x.b = LLVMCreateBuilderInContext(tu->probes.ctx);
	LLVMMetadataRef sp = LLVMGetSubprogram(fn);
	x.loc = sp ? LLVMDIBuilderCreateDebugLocation(tu->probes.ctx, 0, 0, sp, NULL) : NULL;
	x.run_role = find_runs(tu, &c, &d, tu->profile_runs ? measured : NULL);
	x.start_at = malloc((size_t)c.cfg.nblocks * sizeof(LLVMValueRef));
	x.term = malloc((size_t)c.cfg.nblocks * sizeof(LLVMValueRef));
	if (!x.start_at || !x.term)
		goto out;
	for (uint32_t v = 0; v < c.cfg.nblocks; v++) {
		x.start_at[v] = wpp_ir_first_insertion_point(c.blocks[v]);
		x.term[v] = LLVMGetBasicBlockTerminator(c.blocks[v]);
	}
	/* From here on the function is modified; no failure exits. */
	if (x.counts && plan.how == WPP_PPP_ARRAY) {
		x.count_first =
		    wpp_counts_add_ppp_function(x.counts, plan.interval, plan.slot_bl, &x.ppp_table,
						d.npaths, &x.count_keys, &x.count_log2);
		x.pinc = plan.inc;
		x.ppp_interval = plan.interval;
	} else if (x.counts && tpp.active) {
		x.tpp = &tpp;
		x.d = &tpp.plan.full;
		tpp.split = tpp_split;
		/* a split plan's paths: its slots and the cold key */
		x.count_first =
		    tpp_split
			? wpp_counts_add_split_function(x.counts, 1 + (uint64_t)tpp.plan.nobvious,
							tpp.plan.nslots + 1, &tpp.keys, &tpp.log2)
			: wpp_counts_add_function(x.counts, wpp_ir_tpp_ncounters(&tpp));
	} else if (x.counts && wpp_counts_would_hash(x.counts, d.npaths) &&
		   (x.count_first = wpp_counts_add_cached_function(x.counts, &x.count_log2)) !=
		       UINT64_MAX) {
		x.count_cached = 1;
		x.count_keys = x.count_first;
	} else if (x.counts) {
		x.count_first = wpp_counts_add_function(x.counts, d.npaths);
	}
	position_before(&x, LLVMGetFirstInstruction(c.blocks[0]));
	x.reg = LLVMBuildAlloca(x.b, tu->probes.i64, "wpp.reg");
	LLVMValueRef no_md =
	    LLVMMetadataAsValue(tu->probes.ctx, LLVMMDNodeInContext2(tu->probes.ctx, NULL, 0));
	LLVMSetMetadata(x.reg, tu->probes.reg_md_kind, no_md);
	if (x.pinc) {
		x.preg = LLVMBuildAlloca(x.b, tu->probes.i64, "wpp.ppp");
		LLVMSetMetadata(x.preg, tu->probes.reg_md_kind, no_md);
	}
	if (x.tpp && wpp_ir_tpp_needs_saved(x.tpp))
		x.tpp->saved = LLVMBuildAlloca(x.b, tu->probes.i64, "wpp.tpp.saved");
	if (x.tpp) {
		x.tpp->counts = x.counts;
		x.tpp->first = x.count_first;
		/* allocation failure: every counter stays in memory */
		(void)wpp_ir_tpp_accum_prepare(x.tpp, x.b, &c.cfg, &d, c.blocks,
					       tu->probes.reg_md_kind, no_md);
	}
	/* dual copies: plain paths tracing only (ir_dual.h) */
	x.dual = tu->dual && tu->mode == WPP_MODE_PATHS && !x.wet && !x.tpp && !x.counts;
	if (!x.counts)
		x.cur = wpp_emit_cursor_slot(&tu->probes, x.b);
	if (x.wet)
		wpp_wet_emit_slots(x.wet, x.b, x.cur, x.wide);
	if (x.run_role) {
		wpp_emit_run_slots(&tu->probes, x.b, &x.last, &x.count);
		wpp_runs_debug_count(tu->probes.mod, fn, x.count);
	}
	if (x.dual) {
		wpp_dual_tag(fn, WPP_DUAL_MD_FN, 1);
		wpp_dual_tag(x.cur, WPP_DUAL_MD_CUR, 1);
		if (x.run_role) {
			wpp_dual_tag(x.last, WPP_DUAL_MD_ZERO, 1);
			wpp_dual_tag(x.count, WPP_DUAL_MD_ZERO, 1);
		}
	}
	position_before(&x, x.start_at[0]);
	LLVMValueRef after_entry = x.counts ? emit_count_entry(&x, local_index) : NULL;
	if (x.tpp) {
		/* the entry block's own edge code may count: after the base */
		x.start_at[0] = after_entry;
		x.tpp->counts = x.counts;
		x.tpp->reg = x.reg;
		x.tpp->base = x.count_base;
		x.tpp->fidw = x.fidw;
		x.tpp->fid_slot = x.fid_slot;
		x.tpp->first = x.count_first;
		wpp_ir_tpp_emit_entry(x.tpp, x.b);
	}
	if (!x.counts) {
		wpp_emit_cursor_reload(&tu->probes, x.b, x.cur);
		x.fidw = wpp_emit_fid_word(&tu->probes, x.b, local_index);
	}
	if (x.wide)
		x.ctrlw = LLVMBuildOr(x.b, LLVMBuildLShr(x.b, x.fidw, k64(&x, WPP_FID_SHIFT), ""),
				      k64(&x, (uint64_t)WPP_CTRL_WIDE_PATH << 32), "wpp.ctrl");
	if (tu->mode == WPP_MODE_BLOCKS)
		instrument_blocks(&x);
	else
		instrument_paths(&x);
	if (x.wet)
		wpp_wet_emit_values(x.wet, x.b, x.loc);
	flush_before_process_end(&x);
	if (!x.counts)
		reload_cursor_after_calls(&x, fn);
	tu->tu_hash_acc = wpp_hash_u64(tu->tu_hash_acc, stable_id);
	tu->nfuncs++;
	rc = 0;
out:
	if (x.b)
		LLVMDisposeBuilder(x.b);
	free(x.start_at);
	free(x.term);
	free(x.run_role);
	wpp_wet_fn_free(x.wet);
	free(w);
	free(measured);
	free(ids);
	free(id_counts);
	wpp_ppp_plan_free(&plan);
	wpp_ir_tpp_free(&tpp);
	wpp_dag_free(&d);
	wpp_ir_cfg_free(&c);
	return rc;
}
