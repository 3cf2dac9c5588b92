/* SPDX-License-Identifier: MIT */
/*
 * word_lz.c — see word_lz.h.  The token layout (docs/wpp-file-format.md,
 * "Compressed batches", codecs 4-6): each token is an unsigned LEB128 varint
 * t, kind = t & 3:
 *
 *   0  repeat:  the next (t >> 2) + WLZ_MIN_MATCH words copy the words the
 *               last match's distance back (the last match token's)
 *   1  match:   a varint d - 1 follows; the next (t >> 2) + WLZ_MIN_MATCH
 *               words copy those d back (d <= the words made so far; a
 *               copy may overlap what it makes: d = 2 repeats two words)
 *   2  literal: fid = last literal's fid + unzigzag(t >> 2), then a varint
 *               payload (< 2^40); the word is fid << 40 | payload
 *   3  dict:    the word in dictionary slot t >> 2
 *
 * Encoder and decoder start every stream with an empty dictionary (set on
 * every literal), no last distance and a last fid of 0.  The encoder's
 * table of positions is its own business: the decoder never sees it.
 */
#include "common/word_lz.h"

#include <stdlib.h>
#include <string.h>

#include "common/varint.h"
#include "common/word_tokens.h"
#include "wpp/trace_abi.h"

/* 32 Ki positions: 4 Ki found 4 % fewer matched words on bzip2, 64 Ki
 * 0.3 % more (docs/benchmarks.md, "A match stage"). */
#define HASH_BITS 15
#define DICT_BITS WT_DICT_BITS

enum { TOK_REPEAT = 0, TOK_MATCH = 1, TOK_LITERAL = WT_LITERAL, TOK_DICT = 3 };

struct wlz_state {
	/* Position + 1 + base of the last probe whose next WLZ_MIN_MATCH words
	 * hashed here; entries at or below base are older streams' (a stream
	 * starts where the last one ended instead of clearing 128 KiB). */
	uint32_t pos[1u << HASH_BITS];
	uint32_t base, next_base;
	/* the stream so far: the next position to code, the last match's
	 * distance, the last literal's fid */
	uint32_t at, last_d, last_fid;
	uint64_t dict[1u << DICT_BITS];
};

/* Streams are at most this long (WPP_BATCH_Z_MAX_WORDS is far below). */
#define MAX_STREAM (UINT32_C(1) << 31)

static void extend_pick(void);

struct wlz_state *wlz_new(void)
{
	struct wlz_state *z = calloc(1, sizeof(struct wlz_state));

	extend_pick();
	if (z)
		wlz_begin(z);
	return z;
}

void wlz_free(struct wlz_state *z)
{
	free(z);
}

void wlz_begin(struct wlz_state *z)
{
	if (z->next_base >= MAX_STREAM) {
		memset(z->pos, 0, sizeof(z->pos));
		z->next_base = 0;
	}
	z->base = z->next_base;
	z->at = z->last_d = z->last_fid = 0;
	memset(z->dict, 0, sizeof(z->dict));
}

static inline uint32_t hash4(const uint64_t *w)
{
	uint64_t h = w[0] * UINT64_C(0x9E3779B97F4A7C15) + w[1] * UINT64_C(0xC2B2AE3D27D4EB4F) +
		     w[2] * UINT64_C(0x165667B19E3779F9) + w[3] * UINT64_C(0x27D4EB2F165667C5);
	return (uint32_t)(h >> (64 - HASH_BITS));
}

static inline int same4(const uint64_t *a, const uint64_t *b)
{
	return ((a[0] ^ b[0]) | (a[1] ^ b[1]) | (a[2] ^ b[2]) | (a[3] ^ b[3])) == 0;
}

/* The first of a[0..4) that differs from b[0..4), or 4: the four compares'
 * mask, one branch (a word-by-word loop mispredicted at every match's end). */
static inline size_t first_diff4(const uint64_t *a, const uint64_t *b)
{
	unsigned m = (unsigned)(a[0] != b[0]) | (unsigned)(a[1] != b[1]) << 1 |
		     (unsigned)(a[2] != b[2]) << 2 | (unsigned)(a[3] != b[3]) << 3;
	return (size_t)__builtin_ctz(m | 16);
}

/* How many of a[0..max) equal b[0..max), from the start, for a match
 * whose first four words matched: eight words a block as one vector
 * compare, then the block that differs and what is left four at a time. */
typedef uint64_t wlz_v8 __attribute__((vector_size(64)));
typedef int64_t wlz_m8 __attribute__((vector_size(64)));
static inline __attribute__((always_inline)) size_t extend_long(const uint64_t *a,
								const uint64_t *b, size_t max)
{
	size_t k = 0, f;

	for (; k + 8 <= max; k += 8) {
		wlz_v8 x, y;
		memcpy(&x, a + k, sizeof(x));
		memcpy(&y, b + k, sizeof(y));
		if (__builtin_reduce_and((wlz_m8)(x == y)) != -1)
			break;
	}
	for (; k + 4 <= max; k += 4)
		if ((f = first_diff4(a + k, b + k)) < 4)
			return k + f;
	while (k < max && a[k] == b[k])
		k++;
	return k;
}

