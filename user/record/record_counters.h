/* SPDX-License-Identifier: MIT */
/*
 * record_counters.h — counters in `wpptrace record` (docs/counters.md):
 * the COUNTERS chunk, then samples and per-batch counts gathered into
 * SAMPLES (each followed by its SAMPLE_REGS) and COUNTS chunks as they arrive from the counter
 * session (user/bpfcollect/perf_counters.h).
 */
#ifndef WPP_RECORD_COUNTERS_H
#define WPP_RECORD_COUNTERS_H

#include "bpfcollect/perf_counters.h"
#include "record/record_sink.h"

#define RECORD_SAMPLES_PER_CHUNK 4096u

struct record_counters {
	struct record_sink *rs;
	struct pc_session *session;
	struct wpp_sample samples[RECORD_SAMPLES_PER_CHUNK];
	uint32_t nsamples;
	/* the registers of the samples with WPP_SAMPLE_REGS, in order */
	struct wpp_sample_regs regs[RECORD_SAMPLES_PER_CHUNK];
	uint32_t nregs;
	struct wpp_count counts[RECORD_SAMPLES_PER_CHUNK];
	uint32_t ncounts;
	uint64_t by_pos[8]; /* samples by enum wpp_sample_pos */
};

/* Open the counter session on c and write the COUNTERS chunk.  0, or -1
 * after one line (no PMU, no permission, ...). */
int record_counters_start(struct record_counters *rc, struct bc_collector *c,
			  const struct pc_options *o, struct record_sink *rs);
/* Right before the traced program is let run (pc_rearm). */
void record_counters_rearm(struct record_counters *rc);
/* After bc_finish: the last samples and counts, one summary line unless quiet. */
void record_counters_finish(struct record_counters *rc, int quiet);
void record_counters_close(struct record_counters *rc);

#endif
