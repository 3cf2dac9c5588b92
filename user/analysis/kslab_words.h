/* SPDX-License-Identifier: MIT */
/*
 * kslab_words.h — read raw trace words (wpp/trace_abi.h) as k-path items
 * and segment marks, for a k-slab forest (flat) or an activation splitter
 * (kslab_act.h) behind a small sink.
 *
 * The item/mark rules are the decoder's event rules (user/decode/decoder.c)
 * restated for raw words, so a forest built online from words equals one
 * built offline from decoder events (kipf_build.h):
 *   fid 1..WPP_FID_MAX word          item (fid, payload)
 *   WIDE_PATH + id with mark bit     item (operand fid, id)
 *   REPEAT n                         the last record read at this signal
 *                                    depth, n more times (several REPEATs
 *                                    in a row add up); with none (stream
 *                                    start, after a gap or a malformed
 *                                    record) n unattributable records: a
 *                                    mark, counted in `unattributed`
 *   zero word, PAD                   nothing (they keep the last record)
 *   GAP + count, gap between calls   mark; forgets the last record of every
 *                                    depth
 *   unregistered fid, fid 0 in a wide record   mark (its REPEATs too)
 *   wide id without its mark bit, a wide/gap record cut short, unknown
 *   control word, REPEAT 0           mark; forgets this depth's last record
 * The one rule raw words cannot apply is "block index out of range" (it
 * needs metadata): such a blocks-mode record is an item online and a mark
 * offline.
 *
 * State is kept across calls: a REPEAT word may follow its record in the
 * next call (the next batch).  Records of a signal handler interleave with
 * the interrupted level's but never continue its run, so the last record
 * is kept per signal depth, as the decoder does; entering a deeper depth
 * forgets what deeper levels had (a new handler run).
 */
#ifndef WPP_KSLAB_WORDS_H
#define WPP_KSLAB_WORDS_H

#include <stddef.h>
#include <stdint.h>

#include "kslab.h"

/* Where items and marks go.  items(): `times` >= 1 consecutive records of
 * one label; 0 or -1 (out of memory). */
struct kslab_words_sink {
	int (*items)(void *ctx, uint32_t fid, uint64_t value, uint64_t times);
	void (*mark)(void *ctx);
	void *ctx;
};

/* Signal depths whose last record is kept (the runtime has far fewer); a
 * REPEAT at a deeper level counts as unattributable. */
#define KSLAB_WORDS_DEPTHS 16u

struct kslab_words_last {
	uint64_t value;
	uint32_t fid;
	int valid;
};

struct kslab_words {
	struct kslab_words_sink sink;
	struct kslab_words_last last[KSLAB_WORDS_DEPTHS];
	uint32_t depth;	       /* signal depth of the last call */
	uint64_t repeats;      /* records expanded from REPEAT words */
	uint64_t unattributed; /* records of REPEATs with no record before them */
};

void kslab_words_init(struct kslab_words *r, struct kslab_words_sink sink);
/* Feed words[0..n) of one signal depth (0 = the thread's main stream); a
 * two-word record must not be split across calls.  0, or -1 if the sink
 * ran out of memory. */
int kslab_words_feed(struct kslab_words *r, const uint64_t *words, size_t n,
		     uint32_t signal_depth);
/* Words were lost between two calls: a mark. */
void kslab_words_gap(struct kslab_words *r);

/* A sink that feeds one k-SF as a single stream (the flat view). */
struct kslab_words_sink kslab_flat_sink(struct kslab *s);

#endif
