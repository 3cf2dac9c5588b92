/* SPDX-License-Identifier: MIT */
/*
 * ir_probes.h — the runtime interface as the pass emits it (trace_abi.h):
 * declarations of libwpprt's symbols, the TU's fid-base slot, and the inline
 * record sequence.
 *
 * The record sequence lives in two module-internal always_inline helpers
 * (__wpp_rec1/__wpp_rec2) that the plugin pipeline inlines right after the
 * pass, so each record is the handful of instructions of trace_abi.h with the
 * flush call in a cold block, and no call on the fast path.
 *
 * Inside a function the cursor lives in a *cursor slot*: an alloca that the
 * plugin promotes to a register, like the path register.  It is loaded from
 * __wpp_cursor at function entry and after anything that may move the
 * thread's cursor (every call that may run instrumented code, and the
 * flush); each record stores the advanced cursor back to __wpp_cursor, so
 * the thread's position in memory is exact at every record while a loop
 * without calls never reads it.
 */
#ifndef WPP_INSTRUMENT_IR_PROBES_H
#define WPP_INSTRUMENT_IR_PROBES_H

#include <llvm-c/Core.h>
#include <stdint.h>

struct wpp_probes {
	LLVMModuleRef mod;
	LLVMContextRef ctx;
	LLVMTypeRef i32, i64, ptr, voidty, void_fn, rec1_fn, rec2_fn, reg_fn;
	LLVMTypeRef run_rec_fn, run_rec2_fn, run_end_fn, run_flush_fn;
	LLVMValueRef cursor, limit;		    /* initial-exec TLS; limit = cursor + 8 */
	LLVMValueRef flush, flush_all, register_tu; /* flush: the stub (ir_probes.c) */
	LLVMValueRef rec1, rec2;
	LLVMValueRef run_rec, run_rec2, run_end, run_flush; /* runs (below) */
	LLVMValueRef fid_base_slot;			    /* i64, fid_base << 40 */
	struct wpp_fid_slot *fid_slots;			    /* per-function fid words, see below */
	uint32_t nfid_slots, fid_slots_cap;
	unsigned reg_md_kind; /* marks the path-register alloca */
};

/* A function's own fid word (i64 global): the unregistered word until the
 * TU's constructor has registered and filled it (wpp_emit_fid_slots_fill). */
struct wpp_fid_slot {
	uint32_t local_index;
	LLVMValueRef global;
};

void wpp_probes_init(struct wpp_probes *p, LLVMModuleRef m);
void wpp_probes_free(struct wpp_probes *p);

/* Building blocks the other emitters share (ir_counts.c):
 * the hidden preserve_most stub `stub` (made once per module) that jumps
 * through target's GOT entry, so a call never meets a lazily bound PLT
 * entry (see ir_probes.c); cold marks it for the cold section. */
LLVMValueRef wpp_probes_got_stub(struct wpp_probes *p, const char *stub, const char *target,
				 LLVMTypeRef fnty, int cold);
/* A new module-internal always_inline helper (the plugin inlines them all
 * right after the pass). */
LLVMValueRef wpp_probes_inline_helper(struct wpp_probes *p, const char *name, LLVMTypeRef fnty);
/* !prof branch_weights on a conditional branch: taken, not taken. */
void wpp_probes_branch_weights(struct wpp_probes *p, LLVMValueRef br, uint32_t taken,
			       uint32_t not_taken);

/* A new cursor slot (alloca; emit it in the entry block). */
LLVMValueRef wpp_emit_cursor_slot(struct wpp_probes *p, LLVMBuilderRef b);
/* slot = __wpp_cursor: at function entry and after calls that may record. */
void wpp_emit_cursor_reload(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef slot);

/* Emit at the builder's position (its debug location is used for calls). */
void wpp_emit_record1(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef slot, LLVMValueRef w);
void wpp_emit_record2(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef slot, LLVMValueRef w0,
		      LLVMValueRef w1);

/*
 * Runs (trace_abi.h WPP_CTRL_REPEAT, docs/instrumentation.md "Runs").  A
 * function with qualifying loops (runs.h) has two more promoted slots:
 * `last`, the word its last run-counting path end wrote (0 = none, never a
 * valid word; a wide function's: the id word, never 0 either thanks to
 * WPP_WIDE_ID_MARK), and `count`, i64 repeats of it not yet written.  A
 * back-edge path end in such a loop emits wpp_emit_run_record (wide:
 * wpp_emit_run_record2, the [ctrl, id] pair): the same word as last time
 * only increments count; another word first writes the pending count as
 * REPEAT words, then records itself normally.  Every exit edge of the
 * loop emits wpp_emit_run_end: write the pending count, then last = count
 * = 0.  Both write through the record helpers, so the cursor, the limit
 * check and __wpp_flush behave exactly as for any record.
 */
/* Two new slots (allocas, in the entry block), both set to 0 there. */
void wpp_emit_run_slots(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef *last,
			LLVMValueRef *count);
void wpp_emit_run_record(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef cur,
			 LLVMValueRef last, LLVMValueRef count, LLVMValueRef w);
void wpp_emit_run_record2(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef cur,
			  LLVMValueRef last, LLVMValueRef count, LLVMValueRef ctrl,
			  LLVMValueRef id);
void wpp_emit_run_end(struct wpp_probes *p, LLVMBuilderRef b, LLVMValueRef cur, LLVMValueRef last,
		      LLVMValueRef count);

/* Is inst one of the record calls emitted above? */
int wpp_is_record_call(struct wpp_probes *p, LLVMValueRef inst);
void wpp_emit_flush_all(struct wpp_probes *p, LLVMBuilderRef b);

/* The function's fid word, (fid_base + local_index) << 40, or the
 * unregistered fid word when the TU's constructor has not run yet: one load
 * of a per-function slot (the TU's base slot for index 0), so an activation
 * pays one instruction for its fid instead of an add and a select. */
LLVMValueRef wpp_emit_fid_word(struct wpp_probes *p, LLVMBuilderRef b, uint32_t local_index);
/* The slot itself (a new one per call but for index 0), for code that
 * loads it only where it needs the word (PPP's residual paths). */
LLVMValueRef wpp_fid_slot_global(struct wpp_probes *p, uint32_t local_index);
/* In the TU constructor, after __wpp_register_tu: fill every slot created
 * by wpp_emit_fid_word from the registered base (adding an index to the
 * unregistered base would wrap into other fids, so that one is copied). */
void wpp_emit_fid_slots_fill(struct wpp_probes *p, LLVMBuilderRef b);

#endif
