/* SPDX-License-Identifier: MIT */
/*
 * streams.h — test streams of path labels and segment marks.
 */
#ifndef WPP_TEST_KSLAB_STREAMS_H
#define WPP_TEST_KSLAB_STREAMS_H

#include <stddef.h>
#include <stdint.h>

struct ev {
	int mark;     /* 1: a segment mark, fid/value unused */
	uint32_t fid; /* >= 1 */
	uint64_t value;
	uint64_t at; /* act_streams: index of the record in act_run.ev */
};

/* Uniform labels from nfids x nvalues, a mark with probability mark_pct %. */
size_t stream_random(uint64_t seed, struct ev *out, size_t n, unsigned nfids, unsigned nvalues,
		     unsigned mark_pct);
/* Loop-shaped: nested loops whose bodies pick one of a few paths with skewed
 * odds, calls into other "functions", occasional marks; values may be wide. */
size_t stream_loopy(uint64_t seed, struct ev *out, size_t n);

uint64_t test_rand(uint64_t *state);

#endif
