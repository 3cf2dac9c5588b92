/* SPDX-License-Identifier: MIT */
/*
 * bench_codec.c — what compressing batches costs and gains, on the batches
 * of real recordings: bytes per word and words per CPU second of each
 * candidate coder (zstd and LZ4 on the raw words, the word_codec tokens
 * alone, tokens + zstd, tokens + LZ4), and of word_codec's decoder.  Each
 * unit is one batch as recorded, or `--group N` batches of a thread joined
 * (a bigger unit, as a collector holding batches back would compress).
 * The figures are in docs/benchmarks.md ("Compressing batches"); run by
 * scripts/bench-keepup.
 *
 *   bench_codec [--group N] [--reps R] [--budget B] [--dump TOKENS] FILE.wpp...
 *
 * `fast` is word_codec as `record --compress fast` runs it: a unit may take
 * what B bytes per path record (default 0.5, RECORD_FAST_BYTES_PER_RECORD)
 * of the records so far allow, less the bytes so far, where LZ4 or no
 * second stage saves at least NS ns of CPU per byte added (default
 * WC_MIN_GAIN_NS_PER_BYTE; wc_finish_within; the bench's units have no
 * chunk heads, so the account is of payloads only).  Its line says how
 * many units each codec took.
 *
 * `lz`, `lz+zstd-1`, `lz+lz4`: the match stage (word_lz.h) in place of the
 * tokens, alone and with each second stage; its line says how many words
 * fell in matches (of at least 8 and 32 words too), how many matches took
 * the last distance, how many literals and dictionary hits there were.
 * `fast-lz` is `fast` over the match stage: what `record --compress fast`
 * runs since version 4 files.  `decode lz+zstd` decodes word_codec's match
 * stage output.
 *
 * --dump writes every unit's token bytes to TOKENS, one after another: two
 * builds of the encoder must write the same file (a faster token stage may
 * not change the format); --dump-lz the same of the match stage's tokens.
 * --only M,... runs only the methods named (as the lines name them).
 */
#include <lz4.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include "common/path_records.h"
#include "common/word_codec.h"
#include "common/word_lz.h"
#include "common/wppfile.h"

struct unit {
	uint32_t tid, n;
	uint64_t *w;
	uint64_t records;
};

static struct unit *units;
static size_t nunits, cap_units;
static uint64_t total_words, total_records;

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Append n words of thread tid, joining onto that thread's open unit while
 * it holds fewer than group batches' worth. */
static void add_words(uint32_t tid, const unsigned char *p, uint32_t n, uint32_t group,
		      uint32_t *joined)
{
	struct unit *u = NULL;
	for (size_t i = nunits; i-- > 0;)
		if (units[i].tid == tid) {
			u = &units[i];
			break;
		}
	if (!u || *joined >= group) {
		if (nunits == cap_units) {
			cap_units = cap_units ? cap_units * 2 : 1024;
			units = realloc(units, cap_units * sizeof(*units));
		}
		u = &units[nunits++];
		*u = (struct unit){tid, 0, NULL, 0};
		*joined = 0;
	}
	u->w = realloc(u->w, ((size_t)u->n + n) * 8);
	memcpy(u->w + u->n, p, (size_t)n * 8);
	u->records += wpp_count_path_records(u->w + u->n, n);
	total_records += wpp_count_path_records(u->w + u->n, n);
	u->n += n;
	++*joined;
	total_words += n;
}

static void load(const char *path, uint32_t group)
{
	struct wpp_reader *r = wppr_open(path);
	struct wpp_chunk c;
	uint32_t joined = 0;

	if (!r)
		exit(1);
	while (wppr_next(r, &c) == 1) {
		struct wpp_chunk_batch b;
		if (c.type != WPP_CHUNK_BATCH || c.length < sizeof(b))
			continue;
		memcpy(&b, c.payload, sizeof(b));
		if ((uint64_t)b.nwords * 8 != c.length - sizeof(b) || !b.nwords)
			continue;
		add_words(b.tid, (const unsigned char *)c.payload + sizeof(b), b.nwords, group,
			  &joined);
	}
	wppr_close(r);
}

enum method {
	RAW_ZSTD1,
	RAW_ZSTDM3,
	RAW_LZ4,
	TOKENS,
	TOK_ZSTD1,
	TOK_ZSTDM3,
	TOK_LZ4,
	CODEC,
	FAST,
	LZ,
	LZ_ZSTD1,
	LZ_LZ4,
	FAST_LZ,
	NM
};
static const char *const names[NM] = {
    "zstd-1 raw",     "zstd--3 raw", "lz4 raw",	   "tokens", "tokens+zstd-1",
    "tokens+zstd--3", "tokens+lz4",  "word_codec", "fast",   "lz",
    "lz+zstd-1",      "lz+lz4",	     "fast-lz"};

