/* SPDX-License-Identifier: MIT */
/*
 * word_codec.h — compress a stream of trace words at the rate they arrive,
 * and back (the payload of a BATCH_Z chunk, docs/wpp-file-format.md: the
 * words of one or more batches of one thread, coded as one stream).
 *
 * Two stages, each stream on its own (a damaged chunk never spoils another):
 *
 *  1. tokens: an order-1 predictor over the batch's words.  A table indexed
 *     by a hash of the previous word holds the word that followed it last
 *     time; a run of words the table predicts becomes one "run" token, a
 *     word seen before in the batch but not predicted becomes a "dict"
 *     index, anything else a literal (fid delta, path id as varints).
 *     Paths follow each other in a few fixed ways (a loop body, a spin
 *     loop alternating two paths), so most words are one bit of a run.
 *  2. zstd (Debian's libzstd) over the token bytes, which finds the
 *     repeated *sequences* of misses the order-1 table cannot; dropped
 *     when it does not shrink the tokens.  Where the caller can afford
 *     more bytes (wc_finish_within), a cheaper second stage: LZ4 (Debian's
 *     liblz4, a third of zstd's time on tokens) or none at all.
 *
 * Why this shape and not zstd or LZ4 on the raw words: measured in
 * docs/benchmarks.md ("Compressing batches").
 *
 * Or, in place of stage 1 (wc_encoder_match_stage, codecs 4-6): the match
 * stage of word_lz.h, which copies repeated stretches of the stream at a
 * probe per stretch where the tokens look up every word (docs/benchmarks.md,
 * "A match stage").  The second stage and its choice are the same.
 *
 * Decoding checks everything it reads: a corrupt payload yields an error,
 * never a crash, an overrun or a different word count.
 */
#ifndef WPP_WORD_CODEC_H
#define WPP_WORD_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* How the payload after the chunk's fixed part is coded. */
enum wc_codec {
	WC_CODEC_TOKENS = 1,	  /* token bytes as they are */
	WC_CODEC_TOKENS_ZSTD = 2, /* one zstd frame of the token bytes */
	WC_CODEC_TOKENS_LZ4 = 3,  /* varint token length, one LZ4 block of them */
	/* The same three second stages over the match stage's tokens
	 * (word_lz.h; version 4 files). */
	WC_CODEC_LZ = 4,
	WC_CODEC_LZ_ZSTD = 5,
	WC_CODEC_LZ_LZ4 = 6,
};

/* The second stage of a codec: WC_CODEC_TOKENS, _ZSTD or _LZ4 (0: not a
 * codec). */
static inline uint32_t wc_second_stage(uint32_t codec)
{
	return codec >= WC_CODEC_TOKENS && codec <= WC_CODEC_LZ_LZ4 ? (codec - 1) % 3 + 1 : 0;
}

/* Largest token stream of n words (a literal is at most 4 + 10 bytes). */
static inline size_t wc_tokens_bound(uint32_t n)
{
	return (size_t)n * 14 + 16;
}

/* Stage 1 alone: tokens of words[0..n) into out (at least
 * wc_tokens_bound(n) bytes); returns the bytes written. */
size_t wc_tokens_encode(const uint64_t *words, uint32_t n, unsigned char *out);
/* Exactly n words from the len token bytes at in; 0, or -1 (with *why) when
 * the tokens are malformed or do not make exactly n words. */
int wc_tokens_decode(const unsigned char *in, size_t len, uint64_t *words, uint32_t n,
		     const char **why);

struct wc_encoder;
/* level: zstd's (1 is what the collector uses; docs/benchmarks.md).
 * NULL when out of memory.  A new encoder has begun a stream. */
struct wc_encoder *wc_encoder_new(int level);
void wc_encoder_free(struct wc_encoder *e);
/* The encoder's first stage is the match stage (codecs 4-6) instead of the
 * tokens from now on; a stream begins (as wc_begin).  0, or -1 when out of
 * memory (the encoder is then as it was). */
int wc_encoder_match_stage(struct wc_encoder *e);
/* One stream in pieces: wc_begin, wc_add per piece (0, or -1 when out of
 * memory), wc_finish: a pointer to the coded bytes (owned by e, valid
 * until the next wc_begin), *len and *codec set; NULL when out of memory
 * (here or in a wc_add since wc_begin).  Decodes as one stream of all the
 * pieces' words. */
void wc_begin(struct wc_encoder *e);
int wc_add(struct wc_encoder *e, const uint64_t *words, uint32_t n);
/* wc_add, adding the path records of the words (wpp_count_path_records)
 * to *records: counted as the match stage copies the words, or after the
 * token stage read them (in cache then).  *records is unchanged on -1. */
int wc_add_counted(struct wc_encoder *e, const uint64_t *words, uint32_t n, uint64_t *records);
const void *wc_finish(struct wc_encoder *e, size_t *len, uint32_t *codec);
/* wc_finish, allowed up to allowance payload bytes where that saves CPU:
 * LZ4 when it fits and saves at least the encoder's min_gain ns of zstd's
 * CPU per byte it adds (or is no bigger than zstd), then the token bytes
 * as they are when they fit and save at least min_gain ns per byte they
 * add over that choice; else zstd as wc_finish.  The sizes and costs are
 * what this encoder measured on recent chunks (every chunk, in its own
 * thread's CPU time; both coders on the first two and every 32nd).
 * allowance <= 0: wc_finish exactly.
 * The caller keeps the account (record_sink: bytes per path record). */
const void *wc_finish_within(struct wc_encoder *e, int64_t allowance, size_t *len, uint32_t *codec);
/* What the second stage of the stream so far should cost, in ns of CPU,
 * by this encoder's measures (the cheaper coder's; 0: not measured yet). */
double wc_second_stage_ns(const struct wc_encoder *e);
/* Below this many ns of zstd's CPU saved per byte added, bytes are not
 * worth spending (about what writing, reading back and decoding a byte
 * costs, with room: docs/benchmarks.md, "Spending the bytes headroom"). */
#define WC_MIN_GAIN_NS_PER_BYTE 2.0
/* Set the encoder's rate (0: any saving is worth a byte; negative: bytes
 * are free, the allowance alone decides). */
void wc_encoder_min_gain(struct wc_encoder *e, double ns_per_byte);
/* Every later wc_finish and wc_finish_within takes codec's second stage
 * (wc_second_stage: none, zstd or LZ4) whatever the measures and the
 * allowance say (none when the coder's output would not be smaller); 0
 * lets the measures choose again.  For tests that need a
 * given kind of chunk on disk (record --debug-second-stage), not a knob. */
void wc_encoder_force(struct wc_encoder *e, uint32_t codec);
/* wc_begin, wc_add, wc_finish of one piece. */
const void *wc_encode(struct wc_encoder *e, const uint64_t *words, uint32_t n, size_t *len,
		      uint32_t *codec);

struct wc_decoder;
struct wc_decoder *wc_decoder_new(void);
void wc_decoder_free(struct wc_decoder *d);
/* Decode a payload coded as codec into exactly n words.  0, or -1 with
 * *why (a static string) when it is corrupt or memory ran out. */
int wc_decode(struct wc_decoder *d, uint32_t codec, const void *in, size_t len, uint64_t *words,
	      uint32_t n, const char **why);

#endif
