/* SPDX-License-Identifier: MIT */
/*
 * perf_counters.h — hardware/software counters for the traced threads,
 * riding along with the BPF transport (docs/counters.md).
 *
 * Events are opened per CPU with perf_event_open (system-wide counters,
 * filtered in BPF to the traced threads, which also covers threads and
 * children started later).  Each sampling overflow runs a BPF program
 * that reads where the interrupted thread stands in its record stream
 * (user/runtime/wpp_position.h) and emits a struct wpp_sample; in counting
 * mode each published batch emits, per event, the counter's change while
 * the thread filled it (struct wpp_count, per-thread totals kept from the
 * per-CPU counters at every context switch).
 *
 * Callbacks run with the collector's lock held (bc_extension), so they may
 * write the same file as the transport's callbacks.
 */
#ifndef WPP_BC_PERF_COUNTERS_H
#define WPP_BC_PERF_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#include "bpfcollect/bpfcollect.h"
#include "bpfcollect/perf_events.h"
#include "bpf/wpp_counter_records.h"

#define PC_DEFAULT_FREQ 4000u

struct pc_options {
	struct pc_event events[WPP_MAX_COUNTERS];
	uint32_t nevents;
	uint64_t period; /* -c: sample every N events (0: use freq) */
	uint32_t freq;	 /* -F: samples per second per CPU (0: PC_DEFAULT_FREQ) */
	bool no_sample;	 /* counting only */
	bool no_count;	 /* sampling only */
};

struct pc_callbacks {
	void *ctx;
	/* regs: the sample's user registers when s->flags has
	 * WPP_SAMPLE_REGS, else NULL. */
	void (*sample)(void *ctx, const struct wpp_sample *s, const struct wpp_sample_regs *regs);
	void (*count)(void *ctx, const struct wpp_count *k);
};

struct pc_stats {
	uint64_t samples;	/* delivered (any position) */
	uint64_t unregistered;	/* of samples: thread without a position descriptor */
	uint64_t foreign;	/* samples of other processes (ignored) */
	uint64_t ring_lost;	/* records the ring had no room for */
	uint64_t read_failures; /* counter reads that failed in BPF */
	uint64_t counts;	/* count records delivered */
	uint64_t threads;	/* descriptors registered */
	uint64_t bad_descriptors;
	uint64_t unseen_stretches; /* traced threads ran with no switch-in seen */
	/* Times the kernel throttled each event's sampling (perf_throttle.h):
	 * samples are missing from those stretches. */
	uint64_t throttled[WPP_MAX_COUNTERS];
	uint64_t throttle_records_lost; /* throttles that went uncounted */
};

struct pc_session;

/* Load the counter programs next to collector c, open the events on every
 * CPU and hook into c (bc_set_extension).  NULL after one line saying why:
 * an event this machine cannot count (no PMU: the line names the software
 * events that work), no permission, missing kernel support. */
struct pc_session *pc_open(struct bc_collector *c, const struct pc_options *o,
			   const struct pc_callbacks *cb);
/* The COUNTERS table of the recording. */
uint32_t pc_describe(const struct pc_session *s, struct wpp_counter_desc *out);
/* Restart any sampling event the kernel has throttled (perf_throttle.h):
 * called right before the recorder lets its program run, so a CPU that
 * idled with its tick stopped does not miss the program's first ticks. */
void pc_rearm(struct pc_session *s);
/* Stop the events and deliver what is left (after bc_finish). */
void pc_finish(struct pc_session *s, struct pc_stats *st);
void pc_close(struct pc_session *s);

#endif