/* Whether name is one of the comma-separated list's. */
static int listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		if (strcspn(p, ",") == n && !strncmp(p, name, n))
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t group = 1, reps = 1;
	double budget = 0.5, min_gain = WC_MIN_GAIN_NS_PER_BYTE;
	const char *dump = NULL, *dump_lz = NULL, *only = NULL;
	int i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--group") && i + 1 < argc)
			group = (uint32_t)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
			reps = (uint32_t)atoi(argv[++i]);
		else if (!strcmp(argv[i], "--budget") && i + 1 < argc)
			budget = atof(argv[++i]);
		else if (!strcmp(argv[i], "--min-gain") && i + 1 < argc)
			min_gain = atof(argv[++i]);
		else if (!strcmp(argv[i], "--dump") && i + 1 < argc)
			dump = argv[++i];
		else if (!strcmp(argv[i], "--dump-lz") && i + 1 < argc)
			dump_lz = argv[++i];
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = argv[++i];
		else {
			fprintf(stderr, "usage: bench_codec [--group N] [--reps R] [--budget B] "
					"[--dump TOKENS] [--dump-lz TOKENS] [--only M,...] "
					"FILE.wpp...\n");
			return 2;
		}
	}
	for (; i < argc; i++)
		load(argv[i], group ? group : 1);
	if (!total_words) {
		fprintf(stderr, "bench_codec: no batches\n");
		return 1;
	}
	size_t maxn = 0;
	for (size_t k = 0; k < nunits; k++)
		maxn = units[k].n > maxn ? units[k].n : maxn;
	size_t tb = wc_tokens_bound((uint32_t)maxn);
	unsigned char *tok = malloc(tb), *out = malloc(ZSTD_compressBound(tb) + maxn * 9 + 64);
	uint64_t *back = malloc(maxn * 8);
	ZSTD_CCtx *zc = ZSTD_createCCtx();
	struct wc_encoder *enc = wc_encoder_new(1), *fast = wc_encoder_new(1);
	struct wc_encoder *fast_lz = wc_encoder_new(1), *enc_lz = wc_encoder_new(1);
	struct wc_decoder *dec = wc_decoder_new();
	struct wlz_state *lz = wlz_new();
	struct wlz_stats lzst;
	unsigned char *ltok = malloc(wlz_tokens_bound((uint32_t)maxn));
	int zcap = (int)(ZSTD_compressBound(tb) + maxn * 9);

	wc_encoder_min_gain(fast, min_gain);
	wc_encoder_min_gain(fast_lz, min_gain);
	if (wc_encoder_match_stage(fast_lz) < 0 || wc_encoder_match_stage(enc_lz) < 0)
		return 1;

	for (int d = 0; d < 2; d++) {
		const char *to = d ? dump_lz : dump;
		FILE *f = to ? fopen(to, "w") : NULL;
		for (size_t k = 0; f && k < nunits; k++)
			fwrite(tok, 1,
			       d ? wlz_encode(lz, units[k].w, units[k].n, tok, NULL)
				 : wc_tokens_encode(units[k].w, units[k].n, tok),
			       f);
		if (to && (!f || fclose(f))) {
			perror(to);
			return 1;
		}
	}
	printf("units %zu (group %u), words %llu, path records %llu\n", nunits, group,
	       (unsigned long long)total_words, (unsigned long long)total_records);
	printf("%-16s %10s %10s %12s\n", "method", "bytes/word", "bytes/rec", "Mwords/s");
	for (int m = 0; m < NM; m++) {
		if (only && !listed(only, names[m]))
			continue;
		double best = 1e30;
		uint64_t bytes = 0, records = 0, took[4] = {0};
		for (uint32_t r = 0; r < reps; r++) {
			double t0 = cpu_now();
			memset(&lzst, 0, sizeof(lzst));
			bytes = records = 0;
			memset(took, 0, sizeof(took));
			for (size_t k = 0; k < nunits; k++) {
				const struct unit *u = &units[k];
				size_t len = 0, raw = (size_t)u->n * 8;
				uint32_t codec;
				switch (m) {
				case RAW_ZSTD1:
				case RAW_ZSTDM3:
					len = ZSTD_compressCCtx(zc, out, (size_t)zcap, u->w, raw,
								m == RAW_ZSTD1 ? 1 : -3);
					break;
				case RAW_LZ4:
					len = (size_t)LZ4_compress_default(
					    (const char *)u->w, (char *)out, (int)raw, zcap);
					break;
				case TOKENS:
					len = wc_tokens_encode(u->w, u->n, tok);
					break;
				case TOK_ZSTD1:
				case TOK_ZSTDM3:
					len = wc_tokens_encode(u->w, u->n, tok);
					len = ZSTD_compressCCtx(zc, out, (size_t)zcap, tok, len,
								m == TOK_ZSTD1 ? 1 : -3);
					break;
				case TOK_LZ4:
					len = wc_tokens_encode(u->w, u->n, tok);
					len = (size_t)LZ4_compress_default(
					    (const char *)tok, (char *)out, (int)len, zcap);
					break;
				case CODEC:
					wc_encode(enc, u->w, u->n, &len, &codec);
					break;
				case LZ:
				case LZ_ZSTD1:
				case LZ_LZ4:
					len = wlz_encode(lz, u->w, u->n, ltok, r ? NULL : &lzst);
					if (m == LZ_ZSTD1)
						len = ZSTD_compressCCtx(zc, out, (size_t)zcap, ltok,
									len, 1);
					else if (m == LZ_LZ4)
						len = (size_t)LZ4_compress_default(
						    (const char *)ltok, (char *)out, (int)len,
						    zcap);
					break;
				case FAST:
				case FAST_LZ: {
					struct wc_encoder *fe = m == FAST ? fast : fast_lz;
					records += u->records;
					wc_begin(fe);
					wc_add(fe, u->w, u->n);
					wc_finish_within(fe,
							 (int64_t)(budget * (double)records) -
							     (int64_t)bytes,
							 &len, &codec);
					took[wc_second_stage(codec)]++;
					break;
				}
				}
				bytes += len;
			}
			double dt = cpu_now() - t0;
			best = dt < best ? dt : best;
		}
		printf("%-16s %10.4f %10.4f %12.1f", names[m], (double)bytes / (double)total_words,
		       total_records ? (double)bytes / (double)total_records : 0.0,
		       (double)total_words / best / 1e6);
		if (m == FAST || m == FAST_LZ)
			printf("   (units: %llu tokens, %llu zstd, %llu lz4; budget %.3f B/rec, "
			       "min gain %.2f ns/B)",
			       (unsigned long long)took[WC_CODEC_TOKENS],
			       (unsigned long long)took[WC_CODEC_TOKENS_ZSTD],
			       (unsigned long long)took[WC_CODEC_TOKENS_LZ4], budget, min_gain);
		if (m == LZ)
			printf("   (matched %.3f, in matches >= 8 %.3f, >= 32 %.3f; %llu matches, "
			       "%llu repeats, %llu literals, %llu dict)",
			       (double)lzst.matched / (double)total_words,
			       (double)lzst.in_long8 / (double)total_words,
			       (double)lzst.in_long32 / (double)total_words,
			       (unsigned long long)lzst.matches,
			       (unsigned long long)lzst.rep_matches,
			       (unsigned long long)(lzst.literals - lzst.dict),
			       (unsigned long long)lzst.dict);
		printf("\n");
	}
	/* The decoder, on word_codec's own output: the tokens', the match
	 * stage's. */
	for (int lz = 0; lz < 2; lz++) {
		struct wc_encoder *de = lz ? enc_lz : enc;
		double best = 1e30;
		if (only && !listed(only, lz ? "decode lz+zstd" : "decode"))
			continue;
		for (uint32_t r = 0; r < reps; r++) {
			double spent = 0;
			for (size_t k = 0; k < nunits; k++) {
				const struct unit *u = &units[k];
				size_t len;
				uint32_t codec;
				const char *why;
				const void *p = wc_encode(de, u->w, u->n, &len, &codec);
				memcpy(out, p, len);
				double t0 = cpu_now();
				if (wc_decode(dec, codec, out, len, back, u->n, &why) < 0 ||
				    memcmp(back, u->w, (size_t)u->n * 8)) {
					fprintf(stderr,
						"bench_codec: round trip failed on unit %zu\n", k);
					return 1;
				}
				spent += cpu_now() - t0;
			}
			best = spent < best ? spent : best;
		}
		printf("%-16s %10s %10s %12.1f\n", lz ? "decode lz+zstd" : "decode", "", "",
		       (double)total_words / best / 1e6);
	}
	return 0;
}
