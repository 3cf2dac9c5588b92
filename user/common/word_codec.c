/* SPDX-License-Identifier: MIT */
/*
 * word_codec.c — see word_codec.h.  The token layout (docs/wpp-file-format.md,
 * "Compressed batches"): each token is an unsigned LEB128 varint t, kind =
 * t & 3:
 *
 *   0  run:     the next (t >> 2) + 1 words are each the first successor
 *               the table holds for the word before them
 *   1  dict:    the word in dictionary slot t >> 2
 *   2  literal: fid = last literal's fid + unzigzag(t >> 2), then a varint
 *               payload (< 2^40); the word is fid << 40 | payload
 *   3  second:  (t == 3 exactly) the second successor the table holds
 *
 * Encoder and decoder keep the same state, starting at zero for every
 * stream: pred[hash(prev)] = the last two words that followed prev (every
 * word the first successor did not predict becomes the first, the old
 * first the second), dict[hash(w)] = w (set on every literal), the last
 * literal's fid.  The first word's "previous word" is 0.
 */
#include "common/word_codec.h"

#include <lz4.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include "common/path_records.h"
#include "common/varint.h"
#include "common/word_lz.h"
#include "common/word_tokens.h"
#include "wpp/trace_abi.h"

#define PRED_BITS 12
#define DICT_BITS WT_DICT_BITS

enum { TOK_RUN = 0, TOK_DICT = 1, TOK_LITERAL = WT_LITERAL, TOK_SECOND = 3 };

/* The two successors apart: a run reads only the first, one load after
 * another (each word's slot depends on the word before), so the first
 * successors alone (32 KiB) stay in L1 where pairs of them (64 KiB) did
 * not. */
struct wc_tables {
	uint64_t first[1u << PRED_BITS];  /* the last successor */
	uint64_t second[1u << PRED_BITS]; /* the one before */
	uint64_t dict[1u << DICT_BITS];
};

static inline uint32_t pred_slot(uint64_t prev)
{
	return (uint32_t)((prev * UINT64_C(0x9E3779B97F4A7C15)) >> (64 - PRED_BITS));
}

/* The encoder's state between pieces of one stream. */
struct tok_state {
	struct wc_tables tables;
	uint64_t prev, run;
	uint32_t last_fid;
};

static void tokens_begin(struct tok_state *st)
{
	memset(st, 0, sizeof(*st));
}

/* Tokens of the next n words of the stream; a run may stay open. */
static size_t tokens_add(struct tok_state *st, const uint64_t *words, uint32_t n,
			 unsigned char *out)
{
	struct wc_tables *tb = &st->tables;
	unsigned char *p = out;
	uint64_t prev = st->prev, run = st->run;
	uint32_t last_fid = st->last_fid;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t w = words[i];
		uint32_t slot = pred_slot(prev);

		prev = w;
		if (tb->first[slot] == w) {
			run++;
			continue;
		}
		if (run) {
			p = varint_put(p, (run - 1) << 2 | TOK_RUN);
			run = 0;
		}
		uint64_t second = tb->second[slot];
		tb->second[slot] = tb->first[slot];
		tb->first[slot] = w;
		if (second == w) {
			*p++ = TOK_SECOND;
			continue;
		}
		uint32_t d = wt_dict_slot(w);
		if (tb->dict[d] == w) {
			p = varint_put(p, (uint64_t)d << 2 | TOK_DICT);
			continue;
		}
		tb->dict[d] = w;
		p = wt_put_literal(p, w, &last_fid);
	}
	st->prev = prev;
	st->run = run;
	st->last_fid = last_fid;
	return (size_t)(p - out);
}

/* Close the stream's open run. */
static size_t tokens_end(struct tok_state *st, unsigned char *out)
{
	unsigned char *p = out;

	if (st->run)
		p = varint_put(p, (st->run - 1) << 2 | TOK_RUN);
	st->run = 0;
	return (size_t)(p - out);
}

