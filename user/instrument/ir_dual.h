/* SPDX-License-Identifier: MIT */
/*
 * ir_dual.h — dual builds (wppcc -fwpp-dual, WPP_DUAL=1): every function
 * instrumented in paths mode keeps an uninstrumented copy of itself,
 * selected by a per-process flag (Arnold and Ryder's framework; see
 * docs/instrumentation.md, "Dual builds").
 *
 * The C pass instruments as always and only tags what the copy needs to
 * know (metadata, names below); ir_dual.cpp, run by the plugin shim right
 * after the C pass and before the record helpers are inlined, then:
 *   - clones the instrumented function's blocks into it and strips the
 *     clone of everything the pass added (record calls, stores to the
 *     pass's slots, and what only fed them): the plain copy;
 *   - puts a new entry block in front: `if (flag) instrumented else plain`;
 *   - on a feedback set of the plain copy's path starts (the restarts on
 *     back edges, and on calls in loops whose back edge is no cut) checks
 *     the flag, and when set enters the instrumented copy right at the
 *     matching restart store, after reloading the cursor slot and zeroing
 *     the run slots: the first path recorded is a path of the ordinary
 *     numbering, from that block.  Loops that end by themselves (bounded
 *     or mustprogress, calling nothing, nothing volatile or atomic) are
 *     left out: a frame in one switches at the first test after it;
 *   - repairs SSA for the values the instrumented copy now reaches from
 *     the plain one (their plain twins, or recomputed fid words);
 *   - where only the entry tests, moves the instrumented copy to a private
 *     function NAME.wpp that the entry's test tail-calls, so that the
 *     plain copy keeps plain's prologue.
 * The flag is one private byte per TU (`__wpp_on`), handed to the runtime
 * by a constructor (`__wpp_register_dual`, trace_abi.h).
 *
 * Metadata contract between the two halves:
 *   WPP_DUAL_MD_FN    on the function: build its plain copy
 *   WPP_DUAL_MD_START on a store that restarts the path register (a path
 *                     start): !{i32 1} when a back edge leads there, else !{i32 0}
 *   WPP_DUAL_MD_CUR   on the cursor slot alloca: reloaded on entering
 *   WPP_DUAL_MD_ZERO  on a run slot alloca: zeroed on entering
 */
#ifndef WPP_INSTRUMENT_IR_DUAL_H
#define WPP_INSTRUMENT_IR_DUAL_H

#include <llvm-c/Core.h>

#define WPP_DUAL_MD_FN	  "wpp.dual"
#define WPP_DUAL_MD_START "wpp.start"
#define WPP_DUAL_MD_CUR	  "wpp.cur"
#define WPP_DUAL_MD_ZERO  "wpp.zero"
#define WPP_DUAL_FLAG	  "__wpp_on"
#define WPP_DUAL_REGISTER "__wpp_register_dual" /* void (uint8_t *flag) */

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the driver asked for dual builds (WPP_DUAL=1). */
int wpp_dual_from_env(void);

/* Tags inst (an instruction or a function) with !kind !{i32 arg}. */
void wpp_dual_tag(LLVMValueRef v, const char *kind, int arg);

/* Builds the plain copies of the module's tagged functions (ir_dual.cpp).
 * Returns the number of functions made dual. */
unsigned wpp_dual_module(LLVMModuleRef m);

#ifdef __cplusplus
}
#endif

#endif
