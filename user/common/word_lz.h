/* SPDX-License-Identifier: MIT */
/*
 * word_lz.h — the match stage of the word codec: a stream of trace words as
 * literals and copies of earlier stretches of the same stream (LZ77 over
 * 64-bit words), for streams that repeat whole *sequences* of paths (an
 * interpreter's loop, a compressor's inner loops).  The layout is in
 * docs/wpp-file-format.md ("Compressed batches", codecs 4-6).
 *
 * The encoder hashes the next WLZ_MIN_MATCH words to the last position that
 * began with the same hash, in a table of positions it never clears (a
 * stream's positions start where the last stream's ended) and extends a
 * match comparing its first four words at once, then eight at a time (a
 * vector compare, AVX2 where the CPU has it): a probe per match or
 * literal, a compare per matched word, where the order-1 token stage
 * (word_codec.c) loads a table slot for every word.
 *
 * A match refers only to earlier words of the same stream: a chunk decodes
 * on its own.  Decoding checks every distance and length against the words
 * already made and the stream's word count: a hostile payload is an error,
 * never a read or write outside the output.
 */
#ifndef WPP_WORD_LZ_H
#define WPP_WORD_LZ_H

#include <stddef.h>
#include <stdint.h>

/* Shortest match coded (a match token with its distance is 2-4 bytes; a
 * literal 1-9, a dictionary hit 1-2). */
#define WLZ_MIN_MATCH 4

/* Largest token stream of n words (a literal is at most 4 + 6 bytes). */
static inline size_t wlz_tokens_bound(uint32_t n)
{
	return (size_t)n * 11 + 16;
}

struct wlz_state;
/* NULL when out of memory.  A new state has begun a stream. */
struct wlz_state *wlz_new(void);
void wlz_free(struct wlz_state *z);

/* How encodes split their words (for the bench driver; the caller zeroes). */
struct wlz_stats {
	uint64_t words, matched, in_long8, in_long32, matches, rep_matches, literals, dict;
};

/* One stream in pieces.  wlz_begin; then wlz_add each time the stream's
 * words grow, with all of them so far at words[0..n) (earlier pieces
 * unchanged, where later matches refer): tokens for what can be coded
 * now (all but the last few words) into out, room for
 * wlz_tokens_bound of the new words; wlz_end: the rest, with the final
 * n.  Each returns the bytes written and adds to *st when st is not NULL. */
void wlz_begin(struct wlz_state *z);
size_t wlz_add(struct wlz_state *z, const uint64_t *words, uint32_t n, unsigned char *out,
	       struct wlz_stats *st);
size_t wlz_end(struct wlz_state *z, const uint64_t *words, uint32_t n, unsigned char *out,
	       struct wlz_stats *st);
/* wlz_begin, wlz_add and wlz_end of one piece. */
size_t wlz_encode(struct wlz_state *z, const uint64_t *words, uint32_t n, unsigned char *out,
		  struct wlz_stats *st);

/* Exactly n words from the len token bytes at in: 0, or -1 with *why (a
 * static string) when the tokens are malformed or make a different count. */
int wlz_decode(const unsigned char *in, size_t len, uint64_t *words, uint32_t n, const char **why);

#endif
