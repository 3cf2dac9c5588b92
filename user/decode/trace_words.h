/* SPDX-License-Identifier: MIT */
/*
 * trace_words.h — the one reader of raw trace words (wpp/trace_abi.h) and
 * of the REPEAT state machine.  The decoder (over assembled segments), the
 * path grammar consumer and the k-path consumer (over the online
 * assembler's calls) all read words through it, so they agree on every
 * input, hostile ones included (docs/wpp-file-format.md, "Reading raw
 * words").
 *
 * Rules, word by word, at one signal depth:
 *   zero word, PAD                 nothing (transparent to REPEAT)
 *   value word (wet_abi.h)         a WET value slot, skipped by its shape
 *                                  (the escape marker takes the next word
 *                                  too); transparent to REPEAT.  The
 *                                  decoder reads a WET record's slots
 *                                  itself: one seen here follows no record
 *   fid 1.. record                 a path record (fid, payload); it becomes
 *                                  what a REPEAT at this depth repeats
 *   WIDE_PATH f + id|MARK          a path record (f, id), likewise
 *   REPEAT n (n >= 1)              n more instances of this depth's last
 *                                  record; several in a row add up.  With
 *                                  none: n unattributable instances
 *   GAP + count                    a gap of `count` lost words: forgets the
 *                                  last record of every depth
 *   malformed, one word each unless said:
 *     REPEAT 0; an unknown control op;
 *     WIDE_PATH naming fid 0 (the control fid) — two words;
 *     a wide id without its mark bit — two words;
 *     a WIDE_PATH or GAP word cut short: the last word of a call (the
 *     assembler never splits a pair of one depth across calls, so the
 *     next word, if any, is at another depth, after a gap, or absent)
 *   A malformed word forgets this depth's last record; a GAP word cut
 *   short forgets every depth's, as a whole gap marker does.
 *
 * Signal depths: a handler's records interleave with the interrupted
 * level's but never continue its run, so the last record is kept per depth;
 * coming to a deeper depth than the previous call's is a new handler run
 * and forgets that depth and those in between.  WPP_WORDS_DEPTHS depths
 * are tracked (the runtime nests WPP_SHM_LEVELS = 5); a record deeper than
 * that is still a record, but a REPEAT there is unattributable (only a
 * hostile file says so).
 *
 * What a record *is* (registered fid or not, valid path id or not) is the
 * consumer's business: the reader passes every record on.
 */
#ifndef WPP_TRACE_WORDS_H
#define WPP_TRACE_WORDS_H

#include <stddef.h>
#include <stdint.h>

#include "wpp/trace_abi.h"
#include "wpp/wet_abi.h"

#define WPP_WORDS_DEPTHS 16u

/* What the reader found.  records(): `times` >= 1 consecutive instances of
 * (fid, value); first_repeat = 0 for a record as written (times = 1), else
 * the index (1, 2, ...) of the first of `times` repetitions since the
 * record was written.  Returns 0, or -1 to stop (out of memory). */
struct wpp_words_sink {
	int (*records)(void *ctx, uint32_t fid, uint64_t value, uint64_t times,
		       uint64_t first_repeat);
	/* Words were lost (WPP_LOST_UNKNOWN-style counts are passed on). */
	void (*gap)(void *ctx, uint64_t lost_words);
	/* why is a static string; nwords the words the malformed item took. */
	void (*malformed)(void *ctx, const char *why, uint32_t nwords);
	/* A REPEAT of n with nothing to repeat. */
	void (*unattributable)(void *ctx, uint64_t n);
	void *ctx;
};

struct wpp_words_last {
	uint64_t value;
	uint64_t repeats; /* repetitions reported since it was written */
	uint32_t fid;
	uint32_t valid;
};

struct wpp_words {
	struct wpp_words_sink sink;
	struct wpp_words_last last[WPP_WORDS_DEPTHS];
	uint32_t depth; /* signal depth of the previous call */
};

/* sink may be left empty by callers that only use wpp_words_read(). */
void wpp_words_init(struct wpp_words *r, struct wpp_words_sink sink);

