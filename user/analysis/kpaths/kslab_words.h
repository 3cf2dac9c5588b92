/* SPDX-License-Identifier: MIT */
/*
 * kslab_words.h — raw trace words as k-path items and segment marks, for a
 * k-slab forest (flat) or an activation splitter (kslab_act.h) behind a
 * small sink.
 *
 * The words are read by the shared reader (user/decode/trace_words.h: the
 * REPEAT state machine, signal depths, malformed and cut-short records), so
 * the k-path forest, the path grammar and the decoder see the same records
 * on every input.  Here they become:
 *   a record, or a REPEAT's n instances     item (fid, value), `times` of it
 *   a record of an unregistered fid         mark (whose path it is is
 *                                           unknown; its REPEATs too)
 *   a gap, a malformed word, a REPEAT with nothing to repeat   mark
 * which are the decoder's event rules (user/decode/decoder.c), so a forest
 * built online from words equals one built offline from decoder events
 * (kipf_build.h).  The one rule raw words cannot apply is "block index out
 * of range" (it needs metadata): such a blocks-mode record is an item
 * online and a mark offline.
 */
#ifndef WPP_KSLAB_WORDS_H
#define WPP_KSLAB_WORDS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/kpaths/kslab.h"
#include "decode/trace_words.h"

/* Where items and marks go.  items(): `times` >= 1 consecutive records of
 * one label; 0 or -1 (out of memory). */
struct kslab_words_sink {
	int (*items)(void *ctx, uint32_t fid, uint64_t value, uint64_t times);
	void (*mark)(void *ctx);
	void *ctx;
};

struct kslab_words {
	struct kslab_words_sink sink;
	struct wpp_words words;
	uint64_t repeats;      /* records expanded from REPEAT words */
	uint64_t unattributed; /* records of REPEATs with no record before them */
};

/* r must stay where it is while in use (the reader points back to it). */
void kslab_words_init(struct kslab_words *r, struct kslab_words_sink sink);
/* Feed words[0..n) of one signal depth (0 = the thread's main stream); a
 * two-word record must not be split across calls.  0, or -1 if the sink
 * ran out of memory. */
int kslab_words_feed(struct kslab_words *r, const uint64_t *words, size_t n, uint32_t signal_depth);
/* Words were lost between two calls: a mark. */
void kslab_words_gap(struct kslab_words *r);

/* A sink that feeds one k-SF as a single stream (the flat view). */
struct kslab_words_sink kslab_flat_sink(struct kslab *s);

#endif
