/* SPDX-License-Identifier: MIT */
/*
 * wpp_pass.h — the pass as the plugin shim sees it: one call per module,
 * run at the end of the optimization pipeline (after inlining).  Reads the
 * mode from the environment variable WPP_MODE ("paths" or "blocks"), set by
 * wppcc.
 */
#ifndef WPP_INSTRUMENT_WPP_PASS_H
#define WPP_INSTRUMENT_WPP_PASS_H

#include <llvm-c/Core.h>

#ifdef __cplusplus
extern "C" {
#endif

void wpp_instrument_module(LLVMModuleRef m);

#ifdef __cplusplus
}
#endif

#endif
