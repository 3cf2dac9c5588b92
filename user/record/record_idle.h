/* SPDX-License-Identifier: MIT */
/*
 * record_idle.h — does the machine have a CPU to spare for the collector's
 * coder thread (wpp_batch_group_pipeline)?  From /proc/stat: the CPUs'
 * idle time over the last window of at least 100 ms, as a number of CPUs.
 * A second coder thread pays only where a CPU would otherwise sit idle
 * (the program single-threaded on a bigger machine, the backlog after the
 * program ended); on a busy machine it would take CPU from the program.
 */
#ifndef WPP_RECORD_IDLE_H
#define WPP_RECORD_IDLE_H

#include <stdint.h>

struct record_idle {
	uint64_t at_ns;			/* the window's start (0: none yet) */
	unsigned long long idle, total; /* /proc/stat's sums then, in ticks */
	double idle_cpus;		/* over the last whole window */
	int on;				/* the last answer */
};

/* 1 when the coder thread should run: about a whole CPU idle (3/4 of
 * one) turns it on, less than a quarter of one turns it off (it uses
 * some itself); the answer changes at most once a window.  0 where
 * /proc/stat cannot be read. */
int record_idle_spare_cpu(struct record_idle *ri, uint64_t now_ns);

#endif