size_t wc_tokens_encode(const uint64_t *words, uint32_t n, unsigned char *out)
{
	struct tok_state *st = malloc(sizeof(*st));
	size_t len;

	if (!st)
		abort(); /* callers with no memory to spare use wc_encode */
	tokens_begin(st);
	len = tokens_add(st, words, n, out);
	len += tokens_end(st, out + len);
	free(st);
	return len;
}

static int tokens_decode(struct wc_tables *tb, const unsigned char *in, size_t len, uint64_t *words,
			 uint32_t n, const char **why)
{
	const unsigned char *p = in, *end = in + len;
	uint64_t prev = 0;
	uint32_t last_fid = 0, i = 0;

	memset(tb, 0, sizeof(*tb));
	while (p < end) {
		uint64_t t, w;

		if (wt_get_varint(&p, end, &t) < 0) {
			*why = "token cut short";
			return -1;
		}
		switch (t & 3) {
		case TOK_RUN: {
			uint64_t count = (t >> 2) + 1;
			if (count > n - i) {
				*why = "run past the batch's word count";
				return -1;
			}
			for (uint64_t k = 0; k < count; k++) {
				w = tb->first[pred_slot(prev)];
				words[i++] = w;
				prev = w;
			}
			continue;
		}
		case TOK_DICT:
			if ((t >> 2) >= (1u << DICT_BITS)) {
				*why = "dictionary index out of range";
				return -1;
			}
			w = tb->dict[t >> 2];
			break;
		case TOK_LITERAL:
			if (wt_get_literal(t, &p, end, &last_fid, &w, why) < 0)
				return -1;
			tb->dict[wt_dict_slot(w)] = w;
			break;
		default:
			if (t != TOK_SECOND) {
				*why = "malformed second-successor token";
				return -1;
			}
			w = tb->second[pred_slot(prev)];
			break;
		}
		if (i == n) {
			*why = "more words than the batch's word count";
			return -1;
		}
		uint32_t slot = pred_slot(prev);
		tb->second[slot] = tb->first[slot];
		tb->first[slot] = w;
		words[i++] = w;
		prev = w;
	}
	if (i != n) {
		*why = "fewer words than the batch's word count";
		return -1;
	}
	return 0;
}

int wc_tokens_decode(const unsigned char *in, size_t len, uint64_t *words, uint32_t n,
		     const char **why)
{
	struct wc_tables *tb = malloc(sizeof(*tb));
	int rc;

	if (!tb) {
		*why = "out of memory";
		return -1;
	}
	rc = tokens_decode(tb, in, len, words, n, why);
	free(tb);
	return rc;
}

struct wc_encoder {
	struct tok_state tokens_state;
	/* The match stage (wc_encoder_match_stage), or NULL; it needs the
	 * stream's earlier words, so wc_add keeps a copy of them. */
	struct wlz_state *lz;
	uint64_t *words;
	uint32_t nwords, cap_words;
	ZSTD_CCtx *zc; /* level and checksum set once */
	void *lz4_state;
	unsigned char *tokens, *packed;
	size_t ntokens, cap_tokens, cap_packed;
	int failed; /* a wc_add ran out of memory: wc_finish says so */
	/* What each second stage made of recent chunks' tokens and what it
	 * cost, per token byte (0: not measured yet); the chunks since both
	 * were last measured side by side; wc_encoder_min_gain's rate. */
	struct coder_cost {
		double ratio, ns;
		uint32_t n; /* chunks measured */
	} lz4, zstd;
	uint32_t since_sample;
	double min_gain;
	uint32_t forced; /* wc_encoder_force: 0 or the codec every chunk takes */
};

/* A chunk in this many is coded both ways, to keep both measures current
 * whichever is chosen (a 32nd of the other's cost: a few percent). */
#define SAMPLE_EVERY 32

