/* SPDX-License-Identifier: MIT */
/*
 * The word codec's match stage (user/common/word_lz.h, codecs 4-6 of
 * word_codec.h): round trips through wc_encode/wc_decode on random,
 * repetitive and adversarial streams, whole and in pieces of every size
 * (the stage keeps the stream's words and codes all but its last few at
 * each piece), with every second stage the allowance can choose; the token
 * layout against hand-written bytes (docs/wpp-file-format.md, "Compressed
 * batches", not the encoder's habits); hostile payloads — distances before
 * the stream's start, repeats before any match, lengths past the word
 * count, every truncation, bit flips, garbage — rejected or decoded to
 * exactly n words, never a read or write outside the output (ASan/UBSan,
 * and a canary after the n words).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zstd.h>

#include "common/varint.h"
#include "common/word_codec.h"
#include "common/word_lz.h"
#include "common/word_tokens.h"
#include "wpp/trace_abi.h"
#include "word_streams.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;
static uint64_t next_rand(void)
{
	return ws_next(&rng);
}

#define CANARY 0x5eed5eed5eed5eedull

/* Decode codec's payload into n words and check them against want (NULL:
 * only that it either fails or makes n words and leaves the canary). */
static int decode_checked(struct wc_decoder *d, uint32_t codec, const void *p, size_t len,
			  const uint64_t *want, uint32_t n)
{
	uint64_t *back = malloc(((size_t)n + 1) * 8);
	const char *why = NULL;
	int rc;

	back[n] = CANARY;
	rc = wc_decode(d, codec, p, len, back, n, &why);
	assert_true(back[n] == CANARY);
	if (want) {
		if (rc != 0)
			fail_msg("codec %u: decode failed: %s", codec, why);
		assert_memory_equal(back, want, (size_t)n * 8);
	} else if (rc != 0) {
		assert_non_null(why);
	}
	free(back);
	return rc;
}

/* The stream in pieces of the given sizes (cut: at most this many words a
 * piece, 0: whole), within allowances from none to everything: whichever
 * second stage is chosen, a match-stage codec that decodes to w.  Returns
 * the size with no allowance. */
static size_t round_trip_cut(const uint64_t *w, uint32_t n, uint32_t cut)
{
	struct wc_encoder *e = wc_encoder_new(1);
	struct wc_decoder *d = wc_decoder_new();
	size_t first = 0;

	assert_non_null(e);
	assert_non_null(d);
	assert_int_equal(wc_encoder_match_stage(e), 0);
	for (int64_t allow = 0; allow < (int64_t)n * 16 + 64; allow = allow * 5 + 1) {
		size_t len;
		uint32_t codec;

		wc_begin(e);
		for (uint32_t at = 0; at < n;) {
			uint32_t k = cut ? 1 + (uint32_t)(next_rand() % cut) : n - at;
			k = k > n - at ? n - at : k;
			assert_int_equal(wc_add(e, w + at, k), 0);
			at += k;
		}
		const void *p = wc_finish_within(e, allow, &len, &codec);
		assert_non_null(p);
		assert_true(codec >= WC_CODEC_LZ && codec <= WC_CODEC_LZ_LZ4);
		if (!allow) {
			first = len;
			assert_int_not_equal(codec, WC_CODEC_LZ_LZ4);
		}
		decode_checked(d, codec, p, len, w, n);
	}
	wc_decoder_free(d);
	wc_encoder_free(e);
	return first;
}

static size_t round_trip(const uint64_t *w, uint32_t n)
{
	size_t len = round_trip_cut(w, n, 0);
	round_trip_cut(w, n, 7);
	round_trip_cut(w, n, 3000);
	return len;
}

static void random_words(void **state)
{
	(void)state;
	ws_random_streams(round_trip, &rng, 20000, 10);
}

/* Trace-like streams: loops of a few paths, stretches repeated from far
 * back (the words an interpreter's loop makes again), REPEAT words. */
