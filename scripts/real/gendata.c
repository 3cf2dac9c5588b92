/* SPDX-License-Identifier: MIT */
/*
 * gendata — deterministic workload inputs for the real-program tests and
 * benchmarks.  The same (kind, size, seed) always gives the same bytes, on
 * any machine, so every build of a program sees identical input.
 *
 * Usage: gendata KIND SIZE SEED > file
 *   text    words from a fixed vocabulary with a skewed (roughly Zipf)
 *           choice, punctuation, line breaks and numbers: compresses like
 *           prose, exercises the match finders' long and short matches
 *   binary  uniform random bytes: incompressible, exercises stored blocks
 *           and the encoders' worst cases
 *   mixed   alternating runs of text, random bytes and long repeats of one
 *           byte: exercises block-type switches and run-length paths
 *
 * xorshift64* is used rather than rand(): its sequence is fixed by the
 * seed, independent of libc.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;

static uint64_t rng_next(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(2685821657736338717);
}

static uint32_t rng_below(uint32_t n)
{
	return (uint32_t)((rng_next() >> 32) % n);
}

static const char *const vocabulary[] = {
    "the",
    "of",
    "and",
    "to",
    "in",
    "a",
    "is",
    "that",
    "for",
    "it",
    "as",
    "was",
    "with",
    "be",
    "by",
    "on",
    "not",
    "he",
    "this",
    "are",
    "or",
    "his",
    "from",
    "at",
    "which",
    "but",
    "have",
    "an",
    "had",
    "they",
    "you",
    "were",
    "their",
    "one",
    "all",
    "we",
    "can",
    "her",
    "has",
    "there",
    "been",
    "if",
    "more",
    "when",
    "will",
    "would",
    "who",
    "so",
    "no",
    "path",
    "trace",
    "buffer",
    "compiler",
    "function",
    "thread",
    "register",
    "collector",
    "grammar",
    "profile",
    "kernel",
    "instrumentation",
    "acyclic",
    "whole",
    "program",
};
#define VOCAB_SIZE (sizeof(vocabulary) / sizeof(vocabulary[0]))

/* Skewed pick: the minimum of two uniform draws favours small indices,
 * so common words dominate as in natural text. */
static const char *pick_word(void)
{
	uint32_t a = rng_below(VOCAB_SIZE), b = rng_below(VOCAB_SIZE);
	return vocabulary[a < b ? a : b];
}

static size_t emit_text(FILE *out, size_t budget)
{
	size_t written = 0;
	unsigned col = 0;
	while (written < budget) {
		char word[48];
		int n;
		uint32_t r = rng_below(100);
		if (r < 4)
			n = snprintf(word, sizeof word, "%u", (unsigned)rng_below(100000));
		else
			n = snprintf(word, sizeof word, "%s", pick_word());
		if (r >= 96)
			word[n++] = ",.;:"[r - 96];
		if (col + (unsigned)n >= 72) {
			word[n++] = '\n';
			col = 0;
		} else {
			word[n++] = ' ';
			col += (unsigned)n;
		}
		if ((size_t)n > budget - written)
			n = (int)(budget - written);
		fwrite(word, 1, (size_t)n, out);
		written += (size_t)n;
	}
	return written;
}

static size_t emit_binary(FILE *out, size_t budget)
{
	size_t written = 0;
	while (written < budget) {
		uint64_t v = rng_next();
		size_t n = budget - written < 8 ? budget - written : 8;
		fwrite(&v, 1, n, out);
		written += n;
	}
	return written;
}

static size_t emit_run(FILE *out, size_t budget)
{
	int byte = (int)rng_below(256);
	for (size_t i = 0; i < budget; i++)
		fputc(byte, out);
	return budget;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: gendata text|binary|mixed SIZE SEED\n");
		return 2;
	}
	char *end;
	size_t size = strtoull(argv[2], &end, 10);
	if (*end) {
		fprintf(stderr, "gendata: bad size '%s'\n", argv[2]);
		return 2;
	}
	rng_state = strtoull(argv[3], &end, 10) * UINT64_C(0x9E3779B97F4A7C15) + 1;
	if (*end) {
		fprintf(stderr, "gendata: bad seed '%s'\n", argv[3]);
		return 2;
	}
	if (!strcmp(argv[1], "text"))
		emit_text(stdout, size);
	else if (!strcmp(argv[1], "binary"))
		emit_binary(stdout, size);
	else if (!strcmp(argv[1], "mixed")) {
		size_t done = 0;
		while (done < size) {
			size_t chunk = 512 + rng_below(16384);
			if (chunk > size - done)
				chunk = size - done;
			switch (rng_below(3)) {
			case 0:
				done += emit_text(stdout, chunk);
				break;
			case 1:
				done += emit_binary(stdout, chunk / 4 + 1 > size - done
								? size - done
								: chunk / 4 + 1);
				break;
			default:
				done += emit_run(stdout, chunk);
				break;
			}
		}
	} else {
		fprintf(stderr, "gendata: unknown kind '%s'\n", argv[1]);
		return 2;
	}
	return fflush(stdout) == 0 ? 0 : 1;
}