struct wc_encoder *wc_encoder_new(int level)
{
	struct wc_encoder *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->zc = ZSTD_createCCtx();
	e->lz4_state = malloc((size_t)LZ4_sizeofState());
	/* The frame's checksum (XXH64 of the tokens, a few percent of the
	 * time) catches payloads that a crafted chunk CRC let through. */
	if (!e->zc || !e->lz4_state ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(e->zc, ZSTD_c_compressionLevel, level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(e->zc, ZSTD_c_checksumFlag, 1))) {
		ZSTD_freeCCtx(e->zc);
		free(e->lz4_state);
		free(e);
		return NULL;
	}
	tokens_begin(&e->tokens_state);
	e->min_gain = WC_MIN_GAIN_NS_PER_BYTE;
	return e;
}

void wc_encoder_min_gain(struct wc_encoder *e, double ns_per_byte)
{
	e->min_gain = ns_per_byte;
}

void wc_encoder_force(struct wc_encoder *e, uint32_t codec)
{
	e->forced = wc_second_stage(codec);
}

int wc_encoder_match_stage(struct wc_encoder *e)
{
	if (!e->lz && !(e->lz = wlz_new()))
		return -1;
	wc_begin(e); /* no token-stage tokens before the match stage's */
	return 0;
}

/* The codec of second stage `second` over this encoder's first stage. */
static uint32_t codec_of(const struct wc_encoder *e, uint32_t second)
{
	return e->lz ? second + (WC_CODEC_LZ - WC_CODEC_TOKENS) : second;
}

double wc_second_stage_ns(const struct wc_encoder *e)
{
	double ns = e->lz4.ns && e->lz4.ns < e->zstd.ns ? e->lz4.ns : e->zstd.ns;

	return ns * (double)e->ntokens;
}

void wc_encoder_free(struct wc_encoder *e)
{
	if (!e)
		return;
	ZSTD_freeCCtx(e->zc);
	free(e->lz4_state);
	wlz_free(e->lz);
	free(e->words);
	free(e->tokens);
	free(e->packed);
	free(e);
}

void wc_begin(struct wc_encoder *e)
{
	if (e->lz)
		wlz_begin(e->lz);
	else
		tokens_begin(&e->tokens_state);
	e->nwords = 0;
	e->ntokens = 0;
	e->failed = 0;
}

