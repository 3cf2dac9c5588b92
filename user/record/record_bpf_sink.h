/* SPDX-License-Identifier: MIT */
/*
 * record_bpf_sink.h — turns the BPF collector's events (bpfcollect.h) into
 * .wpp chunks and keeps the totals for END.  The collector serialises its
 * callbacks, so the writer needs no lock.
 */
#ifndef WPP_RECORD_BPF_SINK_H
#define WPP_RECORD_BPF_SINK_H

#include "bpfcollect/bpfcollect.h"
#include "record/record_sink.h"

/* The collector callbacks bound to rs (the shm sink's state struct). */
struct bc_callbacks record_bpf_sink(struct record_sink *rs);

#endif
