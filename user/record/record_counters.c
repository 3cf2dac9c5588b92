/* SPDX-License-Identifier: MIT */
#include "record/record_counters.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

static void flush_samples(struct record_counters *rc)
{
	struct record_sink *rs = rc->rs;
	if (rc->nsamples && !rs->failed) {
		struct wpp_chunk_samples h = {.nsamples = rc->nsamples};
		if (wppw_chunk2(rs->w, WPP_CHUNK_SAMPLES, &h, sizeof(h), rc->samples,
				rc->nsamples * (uint32_t)sizeof(rc->samples[0])) < 0)
			rs->failed = 1;
	}
	/* Right after its SAMPLES chunk (wpp/wpp_file.h). */
	if (rc->nsamples && rc->nregs && !rs->failed) {
		struct wpp_chunk_sample_regs h = {.nsamples = rc->nregs, .arch = WPP_REGS_X86_64};
		if (wppw_chunk2(rs->w, WPP_CHUNK_SAMPLE_REGS, &h, sizeof(h), rc->regs,
				rc->nregs * (uint32_t)sizeof(rc->regs[0])) < 0)
			rs->failed = 1;
	}
	rc->nsamples = 0;
	rc->nregs = 0;
}

static void flush_counts(struct record_counters *rc)
{
	struct record_sink *rs = rc->rs;
	if (rc->ncounts && !rs->failed) {
		struct wpp_chunk_counts h = {.ncounts = rc->ncounts};
		if (wppw_chunk2(rs->w, WPP_CHUNK_COUNTS, &h, sizeof(h), rc->counts,
				rc->ncounts * (uint32_t)sizeof(rc->counts[0])) < 0)
			rs->failed = 1;
	}
	rc->ncounts = 0;
}

static void on_sample(void *ctx, const struct wpp_sample *s, const struct wpp_sample_regs *regs)
{
	struct record_counters *rc = ctx;
	rc->by_pos[s->pos < 8 ? s->pos : 0]++;
	rc->samples[rc->nsamples] = *s;
	if (regs)
		rc->regs[rc->nregs++] = *regs;
	else
		rc->samples[rc->nsamples].flags &= ~(uint32_t)WPP_SAMPLE_REGS;
	rc->nsamples++;
	if (rc->nsamples == RECORD_SAMPLES_PER_CHUNK)
		flush_samples(rc);
}

static void on_count(void *ctx, const struct wpp_count *k)
{
	struct record_counters *rc = ctx;
	rc->counts[rc->ncounts++] = *k;
	if (rc->ncounts == RECORD_SAMPLES_PER_CHUNK)
		flush_counts(rc);
}

int record_counters_start(struct record_counters *rc, struct bc_collector *c,
			  const struct pc_options *o, struct record_sink *rs)
{
	struct pc_callbacks cb = {rc, on_sample, on_count};
	struct wpp_counter_desc desc[WPP_MAX_COUNTERS];

	rc->rs = rs;
	rc->session = pc_open(c, o, &cb);
	if (!rc->session)
		return -1;
	uint32_t n = pc_describe(rc->session, desc);
	struct wpp_chunk_counters h = {.ncounters = n, .scope = 0};
	if (wppw_chunk2(rs->w, WPP_CHUNK_COUNTERS, &h, sizeof(h), desc,
			n * (uint32_t)sizeof(desc[0])) < 0) {
		wpp_err("record: cannot write the counter table: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void record_counters_rearm(struct record_counters *rc)
{
	if (rc && rc->session)
		pc_rearm(rc->session);
}

/* Throttled sampling is said on stderr and kept in the file (an INFO line
 * per event, shown by `wpptrace info`): its samples are missing. */
static void report_throttling(struct record_counters *rc, const struct pc_stats *st)
{
	struct wpp_counter_desc desc[WPP_MAX_COUNTERS];
	uint32_t n = pc_describe(rc->session, desc);
	char line[256];
	for (uint32_t e = 0; e < n; e++) {
		if (!st->throttled[e])
			continue;
		wpp_warn("counters: the kernel throttled '%s' sampling %" PRIu64
			 " times (more overflows per tick than kernel.perf_event_max_sample_rate "
			 "allows): samples are missing there; a longer period avoids it",
			 desc[e].name, st->throttled[e]);
		int len = snprintf(line, sizeof(line), "throttled.%s=%" PRIu64 "\n", desc[e].name,
				   st->throttled[e]);
		if (!rc->rs->failed &&
		    wppw_chunk(rc->rs->w, WPP_CHUNK_INFO, line, (uint32_t)len) < 0)
			rc->rs->failed = 1;
	}
	if (st->throttle_records_lost)
		wpp_warn("counters: %" PRIu64 " throttling notices were lost (more than counted)",
			 st->throttle_records_lost);
}

void record_counters_finish(struct record_counters *rc, int quiet)
{
	struct pc_stats st;
	if (!rc->session)
		return;
	pc_finish(rc->session, &st);
	flush_samples(rc);
	flush_counts(rc);
	if (st.ring_lost)
		wpp_warn("counters: %" PRIu64 " samples or counts lost (counter ring full)",
			 st.ring_lost);
	/* Per-batch counts that may be low are never silent. */
	if (st.read_failures)
		wpp_warn("counters: %" PRIu64
			 " counter reads failed in BPF (per-batch counts are low)",
			 st.read_failures);
	report_throttling(rc, &st);
	if (st.unseen_stretches)
		wpp_warn("counters: %" PRIu64
			 " times a traced thread was found running with no context "
			 "switch seen that put it on its CPU (per-batch counts are low)",
			 st.unseen_stretches);
	if (!quiet) {
		uint64_t unknown = rc->by_pos[WPP_POS_UNKNOWN] + rc->by_pos[WPP_POS_DISCARD];
		wpp_info("counters: %" PRIu64 " samples (%" PRIu64
			 " without a stream position), %" PRIu64 " per-batch counts, %" PRIu64
			 " threads registered",
			 st.samples, unknown, st.counts, st.threads);
	}
	/* A runtime whose position descriptor this collector does not know
	 * leaves every sample of its threads without a position: say so. */
	if (st.bad_descriptors)
		wpp_warn(
		    "counters: %" PRIu64 " threads announced a position descriptor this collector "
		    "cannot read (libwpprt from another version?); their samples are unattributed",
		    st.bad_descriptors);
}

void record_counters_close(struct record_counters *rc)
{
	if (rc->session)
		pc_close(rc->session);
	rc->session = NULL;
}
