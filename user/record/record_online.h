/* SPDX-License-Identifier: MIT */
/*
 * record_online.h — which analyses run inside the collector while recording
 * (decided by the options), and their setup and teardown around the sink.
 * The grammar (SEQUITUR(1) per thread) is built by default on a worker
 * thread fed by a bounded queue, so the drain thread never waits on it
 * (user/collect/online_worker.h); --no-grammar turns it off, and
 * `wpptrace wpp` builds the same grammar from the recorded batches for
 * threads whose grammar was not stored.
 */
#ifndef WPP_RECORD_ONLINE_H
#define WPP_RECORD_ONLINE_H

#include "record/record_opts.h"
#include "wpp/wpp_file.h"

struct record_sink;

/* 0, or -1 with a message printed. */
int record_online_start(struct record_sink *rs, const struct record_opts *o);
/* After wpp_online_finish: 0, or -1 if an analysis could not finish a thread. */
int record_online_check(struct record_sink *rs);
void record_online_stop(struct record_sink *rs);
/* Every PROCESS and MODULE chunk, right after it is written (before any batch
 * of that image reaches the analyses): per-activation k-path forests learn
 * path kinds from the modules' metadata. */
void record_online_process(struct record_sink *rs, const struct wpp_chunk_process *p);
void record_online_module(struct record_sink *rs, const struct wpp_chunk_module *m,
			  const char *path);

#endif
