/* SPDX-License-Identifier: MIT */
/*
 * kslab_act.h — the per-activation view of k-paths (docs/kpaths.md, "How a
 * k-path is cut at calls and returns"): a k-path is a run of up to k
 * consecutive acyclic paths of ONE routine activation, as in the paper,
 * where each activation has its own BL path stream started by a
 * routine-entry marker.
 *
 * Our thread streams interleave activations: a path ends before every call
 * and the callee's paths follow, then the caller resumes with a path that
 * starts at the call block.  This module splits them again with a stack of
 * k-SF streams (kslab_push/pop), one per live activation, from what each
 * path record says about itself:
 *
 *   KACT_ENTRY  the path starts at its function's entry: a new activation
 *               (pushed, whatever the stream was doing: a call, a signal
 *               handler, a callback from uninstrumented code);
 *   otherwise   the path continues an activation of its function: the
 *               innermost live one with that fid.  Activations above it
 *               ended without a return path (longjmp, exception, a handler
 *               that jumped out) and are dropped (unwound).  If no live
 *               activation has that fid, its entry was before the thread's
 *               first record or before the last mark, so it is outer to
 *               every live activation (those were entered or resumed after
 *               it): all are dropped and it starts a new stream;
 *   KACT_RETURN the path ends at a return: its activation ends (popped).
 *
 * Paths whose kinds are unknown (blocks-mode records, functions without
 * metadata) pass KACT_UNKNOWN: such a record may be a callee's first, so
 * when no live activation has its fid, a new one is pushed on top instead
 * (a call), and otherwise it continues or unwinds as above.  A mark (lost
 * words, corrupt record, unknown module) forgets every activation: what
 * the stack held across it is unknown.
 *
 * With recursion, a longjmp into an outer activation of a function that is
 * also live further in lands in the innermost one: the trace does not say
 * which (docs/kpaths.md).
 */
#ifndef WPP_KSLAB_ACT_H
#define WPP_KSLAB_ACT_H

#include <stdint.h>

#include "analysis/kpaths/kslab.h"

enum kact_flags {
	KACT_ENTRY = 1u << 0,	/* the path starts at function entry */
	KACT_RETURN = 1u << 1,	/* the path ends at a return */
	KACT_UNKNOWN = 1u << 2, /* start and end kinds are not known */
};

struct kact {
	struct kslab *s;
	uint32_t *fids; /* fid of each live activation, outermost first */
	uint32_t depth, cap;
	uint64_t unwound; /* activations dropped without their return path */
};

/* s must outlive a; a starts with no live activation. */
void kact_init(struct kact *a, struct kslab *s);
void kact_fini(struct kact *a);
/* One path record (fid != 0).  0, or -1 on no memory. */
int kact_item(struct kact *a, uint32_t fid, uint64_t value, unsigned flags);
/* The same record `times` times in a row (a REPEAT run): exactly `times`
 * kact_item() calls.  A path that neither starts at entry nor ends at a
 * return continues its activation, so after the first one the rest is one
 * kslab_item_run() (O(k)); entry or return paths start or end an
 * activation each time and go one by one. */
int kact_item_run(struct kact *a, uint32_t fid, uint64_t value, unsigned flags, uint64_t times);
void kact_mark(struct kact *a);

#endif
