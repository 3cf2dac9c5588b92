/* SPDX-License-Identifier: MIT */
/*
 * wpp_counter_records.h — records and map values of the counter programs
 * (bpf/wpp_counters.bpf.c), shared with the collector
 * (user/bpfcollect/perf_*.c) and nothing else.  docs/counters.md.
 *
 * One ring carries both kinds of record: a SAMPLE per sampling-event
 * overflow in a traced thread (where the thread stood in its record
 * stream, its user ip, the period), and a COUNT per counted event per
 * published batch (the counter's change while the thread filled it).
 */
#ifndef WPP_COUNTER_RECORDS_H
#define WPP_COUNTER_RECORDS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#include "bpf/wpp_position_records.h"

/* Events of one recording; indexes fit the sample record's u16. */
#define WPP_MAX_COUNTERS 8

enum wpp_crec_kind {
	WPP_CREC_SAMPLE = 1,
	WPP_CREC_COUNT = 2,
};

/* pos/flags values are those of struct wpp_sample (wpp/wpp_file.h). */
struct wpp_crec_sample {
	__u32 kind;
	__u32 pid;
	__u32 tid;
	__u16 counter;
	__u8 pos;
	__u8 depth;
	__u64 seq;
	__u32 word;
	__u32 flags;
	__u64 ip;
	__u64 value;
	__u64 time_ns;
	/* With SAMPLE_REGS in flags: the interrupted user registers in DWARF
	 * numbering (struct wpp_sample_regs, wpp/wpp_file.h). */
	__u64 regs[16];
};

struct wpp_crec_count {
	__u32 kind;
	__u32 pid;
	__u32 tid;
	__u32 counter;
	__u64 seq;
	__u64 count;
	__u64 enabled;
	__u64 running;
};

/* A counter reading: value, time enabled, time running. */
struct wpp_bpf_reading {
	__u64 counter, enabled, running;
};

/* Per-thread counting state: totals over the thread's finished on-CPU
 * stretches, and what the last batch's record said. */
struct wpp_bpf_thread_counts {
	struct wpp_bpf_reading acc[WPP_MAX_COUNTERS];	  /* summed over finished stretches */
	struct wpp_bpf_reading emitted[WPP_MAX_COUNTERS]; /* the total at the last batch */
};

/* Per CPU: the task that the last context switch seen on this CPU put on
 * it, and the counters' readings at that switch (the stretch's start). */
struct wpp_bpf_cpu_stretch {
	struct wpp_bpf_reading start[WPP_MAX_COUNTERS];
	__u32 tid;
	__u32 valid; /* start was read (every counter) */
};

/* Per-CPU statistics, summed by user space. */
struct wpp_bpf_counter_stats {
	__u64 samples;		    /* sample records emitted (all positions) */
	__u64 samples_unregistered; /* traced process, thread without a descriptor */
	__u64 samples_foreign;	    /* other processes (ignored) */
	__u64 ring_lost;	    /* sample/count records that found the ring full */
	__u64 read_failures;	    /* bpf_perf_event_read_value failed */
	__u64 counts;		    /* count records emitted */
	__u64 threads;		    /* descriptors registered */
	__u64 bad_descriptors;	    /* unreadable or wrong magic */
	__u64 unseen_stretches;	    /* a traced thread ran with no context switch
				     * seen that put it on the CPU: its events
				     * since then are missing from the counts */
};

#endif
