/* SPDX-License-Identifier: MIT */
/*
 * perf_events.h — event names as perf spells them, turned into
 * perf_event_attr type/config: hardware (cycles, instructions,
 * cache-misses, ...), hardware cache (L1-dcache-load-misses, LLC-loads,
 * dTLB-store-misses, ...), software (cpu-clock, page-faults, ...) and raw
 * (rNNNN, hex).  A ":u" or ":k" suffix counts only user or kernel mode.
 */
#ifndef WPP_BC_PERF_EVENTS_H
#define WPP_BC_PERF_EVENTS_H

#include <stdint.h>
#include <stdio.h>

#include "wpp/wpp_file.h"

struct pc_event {
	char name[WPP_COUNTER_NAME_MAX]; /* as given, modifiers included */
	uint32_t type;			 /* PERF_TYPE_* */
	uint64_t config;
	int exclude_user, exclude_kernel;
};

/* 0, or -EINVAL with one line naming the event and how to list them. */
int pc_event_parse(const char *name, struct pc_event *ev);
/* Does the event need a hardware PMU (hardware, cache and raw events)? */
int pc_event_needs_pmu(const struct pc_event *ev);
/* Every name pc_event_parse knows, one per line, grouped by kind. */
void pc_events_list(FILE *out);
/* The software events, comma-separated (for the no-PMU message). */
const char *pc_software_names(void);

#endif