/* extend_long as two 256-bit compares and a test a block, and as base
 * x86-64 has it; which one is set once (wlz_new). */
static __attribute__((target("avx2"))) size_t extend_long_avx2(const uint64_t *a, const uint64_t *b,
							       size_t max)
{
	return extend_long(a, b, max);
}

static size_t extend_long_base(const uint64_t *a, const uint64_t *b, size_t max)
{
	return extend_long(a, b, max);
}

static size_t (*extend_long_fn)(const uint64_t *, const uint64_t *, size_t) = extend_long_base;

static void extend_pick(void)
{
	/* (every caller stores the same value; relaxed atomics, as states
	 * may be made in several threads) */
	if (__builtin_cpu_supports("avx2"))
		__atomic_store_n(&extend_long_fn, extend_long_avx2, __ATOMIC_RELAXED);
}

/* How many of a[0..max) equal b[0..max), from the start.  Most matches of
 * data-dependent traces end in their first four words (bzip2's and xz's
 * are 5-6 words long): those four here, the rest out of line, eight words
 * a vector compare (lua's matches run for hundreds of words, where blocks
 * of four took 60 % of the stage's instructions).  Only that part is
 * AVX2: an AVX2 clone of the whole stage vectorized the hash's 64-bit
 * products, which AVX2 emulates, and ran bzip2 a sixth slower.  Pointers
 * and 64-bit counts: 32-bit indices cost an extension a load. */
static inline size_t extend(const uint64_t *a, const uint64_t *b, size_t max)
{
	size_t f;

	if (max < 4) {
		for (f = 0; f < max && a[f] == b[f]; f++)
			;
		return f;
	}
	if ((f = first_diff4(a, b)) < 4)
		return f;
	return 4 + __atomic_load_n(&extend_long_fn, __ATOMIC_RELAXED)(a + 4, b + 4, max - 4);
}

/* The literal or dictionary token of w. */
static inline unsigned char *put_word(struct wlz_state *z, unsigned char *p, uint64_t w,
				      uint32_t *last_fid, struct wlz_stats *st)
{
	uint32_t d = wt_dict_slot(w);

	if (z->dict[d] == w) {
		if (st)
			st->dict++;
		return varint_put(p, (uint64_t)d << 2 | TOK_DICT);
	}
	z->dict[d] = w;
	return wt_put_literal(p, w, last_fid);
}

/* The probes are one chain: the next position is known when this match's
 * length is, which needs the candidate's words (a hash, a table load, then
 * a load anywhere in the chunk's 4 MiB).  Most matches are 4-7 words long
 * (bzip2's and xz's), so the words a probe WLZ_MIN_MATCH ahead would
 * compare against are fetched now, off the chain: the table slot it will
 * read (its entry may still change: a hint only).  docs/benchmarks.md,
 * "Cheaper probes": 5-8 % off xz's and bzip2's stage in the shm
 * collector's 64 Ki-word chunks, 9-12 % in 512 Ki-word ones (past L2);
 * the same tokens. */
static inline void prefetch_ahead(const struct wlz_state *z, const uint64_t *words, uint32_t i,
				  uint32_t n)
{
	if (n - i >= 2 * WLZ_MIN_MATCH) {
		uint32_t c = z->pos[hash4(words + i + WLZ_MIN_MATCH)] - z->base - 1;
		/* (no branch: one on c < i mispredicted as often as the probe) */
		__builtin_prefetch(words + (c < i ? c : i));
	}
}

/* The positions just after a match's start, i + 1 to i + 3, into the
 * table as if they had been probed (a match is at least WLZ_MIN_MATCH
 * long, so all three are inside it; skipped where their words run past
 * the n so far).  Off the probe chain: their hashes depend only on words
 * already loaded, and nothing waits for the stores.  A later probe then
 * finds stretches that repeat at another alignment than the probes fell
 * on: bzip2's and xz's tokens 7-9 % fewer bytes for 6 % fewer probes
 * (matches 2 % more, literals and dictionary hits 22 % fewer;
 * docs/benchmarks.md, "The zstd gap and the match stage's table"); i + 4
 * to i + 7 too saved 1.5 % more bytes in a loop 15 % slower. */
static inline void insert_inside(struct wlz_state *z, const uint64_t *words, uint32_t i, uint32_t n)
{
	if (n - i < 3 + WLZ_MIN_MATCH)
		return;
	uint32_t h1 = hash4(words + i + 1), h2 = hash4(words + i + 2), h3 = hash4(words + i + 3);

	z->pos[h1] = z->base + i + 2;
	z->pos[h2] = z->base + i + 3;
	z->pos[h3] = z->base + i + 4;
}

