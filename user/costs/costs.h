/* SPDX-License-Identifier: MIT */
/*
 * costs.h — counter samples of a trace attributed to path executions
 * (docs/counters.md).
 *
 * A sample says where its thread stood in its own record stream (batch
 * seq and word, or "the next batch of this signal depth") when the counter
 * overflowed; the path executing then is the one whose record is written
 * at that position.  cost_attribute() resolves each position to a batch
 * and word, decodes the thread, and hands back one hit per sample that
 * landed on a path (or block) record, with the record's place in the
 * thread's event stream.  Everything else is counted as unattributed, by
 * reason (enum cost_miss).  A run (WPP_CTRL_REPEAT) stands for several
 * events at the REPEAT word's position, numbered one by one (hit.event)
 * but decoded whole (WPP_DECODE_RUNS): the work is per trace word, not
 * per execution.  A sample there lands on the repetition the run's count
 * in its registers names, or on the record after the run (cost_run_end.h,
 * run_count_at); where the count cannot be read, on the first repetition,
 * once, unless its ip shows it was taken in the iteration that ended the
 * run: then on the record after the run.
 *
 * Per-path costs from samples are estimates (each sample stands for its
 * period's worth of events); per-batch counts (COUNTS chunks) give exact
 * totals, scaled for multiplexing.
 */
#ifndef WPP_REPORT_COSTS_H
#define WPP_REPORT_COSTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/json_out.h"
#include "decode/decoder.h"
#include "decode/module_map.h"
#include "decode/trace_file.h"
#include "wpp/wpp_file.h"

struct cost_data {
	struct wpp_counter_desc *counters;
	uint32_t ncounters;
	struct wpp_sample *samples;
	size_t nsamples;
	/* Registers of the samples (SAMPLE_REGS chunks): sample i has
	 * regs[regs_at[i]] when its flags have WPP_SAMPLE_REGS (the loader
	 * clears the flag of a sample whose registers are missing). */
	struct wpp_sample_regs *regs;
	uint32_t *regs_at;
	size_t nregs;
	struct wpp_count *counts;
	size_t ncounts;
	uint64_t bad_chunks; /* malformed counter chunks skipped */
};

/* Read COUNTERS/SAMPLES/COUNTS chunks.  0 (also when there are none), -1
 * on allocation failure (message printed). */
int cost_load(struct wpp_trace *t, struct cost_data *out);
void cost_data_free(struct cost_data *cd);

struct cost_hit {
	uint32_t pid, gen, tid;
	const struct wpp_fn *fn; /* NULL for an unattributed record */
	uint32_t fid;
	uint64_t value; /* path id (or block index) */
	int is_block;
	uint64_t event;	 /* ordinal of the record among the thread's PATH/BLOCK events */
	uint64_t weight; /* events this sample stands for */
	uint64_t ip;
	uint32_t thread; /* index into the trace's threads */
};

/* Why a sample landed on no path (docs/counters.md, "Unattributed
 * samples").  The first three are outside the thread's recording: no path
 * ran there to be charged.  The others are misses while it recorded. */
enum cost_miss {
	COST_MISS_BEFORE_IMAGE,	 /* before the program's image began (the recorder's
				  * child before its exec, or a previous image) */
	COST_MISS_NOT_RECORDING, /* start-up: the thread had not recorded yet */
	COST_MISS_AFTER_END,	 /* after the thread's last record (exit, teardown) */
	COST_MISS_LOST,		 /* in a batch the transport lost */
	COST_MISS_NO_POSITION,	 /* inside the runtime's buffer switch, or unreadable */
	COST_MISS_DISCARD,	 /* the runtime was discarding the thread's records */
	COST_MISS_NO_RECORD,	 /* in a present batch, but no record starts there */
	COST_MISS_NOT_A_PATH,	 /* the record there is not an attributable path */
	COST_MISS_NO_THREAD,	 /* the trace has no such thread */
	COST_MISS_N
};
#define COST_MISS_OUTSIDE_RECORDING(m) ((m) <= COST_MISS_AFTER_END)

struct cost_attribution {
	uint32_t counter;
	struct cost_hit *hits; /* by thread, then event */
	size_t nhits;
	uint64_t samples, weight;     /* of the selected threads' processes */
	uint64_t missed[COST_MISS_N]; /* samples not attributed, by reason */
	uint64_t missed_weight;
	uint64_t counted; /* exact total from COUNTS (scaled); 0 if none */
	int has_counts;
};

/* Attribute counter's samples of the threads selected by pid/tid
 * (negative = any).  0, or -1 on allocation failure. */
int cost_attribute(const struct wpp_trace *t, struct wpp_modules *mods, const struct cost_data *cd,
		   uint32_t counter, long pid, long tid, struct cost_attribution *out);
void cost_attribution_free(struct cost_attribution *a);

/* A counter's estimated events per execution of each terminal of the
 * grammar of thread (pid, gen, tid): the events attributed to the thread's
 * executions of that path (or block: is_block[t]) divided by freq[t], its
 * number of executions, rounded to the nearest integer (0 if it never
 * ran).  0, or -1 on allocation failure. */
int cost_per_terminal(const struct cost_attribution *a, uint32_t pid, uint32_t gen, uint32_t tid,
		      const struct wpp_grammar_terminal *terms, const int *is_block,
		      const uint64_t *freq, uint32_t nterm, uint64_t *cost);

/* What a miss class means, in words ("in lost batches"). */
const char *cost_miss_text(enum cost_miss m);
/* The class's stable JSON key ("lost_batches"). */
const char *cost_miss_key(enum cost_miss m);

/* The figures of the summary line, for the JSON outputs and `wpptrace
 * info`: every sample is on a path or in exactly one class. */
struct cost_tally {
	char counter[WPP_COUNTER_NAME_MAX];
	uint64_t period; /* sample period, or the frequency when freq */
	int freq;
	uint64_t samples;	  /* all samples of the selected threads' processes */
	uint64_t on_paths;	  /* samples that landed on a path or block record */
	uint64_t events_on_paths; /* the events they stand for (the estimate) */
	uint64_t recording;	  /* samples taken while a thread recorded */
	uint64_t unattributed;	  /* of those, on no path */
	uint64_t outside;	  /* samples outside recording */
	uint64_t missed[COST_MISS_N];
	int has_counts;
	uint64_t counted; /* exact total from the per-batch counts (scaled) */
};
void cost_tally_of(const struct cost_data *cd, const struct cost_attribution *a,
		   struct cost_tally *out);
/* The member key (NULL in an array) of document j: one compact JSON
 * object, whatever j's spacing, keys stable (docs/counters.md, "JSON"):
 * counter, estimated, period or frequency_hz, samples, samples_on_paths,
 * events_on_paths, samples_while_recording, unattributed_while_recording,
 * unattributed_percent, outside_recording, by_class {key: n for every
 * class, zeros included}, counted (null without per-batch counts). */
void cost_tally_json(struct json_out *j, const char *key, const struct cost_tally *t);

/* One line: "cache-misses: ~N on paths, estimated from S samples (...);
 * M of the R samples taken while recording unattributed (P%) [per class];
 * O outside recording [per class]; counted exactly per batch: C" */
void cost_summary(char *buf, size_t len, const struct cost_data *cd,
		  const struct cost_attribution *a);

#endif