static void repetitive_words(void **state)
{
	enum { N = 60000 };
	uint64_t *w = malloc(N * 8);
	(void)state;
	for (int round = 0; round < 8; round++) {
		uint32_t nfun = 1 + (uint32_t)(next_rand() % 200);
		for (uint32_t i = 0; i < N; i++) {
			uint64_t r = next_rand();
			if (i > 100 && r % 5 == 0) { /* copy a stretch from up to 30000 back */
				uint32_t d = 1 + (uint32_t)((r >> 8) % (i < 30000 ? i : 30000));
				uint32_t len = 1 + (uint32_t)((r >> 40) % (round * 10 + 3));
				for (uint32_t k = 0; k < len && i < N; k++, i++)
					w[i] = w[i - d];
				i--;
			} else if (r % 97 == 1)
				w[i] = wpp_make_ctrl(WPP_CTRL_REPEAT, (uint32_t)(r >> 20) | 1);
			else
				w[i] = wpp_make_word(1 + (uint32_t)((r >> 8) % nfun), (r >> 32) % 50);
		}
		round_trip(w, N);
	}
	free(w);
}

static void adversarial_words(void **state)
{
	enum { N = 70000 };
	uint64_t *w = calloc(N, 8);
	(void)state;
	for (uint32_t n = 0; n < 12; n++) /* shorter than, around, a match */
		round_trip(w, n);
	assert_true(round_trip(w, N) < 64); /* all zero: one overlapping match */
	/* the spin loop among them: one match of distance 2 */
	ws_edge_streams(round_trip, w, N);
	/* one random block of 1000 words, 70 times: each copy one match */
	for (uint32_t i = 0; i < N; i++)
		w[i] = i < 1000 ? next_rand() : w[i - 1000];
	size_t once = round_trip(w, 1000), all = round_trip(w, N);
	assert_true(all < once + 70 * 8);
	free(w);
}

/* A stream begun and dropped (wc_begin again before wc_finish) leaves the
 * match table pointing ahead of the next stream's words; the next streams
 * must neither read there nor match wrongly. */
static void dropped_stream(void **state)
{
	enum { N = 40000 };
	uint64_t *w = malloc(N * 8);
	struct wc_encoder *e = wc_encoder_new(1);
	struct wc_decoder *d = wc_decoder_new();
	size_t len;
	uint32_t codec;
	(void)state;
	assert_int_equal(wc_encoder_match_stage(e), 0);
	for (uint32_t i = 0; i < N; i++)
		w[i] = wpp_make_word(3, next_rand() % 16);
	for (int round = 0; round < 4; round++) {
		wc_begin(e);
		assert_int_equal(wc_add(e, w, N), 0);
		wc_begin(e); /* dropped */
		assert_int_equal(wc_add(e, w + N / 2, N / 4), 0);
		const void *p = wc_finish(e, &len, &codec);
		assert_non_null(p);
		decode_checked(d, codec, p, len, w + N / 2, N / 4);
	}
	wc_decoder_free(d);
	wc_encoder_free(e);
	free(w);
}

static size_t put(unsigned char *p, uint64_t v)
{
	size_t k = 0;
	do {
		p[k] = (unsigned char)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
		v >>= 7;
		k++;
	} while (v);
	return k;
}

/* The layout as the format page states it: each token a varint t, kind
 * t & 3 — 0 repeat (t >> 2) + 4 words at the last distance, 1 match of
 * (t >> 2) + 4 words at distance (next varint) + 1, 2 literal (fid delta
 * zigzag in t >> 2, then the payload), 3 dictionary slot t >> 2 (set on
 * every literal, slot = (w * 0xC2B2AE3D27D4EB4F) >> 54). */
static void hand_written_tokens(void **state)
{
	unsigned char t[64];
	size_t k = 0;
	uint64_t a = wpp_make_word(5, 9), b = wpp_make_word(3, 1000);
	uint32_t slot_a = (uint32_t)((a * 0xC2B2AE3D27D4EB4Full) >> 54);
	uint64_t want[] = {a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, b, a, a};
	struct wc_decoder *d = wc_decoder_new();
	(void)state;
	k += put(t + k, (uint64_t)(5 << 1) << 2 | 2); /* literal fid 0 + 5 */
	k += put(t + k, 9);
	k += put(t + k, (uint64_t)((2 << 1) - 1) << 2 | 2); /* literal fid 5 - 2 */
	k += put(t + k, 1000);
	k += put(t + k, (uint64_t)(6 - 4) << 2 | 1); /* match of 6 at distance 2 */
	k += put(t + k, 2 - 1);
	k += put(t + k, (uint64_t)(8 - 4) << 2 | 0); /* repeat 8 more at distance 2 */
	k += put(t + k, (uint64_t)slot_a << 2 | 3); /* a from the dictionary */
	k += put(t + k, (uint64_t)slot_a << 2 | 3);
	decode_checked(d, WC_CODEC_LZ, t, k, want, 18);
	/* the same tokens as one zstd frame: codec 5 */
	unsigned char z[256];
	size_t zl = ZSTD_compress(z, sizeof(z), t, k, 1);
	assert_false(ZSTD_isError(zl));
	decode_checked(d, WC_CODEC_LZ_ZSTD, z, zl, want, 18);
	/* a codec past 6 is unknown */
	assert_int_equal(decode_checked(d, 7, t, k, NULL, 18), -1);
	wc_decoder_free(d);
}