size_t wlz_add(struct wlz_state *z, const uint64_t *words, uint32_t n, unsigned char *out,
	       struct wlz_stats *st)
{
	unsigned char *p = out;
	uint32_t i = z->at, last_d = z->last_d, last_fid = z->last_fid, base = z->base;
	uint32_t end = n >= WLZ_MIN_MATCH ? n - WLZ_MIN_MATCH + 1 : 0;

	if (n > MAX_STREAM - 1)
		n = end = 0; /* (never: the caller's streams are far shorter) */
	while (i < end) {
		const uint64_t *w = words + i;
		uint32_t d = 0, len;
		int repeat = 0;

		/* (one probe: the last distance tried first, as LZ coders do,
		 * hit 0.7 % of bzip2's and xz's matches for 11 % more
		 * instructions and 16 % more mispredicted branches; a match
		 * the hash finds at the last distance is still a repeat).  An
		 * entry at or below base wraps to a huge c; one of a stream
		 * begun again without wlz_end may be ahead: c < i. */
		uint32_t *slot = &z->pos[hash4(w)], c = *slot - base - 1;
		*slot = base + i + 1;
		prefetch_ahead(z, words, i, n);
		if (c < i && same4(w, words + c)) {
			d = i - c;
			repeat = d == last_d;
		}
		if (!d) {
			p = put_word(z, p, *w, &last_fid, st);
			if (st)
				st->literals++;
			i++;
			continue;
		}
		len = WLZ_MIN_MATCH + (uint32_t)extend(w + WLZ_MIN_MATCH, w + WLZ_MIN_MATCH - d,
						       n - i - WLZ_MIN_MATCH);
		p = varint_put(p, (uint64_t)(len - WLZ_MIN_MATCH) << 2 |
				      (repeat ? TOK_REPEAT : TOK_MATCH));
		if (!repeat)
			p = varint_put_small(p, d - 1);
		if (st) {
			st->matches++;
			st->rep_matches += (uint64_t)repeat;
			st->matched += len;
			st->in_long8 += len >= 8 ? len : 0;
			st->in_long32 += len >= 32 ? len : 0;
		}
		last_d = d;
		insert_inside(z, words, i, n);
		i += len;
	}
	z->at = i;
	z->last_d = last_d;
	z->last_fid = last_fid;
	return (size_t)(p - out);
}

size_t wlz_end(struct wlz_state *z, const uint64_t *words, uint32_t n, unsigned char *out,
	       struct wlz_stats *st)
{
	unsigned char *p = out + wlz_add(z, words, n, out, st);

	for (uint32_t i = z->at; i < n; i++) {
		p = put_word(z, p, words[i], &z->last_fid, st);
		if (st)
			st->literals++;
	}
	if (st)
		st->words += n;
	z->at = n;
	z->next_base = z->base + n;
	return (size_t)(p - out);
}

size_t wlz_encode(struct wlz_state *z, const uint64_t *words, uint32_t n, unsigned char *out,
		  struct wlz_stats *st)
{
	wlz_begin(z);
	return wlz_end(z, words, n, out, st);
}

int wlz_decode(const unsigned char *in, size_t len, uint64_t *words, uint32_t n, const char **why)
{
	const unsigned char *p = in, *end = in + len;
	uint64_t last_d = 0, dict[1u << DICT_BITS];
	uint32_t last_fid = 0, i = 0;

	memset(dict, 0, sizeof(dict));
	while (p < end) {
		uint64_t t, w, d;

		if (wt_get_varint(&p, end, &t) < 0) {
			*why = "token cut short";
			return -1;
		}
		switch (t & 3) {
		case TOK_REPEAT:
		case TOK_MATCH: {
			uint64_t count = t >> 2;
			if ((t & 3) == TOK_REPEAT) {
				d = last_d;
				if (!d) {
					*why = "repeated match before any match";
					return -1;
				}
			} else if (wt_get_varint(&p, end, &d) < 0 || d >= i) {
				*why = "match's distance cut short or past the stream's start";
				return -1;
			} else {
				d++;
			}
			if (count > n - i || count + WLZ_MIN_MATCH > n - i) {
				*why = "match past the batch's word count";
				return -1;
			}
			count += WLZ_MIN_MATCH;
			for (uint64_t k = 0; k < count; k++, i++)
				words[i] = words[i - d];
			last_d = d;
			continue;
		}
		case TOK_DICT:
			if ((t >> 2) >= (1u << DICT_BITS)) {
				*why = "dictionary index out of range";
				return -1;
			}
			w = dict[t >> 2];
			break;
		default:
			if (wt_get_literal(t, &p, end, &last_fid, &w, why) < 0)
				return -1;
			dict[wt_dict_slot(w)] = w;
			break;
		}
		if (i == n) {
			*why = "more words than the batch's word count";
			return -1;
		}
		words[i++] = w;
	}
	if (i != n) {
		*why = "fewer words than the batch's word count";
		return -1;
	}
	return 0;
}