/* Room for need more bytes at *buf (which holds used); 0 or -1. */
static int reserve(unsigned char **buf, size_t *cap, size_t used, size_t need)
{
	if (used + need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 65536;
	while (ncap < used + need)
		ncap *= 2;
	unsigned char *n = realloc(*buf, ncap);
	if (!n)
		return -1;
	*buf = n;
	*cap = ncap;
	return 0;
}

/* The match stage's wc_add: the words join the stream's copy (counted on
 * the way when records is not NULL), and the tokens of all but its last
 * few words are written. */
static int lz_add(struct wc_encoder *e, const uint64_t *words, uint32_t n, uint64_t *records)
{
	if (n > UINT32_MAX / 2 - e->nwords || reserve(&e->tokens, &e->cap_tokens, e->ntokens,
						      wlz_tokens_bound(n + WLZ_MIN_MATCH)) < 0)
		return -1;
	if (e->nwords + n > e->cap_words) {
		uint32_t cap = e->cap_words ? e->cap_words : 8192;
		while (cap < e->nwords + n)
			cap *= 2;
		uint64_t *w = realloc(e->words, (size_t)cap * sizeof(*w));
		if (!w)
			return -1;
		e->words = w;
		e->cap_words = cap;
	}
	if (records)
		*records += wpp_copy_path_records(e->words + e->nwords, words, n);
	else
		memcpy(e->words + e->nwords, words, (size_t)n * sizeof(*words));
	e->nwords += n;
	e->ntokens += wlz_add(e->lz, e->words, e->nwords, e->tokens + e->ntokens, NULL);
	return 0;
}

int wc_add_counted(struct wc_encoder *e, const uint64_t *words, uint32_t n, uint64_t *records)
{
	if (e->lz && !e->failed) {
		if (lz_add(e, words, n, records) < 0)
			e->failed = 1;
		return e->failed ? -1 : 0;
	}
	if (e->failed || reserve(&e->tokens, &e->cap_tokens, e->ntokens, wc_tokens_bound(n)) < 0) {
		e->failed = 1;
		return -1;
	}
	e->ntokens += tokens_add(&e->tokens_state, words, n, e->tokens + e->ntokens);
	if (records)
		*records += wpp_count_path_records(words, n);
	return 0;
}

int wc_add(struct wc_encoder *e, const uint64_t *words, uint32_t n)
{
	return wc_add_counted(e, words, n, NULL);
}

static double thread_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Blend one chunk's measure into c: recent chunks weigh most, so a phase
 * change shows within a few chunks; a chunk weighs less the fewer its
 * token bytes (a coder's fixed cost per call, spread over 26 bytes, read
 * 16 ns a byte for LZ4 and 342 for zstd under record, where lua's 20 KB
 * chunks cost 0.2 and 1.7: blended in whole, one such chunk had lua's
 * chunks stored raw for hundreds of chunks).  Until WARM_UP chunks of at
 * least WARM_BYTES were measured, each replaces the measure: a coder's
 * first call sets up its tables (zstd's first chunk under record measured
 * 98 ns a token byte, its later ones 11), and with zstd measured on every
 * 32nd chunk only, blending that in took hundreds of chunks to wear off. */
#define WARM_UP		  2
#define WARM_BYTES	  4096
#define FULL_WEIGHT_BYTES 16384
static void learn(struct coder_cost *c, size_t bytes, size_t ntokens, double ns)
{
	double r = (double)bytes / (double)ntokens, t = ns / (double)ntokens;
	double k = ntokens >= FULL_WEIGHT_BYTES ? 0.25 : 0.25 * (double)ntokens / FULL_WEIGHT_BYTES;

	if (c->n < WARM_UP) {
		c->n += ntokens >= WARM_BYTES;
		c->ratio = r;
		c->ns = t;
		return;
	}
	c->ratio = (1 - k) * c->ratio + k * r;
	c->ns = (1 - k) * c->ns + k * t;
}

/* Room for an LZ4 payload of ntokens token bytes (the varint, the block). */
static size_t lz4_bound(size_t ntokens)
{
	return (size_t)LZ4_compressBound((int)ntokens) + 10;
}

/* The tokens as one LZ4 block behind their length, at out (room for
 * lz4_bound(ntokens)); the payload's size, or 0 when LZ4 failed. */
static size_t lz4_pack(struct wc_encoder *e, unsigned char *out)
{
	unsigned char *p = varint_put(out, e->ntokens);
	int room = (int)(lz4_bound(e->ntokens) - (size_t)(p - out));
	int n = LZ4_compress_fast_extState(e->lz4_state, (const char *)e->tokens, (char *)p,
					   (int)e->ntokens, room, 1);
	return n > 0 ? (size_t)(p - out) + (size_t)n : 0;
}

/* zstd of the tokens into e->packed from offset at: its size, or 0. */
static size_t zstd_pack(struct wc_encoder *e, size_t at)
{
	size_t nz =
	    ZSTD_compress2(e->zc, e->packed + at, e->cap_packed - at, e->tokens, e->ntokens);
	return ZSTD_isError(nz) ? 0 : nz;
}

/* The second stage for nt token bytes within allowance, from the measures
 * (lz4_bytes, zstd_bytes: sizes, in a sample; else predicted).  The three
 * ways, by size: zstd, LZ4, none.  LZ4 where it fits and saves at least
 * min_gain ns of zstd's time per byte it adds, or is no bigger than zstd;
 * then none where it fits and saves at least min_gain ns per byte it adds
 * over the way chosen so far.  None is weighed against LZ4, not against
 * zstd: LZ4's better rate per byte only says to take LZ4 first while the
 * allowance is short; where none fits too, what LZ4 still costs per byte
 * it saves decides (xz's chunks stayed on LZ4 with millions of bytes
 * unspent: docs/benchmarks.md, "Why record kept xz on LZ4"). */
static uint32_t choose(const struct wc_encoder *e, size_t nt, int64_t allowance, double lz4_bytes,
		       double zstd_bytes)
{
	double t_lz4 = e->lz4.ns * (double)nt, t_zstd = e->zstd.ns * (double)nt;
	double added_lz4 = lz4_bytes - zstd_bytes;
	int lz4 = (added_lz4 <= 0 && t_lz4 < t_zstd) ||
		  (lz4_bytes <= (double)allowance && added_lz4 > 0 &&
		   t_zstd - t_lz4 >= e->min_gain * added_lz4);
	double base_bytes = lz4 ? lz4_bytes : zstd_bytes, base_ns = lz4 ? t_lz4 : t_zstd;
	double added_none = (double)nt - base_bytes;

	if ((double)nt <= (double)allowance &&
	    (added_none <= 0 || base_ns >= e->min_gain * added_none))
		return WC_CODEC_TOKENS;
	return lz4 ? WC_CODEC_TOKENS_LZ4 : WC_CODEC_TOKENS_ZSTD;
}

const void *wc_finish_within(struct wc_encoder *e, int64_t allowance, size_t *len, uint32_t *codec)
{
	size_t nt, zbound, lbound, nz = 0, nl = 0;
	uint32_t pick = WC_CODEC_TOKENS_ZSTD;
	int sample = 0;
	double t0;

	if (e->failed ||
	    reserve(&e->tokens, &e->cap_tokens, e->ntokens, wlz_tokens_bound(WLZ_MIN_MATCH)) < 0)
		return NULL;
	if (e->lz)
		e->ntokens += wlz_end(e->lz, e->words, e->nwords, e->tokens + e->ntokens, NULL);
	else
		e->ntokens += tokens_end(&e->tokens_state, e->tokens + e->ntokens);
	nt = e->ntokens;
	if (nt && e->forced)
		pick = e->forced;
	else if (allowance > 0 && nt) {
		sample =
		    e->lz4.n < WARM_UP || e->zstd.n < WARM_UP || ++e->since_sample >= SAMPLE_EVERY;
		if (!sample)
			pick = choose(e, nt, allowance, e->lz4.ratio * (double)nt,
				      e->zstd.ratio * (double)nt);
	}
	if (pick == WC_CODEC_TOKENS)
		goto tokens;
	/* zstd's output first, LZ4's after it: a sample keeps both. */
	zbound = ZSTD_compressBound(nt);
	lbound = lz4_bound(nt);
	if (reserve(&e->packed, &e->cap_packed, 0, zbound + lbound) < 0)
		return NULL;
	if (pick == WC_CODEC_TOKENS_LZ4 || sample) {
		t0 = allowance > 0 ? thread_ns() : 0;
		nl = lz4_pack(e, e->packed + zbound);
		if (allowance > 0)
			learn(&e->lz4, nl ? nl : nt, nt, thread_ns() - t0);
	}
	if (pick == WC_CODEC_TOKENS_ZSTD || sample) {
		t0 = allowance > 0 ? thread_ns() : 0;
		nz = zstd_pack(e, 0);
		if (allowance > 0)
			learn(&e->zstd, nz ? nz : nt, nt, thread_ns() - t0);
	}
	if (sample) {
		e->since_sample = 0;
		pick = choose(e, nt, allowance, nl ? (double)nl : (double)nt,
			      nz ? (double)nz : (double)nt);
	}
	if (pick == WC_CODEC_TOKENS_LZ4 && nl && nl < nt) {
		*len = nl;
		*codec = codec_of(e, WC_CODEC_TOKENS_LZ4);
		return e->packed + zbound;
	}
	if (pick == WC_CODEC_TOKENS_ZSTD && nz && nz < nt) {
		*len = nz;
		*codec = codec_of(e, WC_CODEC_TOKENS_ZSTD);
		return e->packed;
	}
tokens:
	*len = nt;
	*codec = codec_of(e, WC_CODEC_TOKENS);
	return e->tokens;
}

const void *wc_finish(struct wc_encoder *e, size_t *len, uint32_t *codec)
{
	return wc_finish_within(e, 0, len, codec);
}

const void *wc_encode(struct wc_encoder *e, const uint64_t *words, uint32_t n, size_t *len,
		      uint32_t *codec)
{
	wc_begin(e);
	if (wc_add(e, words, n) < 0)
		return NULL;
	return wc_finish(e, len, codec);
}

struct wc_decoder {
	struct wc_tables tables;
	ZSTD_DCtx *zd;
	unsigned char *tokens;
	size_t cap; /* bytes of tokens */
};

struct wc_decoder *wc_decoder_new(void)
{
	struct wc_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->zd = ZSTD_createDCtx();
	if (!d->zd) {
		free(d);
		return NULL;
	}
	return d;
}

void wc_decoder_free(struct wc_decoder *d)
{
	if (!d)
		return;
	ZSTD_freeDCtx(d->zd);
	free(d->tokens);
	free(d);
}

int wc_decode(struct wc_decoder *d, uint32_t codec, const void *in, size_t len, uint64_t *words,
	      uint32_t n, const char **why)
{
	const unsigned char *at = in, *end = at + len;
	unsigned long long size;
	size_t got;

	uint32_t second = wc_second_stage(codec);
	int lz = codec >= WC_CODEC_LZ;

	if (codec == WC_CODEC_TOKENS)
		return tokens_decode(&d->tables, in, len, words, n, why);
	if (codec == WC_CODEC_LZ)
		return wlz_decode(in, len, words, n, why);
	/* Both coders say how many token bytes they hold, and none valid is
	 * bigger than n words' worst tokens: a crafted size cannot make us
	 * allocate more. */
	if (second == WC_CODEC_TOKENS_ZSTD) {
		size = ZSTD_getFrameContentSize(in, len);
		if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) {
			*why = "bad zstd frame header";
			return -1;
		}
	} else if (second == WC_CODEC_TOKENS_LZ4) {
		uint64_t v;
		if (wt_get_varint(&at, end, &v) < 0) {
			*why = "LZ4 payload's length cut short";
			return -1;
		}
		size = v;
	} else {
		*why = "unknown codec";
		return -1;
	}
	if (size > wc_tokens_bound(n)) {
		*why = second == WC_CODEC_TOKENS_ZSTD ? "bad zstd frame header"
						      : "LZ4 payload's length out of range";
		return -1;
	}
	if (d->cap < size || !d->tokens) {
		size_t cap = size < 65536 ? 65536 : (size_t)size;
		unsigned char *t = realloc(d->tokens, cap);
		if (!t) {
			*why = "out of memory";
			return -1;
		}
		d->tokens = t;
		d->cap = cap;
	}
	if (second == WC_CODEC_TOKENS_ZSTD) {
		got = ZSTD_decompressDCtx(d->zd, d->tokens, (size_t)size, in, len);
		if (ZSTD_isError(got) || got != size) {
			*why = "corrupt zstd frame";
			return -1;
		}
	} else {
		int n4 = LZ4_decompress_safe((const char *)at, (char *)d->tokens, (int)(end - at),
					     (int)size);
		if (n4 < 0 || (size_t)n4 != size) {
			*why = "corrupt LZ4 block";
			return -1;
		}
		got = (size_t)n4;
	}
	if (lz)
		return wlz_decode(d->tokens, got, words, n, why);
	return tokens_decode(&d->tables, d->tokens, got, words, n, why);
}
