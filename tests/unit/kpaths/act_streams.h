/* SPDX-License-Identifier: MIT */
/*
 * act_streams.h — random runs of a program with nested routine activations,
 * for the per-activation view (kslab_act.h): the record stream a thread
 * would produce (labels with entry/return kinds, marks) and, independently,
 * the ground truth the generator knows — each activation's own sequence of
 * paths, cut where a mark fell.  The truth is built from the simulated call
 * stack, not from the records, so it shares no rule with kslab_act.c.
 *
 * The run has calls (instrumented callees, recursion), calls into
 * uninstrumented code (the caller's next path resumes), callbacks and
 * signal handlers (activations entered while the interrupted one is mid-
 * path), returns, longjmps to an outer activation (the ones in between
 * end without a return path) and marks.  A longjmp only targets the
 * innermost live activation of its function: for an outer one the records
 * do not say which activation resumed (kslab_act.h).
 */
#ifndef WPP_TEST_KSLAB_ACT_STREAMS_H
#define WPP_TEST_KSLAB_ACT_STREAMS_H

#include <stddef.h>
#include <stdint.h>

#include "streams.h"

struct act_ev {
	int mark;
	uint32_t fid;
	uint64_t value;
	unsigned flags; /* KACT_ENTRY | KACT_RETURN */
};

struct act_run {
	struct act_ev *ev; /* the records, in order */
	size_t n, cap;
	struct ev **segs;  /* truth: one label sequence per activation segment */
	size_t *seg_len, *seg_cap;
	size_t nsegs, segs_cap;
	uint64_t longjmps, signals, marks, max_depth;
};

/* About n records over fids 1..nfids with nvalues path ids each. */
void act_run_generate(struct act_run *r, uint64_t seed, size_t n, unsigned nfids,
		      unsigned nvalues);
void act_run_free(struct act_run *r);

#endif