/* varint_put_small (the match stage's distances) spells every value as the
 * format's varint does (put above, written from the format page), around
 * each byte count's bounds and at random, and writes nothing past four
 * bytes or the varint's end, whichever is further. */
static void small_varints(void **state)
{
	uint64_t seed = 7;
	(void)state;
	for (int k = 0; k < 4000; k++) {
		uint64_t v;
		if (k < 64 * 3) { /* 2^b - 1, 2^b, 2^b + 1 */
			v = (UINT64_C(1) << (k / 3)) + (uint64_t)(k % 3) - 1;
		} else {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			v = (seed >> 11) >> (seed % 40);
		}
		unsigned char want[16], got[16];
		size_t n = put(want, v);
		memset(got, 0xa5, sizeof(got));
		unsigned char *end = varint_put_small(got, v);
		assert_int_equal((size_t)(end - got), n);
		assert_memory_equal(got, want, n);
		for (size_t b = n > 4 ? n : 4; b < sizeof(got); b++)
			assert_int_equal(got[b], 0xa5);
	}
}

static void hostile_payloads(void **state)
{
	struct wc_decoder *d = wc_decoder_new();
	unsigned char t[64];
	size_t k;
	(void)state;
	/* a match reaching before the stream's start: 1 word made, distance 2 */
	k = put(t, 2 << 2 | 2);
	k += put(t + k, 1);
	k += put(t + k, 0 << 2 | 1);
	k += put(t + k, 1);
	assert_int_equal(decode_checked(d, WC_CODEC_LZ, t, k, NULL, 5), -1);
	/* the same at distance 1: 5 words, fine */
	t[k - 1] = 0;
	assert_int_equal(decode_checked(d, WC_CODEC_LZ, t, k, NULL, 5), 0);
	/* ... but one word past the count */
	assert_int_equal(decode_checked(d, WC_CODEC_LZ, t, k, NULL, 4), -1);
	/* a repeat before any match */
	k = put(t, 2 << 2 | 2);
	k += put(t + k, 1);
	k += put(t + k, 0 << 2 | 0);
	assert_int_equal(decode_checked(d, WC_CODEC_LZ, t, k, NULL, 5), -1);
	/* a length near 2^62, a distance near 2^64 */
	k = put(t, 2 << 2 | 2);
	k += put(t + k, 1);
	k += put(t + k, (UINT64_MAX & ~(uint64_t)3) | 1);
	k += put(t + k, 0);
	assert_int_equal(decode_checked(d, WC_CODEC_LZ, t, k, NULL, 100), -1);
	k = put(t, 2 << 2 | 2);
	k += put(t + k, 1);
	k += put(t + k, 1);
	k += put(t + k, UINT64_MAX);
	assert_int_equal(decode_checked(d, WC_CODEC_LZ, t, k, NULL, 100), -1);
	/* a dictionary slot out of range; a literal's fid out of range */
	k = put(t, (uint64_t)1024 << 2 | 3);
	assert_int_equal(decode_checked(d, WC_CODEC_LZ, t, k, NULL, 1), -1);
	k = put(t, (uint64_t)(1u << WPP_FID_BITS) << 3 | 2);
	k += put(t + k, 0);
	assert_int_equal(decode_checked(d, WC_CODEC_LZ, t, k, NULL, 1), -1);

	/* Every truncation and every single bit flip of real payloads of
	 * each codec: an error, or exactly n words (a flip may still make a
	 * valid stream), never past them. */
	enum { N = 3000 };
	uint64_t *w = malloc(N * 8);
	struct wc_encoder *e = wc_encoder_new(1);
	assert_int_equal(wc_encoder_match_stage(e), 0);
	for (uint32_t i = 0; i < N; i++)
		w[i] = i > 50 && next_rand() % 3 ? w[i - 1 - next_rand() % 40]
						 : wpp_make_word(1 + next_rand() % 9, next_rand() % 7);
	for (uint32_t second = WC_CODEC_TOKENS; second <= WC_CODEC_TOKENS_LZ4; second++) {
		size_t len;
		uint32_t codec;
		wc_encoder_force(e, second);
		const unsigned char *p = wc_encode(e, w, N, &len, &codec);
		assert_non_null(p);
		assert_int_equal(codec, second + 3);
		unsigned char *c = malloc(len);
		memcpy(c, p, len);
		decode_checked(d, codec, c, len, w, N);
		for (size_t cut = 0; cut < len; cut++)
			assert_int_equal(decode_checked(d, codec, c, cut, NULL, N), -1);
		for (size_t bit = 0; bit < len * 8; bit += 3) {
			c[bit / 8] ^= (unsigned char)(1u << bit % 8);
			decode_checked(d, codec, c, len, NULL, N);
			c[bit / 8] ^= (unsigned char)(1u << bit % 8);
		}
		/* the right payload, the wrong word count */
		assert_int_equal(decode_checked(d, codec, c, len, NULL, N - 1), -1);
		assert_int_equal(decode_checked(d, codec, c, len, NULL, N + 1), -1);
		free(c);
	}
	/* garbage */
	unsigned char g[512];
	for (int round = 0; round < 3000; round++) {
		size_t l = (size_t)(next_rand() % sizeof(g));
		for (size_t i = 0; i < l; i++)
			g[i] = (unsigned char)next_rand();
		decode_checked(d, WC_CODEC_LZ + (uint32_t)(round % 3), g, l, NULL,
			       (uint32_t)(next_rand() % 300));
	}
	wc_encoder_free(e);
	free(w);
	wc_decoder_free(d);
}

