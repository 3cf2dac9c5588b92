/* SPDX-License-Identifier: MIT */
/*
 * record_sink.h — turns what the shm collector reports into .wpp chunks
 * (PROCESS, MODULE, THREAD, BATCH, GAP) and keeps the totals for END.
 */
#ifndef WPP_RECORD_SINK_H
#define WPP_RECORD_SINK_H

#include "shm_collector.h"
#include "wppfile.h"

struct record_sink {
	struct wpp_writer *w;
	struct wpp_chunk_end totals;
	uint64_t processes, threads, modules;
	int failed; /* a write failed: stop recording, keep the program running */
};

/* The collector callbacks bound to rs. */
struct wpp_shm_sink record_sink_ops(struct record_sink *rs);

#endif