/* Does w open a two-word item (WIDE_PATH, GAP or a value escape)? */
static inline int wpp_word_opens_pair(uint64_t w)
{
	return (w != 0 && wpp_word_fid(w) == WPP_FID_CONTROL &&
		(wpp_ctrl_op(w) == WPP_CTRL_WIDE_PATH || wpp_ctrl_op(w) == WPP_CTRL_GAP)) ||
	       w == WPP_WET_ESCAPE;
}

/* One item, as the sink would be told it (pull form, for the decoder). */
enum wpp_word_kind {
	WPP_WORD_NOTHING,	 /* zero or PAD word */
	WPP_WORD_RECORDS,	 /* fid, value, times, first_repeat */
	WPP_WORD_GAP,		 /* times = lost words */
	WPP_WORD_MALFORMED,	 /* why, nwords */
	WPP_WORD_UNATTRIBUTABLE, /* times = the REPEAT's n */
	WPP_WORD_VALUE,		 /* a WET value slot (nwords) outside a record */
};
struct wpp_word_item {
	enum wpp_word_kind kind;
	uint32_t fid, nwords;
	uint64_t value, times, first_repeat;
	const char *why;
};

/* A record as written at a depth being tracked: what a REPEAT repeats. */
static inline void wpp_words_remember(struct wpp_words_last *last, uint32_t fid, uint64_t value)
{
	*last = (struct wpp_words_last){.value = value, .fid = fid, .valid = 1};
}

int wpp_words_read_slow(struct wpp_words *r, const uint64_t *w, size_t n, uint32_t depth,
			struct wpp_word_item *it);

/* Read one item at w[0] (n >= 1 words of signal depth `depth` available; a
 * pair opened at w[n-1] is cut short) into *it.  Returns the words taken
 * (1 or 2).  A one-word record at the previous word's depth, by far the
 * most common item, is read here inline. */
static inline int wpp_words_read(struct wpp_words *r, const uint64_t *w, size_t n, uint32_t depth,
				 struct wpp_word_item *it)
{
	uint32_t fid = wpp_word_fid(w[0]);

	if (fid != WPP_FID_CONTROL && depth == r->depth && depth < WPP_WORDS_DEPTHS &&
	    !wpp_wet_is_value_word(w[0])) {
		wpp_words_remember(&r->last[depth], fid, wpp_word_payload(w[0]));
		*it = (struct wpp_word_item){.kind = WPP_WORD_RECORDS,
					     .fid = fid,
					     .value = wpp_word_payload(w[0]),
					     .times = 1};
		return 1;
	}
	return wpp_words_read_slow(r, w, n, depth, it);
}

/* Words were lost: forget the last record of every depth. */
void wpp_words_lost(struct wpp_words *r);

/* Push form: every item of w[0..n) to the sink.  0, or -1 if the sink
 * stopped. */
int wpp_words_feed(struct wpp_words *r, const uint64_t *w, size_t n, uint32_t depth);
/* Push form, one item: the item at w[0] (n >= 1 words) to the sink.
 * Returns the words it took (1 or 2), or -1 if the sink stopped.  For a
 * caller that reads the common items itself (sequitur_online.c) and hands
 * the reader the rest, so both agree on every input. */
int wpp_words_feed_one(struct wpp_words *r, const uint64_t *w, size_t n, uint32_t depth);
/* Words were lost between two calls: forget, and tell the sink. */
void wpp_words_gap(struct wpp_words *r, uint64_t lost_words);

/* What a run of raw words holds, item by item as the reader sees them (for
 * `wpptrace info`, which counts without decoding). */
struct wpp_word_counts {
	uint64_t records;     /* path or block records as written (a wide pair is one) */
	uint64_t repeats;     /* REPEAT words, attributable or not */
	uint64_t repetitions; /* executions those REPEAT words add */
	uint64_t control;     /* zero and PAD words, GAP markers */
	uint64_t malformed;   /* malformed items (one or two words each) */
	uint64_t values;      /* WET value slots (wet_abi.h) */
};

/* Add the items of nwords raw little-endian words at p (any alignment),
 * read as one stream at signal depth 0, to *c. */
void wpp_words_count(const unsigned char *p, uint64_t nwords, struct wpp_word_counts *c);

#endif