/* The distances of the match tokens in tokens[0..len), in order (the
 * layout of docs/wpp-file-format.md; a repeat takes the last distance). */
static uint32_t match_distances(const unsigned char *t, size_t len, uint64_t *d, uint32_t max)
{
	const unsigned char *p = t, *end = t + len;
	uint32_t n = 0;
	uint64_t v, last = 0;

	while (p < end) {
		assert_int_equal(wt_get_varint(&p, end, &v), 0);
		if ((v & 3) == 1) { /* match: its distance - 1 follows */
			assert_int_equal(wt_get_varint(&p, end, &last), 0);
			last++;
		} else if ((v & 3) == 2) { /* literal: its payload follows */
			assert_int_equal(wt_get_varint(&p, end, &v), 0);
			continue;
		} else if ((v & 3) == 3) {
			continue; /* dictionary */
		}
		if (n < max)
			d[n++] = last;
	}
	return n;
}

/* A stretch that began just inside an earlier match is found at that
 * match, not only at the older copy the match was made from: the encoder
 * puts the positions after a match's start in its table (word_lz.c,
 * insert_inside), and the nearest copy is the one later probes find. */
static void inside_a_match(void **state)
{
	enum { X = 8, F = 150, N = X + F + X + 1 + 4 + 1 };
	uint64_t w[N], d[8];
	unsigned char tok[wlz_tokens_bound(N)];
	struct wlz_state *z = wlz_new();
	uint32_t i = 0, x0;
	(void)state;
	for (; i < X + F; i++) /* X fresh words, then F more */
		w[i] = wpp_make_word(1 + i, next_rand() % 1000);
	for (x0 = i; i < x0 + X; i++) /* X again: one match of 158 back */
		w[i] = w[i - x0];
	w[i++] = wpp_make_word(500, 1); /* a fresh word */
	for (uint32_t k = 1; k <= 4; k++) /* X's words 1 to 4 */
		w[i++] = w[k];
	w[i++] = wpp_make_word(501, 2);
	assert_int_equal(i, N);
	size_t len = wlz_encode(z, w, N, tok, NULL);
	assert_int_equal(match_distances(tok, len, d, 8), 2);
	assert_int_equal(d[0], X + F);
	assert_int_equal(d[1], X); /* the second X's word 1, not the first's */
	round_trip(w, N);
	wlz_free(z);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(random_words),	  cmocka_unit_test(repetitive_words),
	    cmocka_unit_test(adversarial_words),  cmocka_unit_test(dropped_stream),
	    cmocka_unit_test(hand_written_tokens), cmocka_unit_test(hostile_payloads),
	    cmocka_unit_test(small_varints),	  cmocka_unit_test(inside_a_match),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
