/* SPDX-License-Identifier: MIT */
/*
 * record_online.h — which analyses run inside the collector while recording
 * (decided by the options), and their setup and teardown around the sink.
 * The grammar (SEQUITUR(1) per thread) runs with --grammar: online it costs
 * the collector ~75 ns a word today, which a fast producer turns into BPF
 * ring overruns, so it is not the default until construction keeps up
 * (docs/sequitur.md); `wpptrace wpp` builds the same grammar from the
 * recorded batches.
 */
#ifndef WPP_RECORD_ONLINE_H
#define WPP_RECORD_ONLINE_H

#include "record_opts.h"

struct record_sink;

/* 0, or -1 with a message printed. */
int record_online_start(struct record_sink *rs, const struct record_opts *o);
/* After wpp_online_finish: 0, or -1 if an analysis could not finish a thread. */
int record_online_check(struct record_sink *rs);
void record_online_stop(struct record_sink *rs);

#endif
