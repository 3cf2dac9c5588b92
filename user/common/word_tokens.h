/* SPDX-License-Identifier: MIT */
/*
 * word_tokens.h — what the word codec's two token layouts share
 * (word_codec.c's order-1 tokens, word_lz.c's match stream;
 * docs/wpp-file-format.md, "Compressed batches"): the bounded varint
 * reader, the dictionary slot, and a literal word (fid delta, payload)
 * written and read.  One spelling, so the layouts cannot drift apart
 * where the format says they are the same.
 */
#ifndef WPP_WORD_TOKENS_H
#define WPP_WORD_TOKENS_H

#include <stdint.h>

#include "common/varint.h"
#include "wpp/trace_abi.h"

/* The literal token's kind (t & 3) in both layouts. */
#define WT_LITERAL   2
#define WT_DICT_BITS 10

static inline uint32_t wt_dict_slot(uint64_t w)
{
	return (uint32_t)((w * UINT64_C(0xC2B2AE3D27D4EB4F)) >> (64 - WT_DICT_BITS));
}

/* 0, or -1 when the varint runs past end or past 64 bits. */
static inline int wt_get_varint(const unsigned char **pp, const unsigned char *end, uint64_t *v)
{
	const unsigned char *p = *pp;
	uint64_t r = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (p == end)
			return -1;
		unsigned char b = *p++;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			if (shift == 63 && b > 1)
				return -1;
			*pp = p;
			*v = r;
			return 0;
		}
	}
	return -1;
}

/* The literal token of w after a literal of fid *last_fid, at p. */
static inline unsigned char *wt_put_literal(unsigned char *p, uint64_t w, uint32_t *last_fid)
{
	uint32_t fid = wpp_word_fid(w);
	int64_t d = (int64_t)fid - (int64_t)*last_fid;

	p = varint_put(p, (((uint64_t)d << 1) ^ (uint64_t)(d >> 63)) << 2 | WT_LITERAL);
	*last_fid = fid;
	return varint_put(p, wpp_word_payload(w));
}

/* The word of literal token t, its payload read from *pp: 0, or -1 with
 * *why when the fid or the payload is out of range or cut short. */
static inline int wt_get_literal(uint64_t t, const unsigned char **pp, const unsigned char *end,
				 uint32_t *last_fid, uint64_t *w, const char **why)
{
	uint64_t z = t >> 2, payload;
	int64_t fid = (int64_t)*last_fid + ((int64_t)(z >> 1) ^ -(int64_t)(z & 1));

	if (fid < 0 || fid >= (INT64_C(1) << WPP_FID_BITS)) {
		*why = "literal's fid out of range";
		return -1;
	}
	if (wt_get_varint(pp, end, &payload) < 0 || payload > WPP_PAYLOAD_MASK) {
		*why = "literal's path id cut short or out of range";
		return -1;
	}
	*w = wpp_make_word((uint32_t)fid, payload);
	*last_fid = (uint32_t)fid;
	return 0;
}

#endif
