/* SPDX-License-Identifier: MIT */
/*
 * wet_abi.h — the recording half of whole execution traces (docs/wet.md):
 * how a TU built with -fwpp-mode=wet (WPP_MODE_WET) writes the values and
 * addresses of its statements into the thread's ordinary stream, and the
 * metadata that says which statement each word belongs to.
 *
 * Words.  A WET path record is its path record (a narrow word or a
 * WIDE_PATH pair) followed by the path's value words, one *slot* per
 * recorded address or value, in execution order (a statement's address
 * before its value).  No count is stored: the metadata lists, per block,
 * its statements and the slots each writes, and the path id names the
 * blocks.  A slot holding v (the value sign-extended to 64 bits, a pointer
 * as its address, a float as its bits) is
 *
 *     one word   1 << 63 | (zigzag(v) + 1)      when zigzag(v) + 1 < 2^62
 *     two words  1 << 63, then v itself         otherwise (|v| >= 2^61)
 *
 * so every value word has its top two bits 10: fid 0x800000 .. 0xbfffff,
 * which no function can have (WPP_FID_MAX in trace_abi.h is below) and
 * which is neither a control word (fid 0) nor an unregistered record (fid
 * 0xffffff).  A reader that knows no metadata can therefore skip value
 * words by their shape alone (trace_words.h), and no word is ever zero.
 *
 * Reservation.  The path id is known only at the path's end, after its
 * values were produced, so every path start reserves the record: it checks
 * cursor + header + K <= limit (K: the most words any path of the function
 * writes, at most WPP_WET_MAX_WORDS; the pass cuts paths that would write
 * more) and calls WPP_SYM_RESERVE(header + K) when not; values go to
 * cursor[header..] as they are produced; the path end writes the path word
 * into cursor[0] and publishes the cursor once, past the values.  A record
 * is published whole or not at all.
 */
#ifndef WPP_WET_ABI_H
#define WPP_WET_ABI_H

#include <stdint.h>

/* Value words a WET path writes at most (escapes included), header aside. */
#define WPP_WET_MAX_WORDS 256u

#define WPP_WET_VALUE_BIT  (UINT64_C(1) << 63)
#define WPP_WET_ESCAPE	   WPP_WET_VALUE_BIT
#define WPP_WET_PLAIN_MAX  ((UINT64_C(1) << 62) - 1) /* largest zigzag + 1 in one word */
#define WPP_WET_KIND_SHIFT 62

/* void __wpp_reserve(uint64_t nwords), preserve_most: make [cursor,
 * cursor + nwords) writable memory of the thread's current level (a fresh
 * buffer, or the discard sink when no buffer can be had), nwords <=
 * WPP_WET_MAX_WORDS + 2. */
#define WPP_SYM_RESERVE "__wpp_reserve"

static inline uint64_t wpp_wet_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t wpp_wet_unzigzag(uint64_t z)
{
	return (int64_t)((z >> 1) ^ (0 - (z & 1)));
}

/* Is w a value word (a plain one or the escape marker)? */
static inline int wpp_wet_is_value_word(uint64_t w)
{
	return (w >> WPP_WET_KIND_SHIFT) == 2;
}

/* Encode v into out[0..1]; returns the words used (1 or 2). */
static inline int wpp_wet_encode(int64_t v, uint64_t out[2])
{
	uint64_t z = wpp_wet_zigzag(v);
	if (z < WPP_WET_PLAIN_MAX) {
		out[0] = WPP_WET_VALUE_BIT | (z + 1);
		return 1;
	}
	out[0] = WPP_WET_ESCAPE;
	out[1] = (uint64_t)v;
	return 2;
}

/* Decode the slot at w[0] (n words available) into *v.  Returns the words
 * it took (1 or 2), or 0 when w[0] is no value word or an escape is cut
 * short or followed by a value that did not need it. */
static inline int wpp_wet_decode(const uint64_t *w, uint64_t n, int64_t *v)
{
	if (n == 0 || !wpp_wet_is_value_word(w[0]))
		return 0;
	if (w[0] != WPP_WET_ESCAPE) {
		*v = wpp_wet_unzigzag((w[0] & ~WPP_WET_VALUE_BIT) - 1);
		return 1;
	}
	if (n < 2 || wpp_wet_zigzag((int64_t)w[1]) < WPP_WET_PLAIN_MAX)
		return 0;
	*v = (int64_t)w[1];
	return 2;
}

#endif
