/* SPDX-License-Identifier: MIT */
/*
 * path_records.c — see path_records.h.
 *
 * In the recorder this runs on every word the drain hands on (after the
 * token stage read them: they are in cache), so its cost per word is what
 * matters.  Nearly every word is a plain path word, and those are exactly
 * the words that read as signed 64-bit values of at least 2^40 (control
 * words have fid 0, so they are below 2^40; WET value words and the
 * unregistered fid have the top bit set).  So each block of eight words
 * is first checked with one compare a word (vectorized: AVX2 picked at
 * load time where the CPU has it, base x86-64 having no 64-bit vector
 * compare); a block of plain words is eight records, and only a block
 * with some other word is weighed word by word.  (The word-by-word
 * formula on every word, vectorized, was 10-14 % of lua's collector.)
 */
#include "common/path_records.h"

#include <string.h>

#include "wpp/trace_abi.h"

/* One word's records: the exact rule. */
static inline uint64_t word_records(uint64_t w)
{
	uint64_t control = (w >> WPP_FID_SHIFT) == WPP_FID_CONTROL;
	uint64_t repeat = control & (((w >> 32) & 0xff) == WPP_CTRL_REPEAT);
	uint64_t value = (w >> 62) == 2; /* a WET value word (wet_abi.h) */
	return (1 - control - value) + ((w & UINT32_MAX) & (0 - repeat));
}

#define BLOCK 8
/* The least signed value of a word of a real fid (fid >= 1, top bit 0). */
#define PLAIN_MIN ((int64_t)1 << WPP_FID_SHIFT)

/* The records of the block of BLOCK words at w. */
static inline __attribute__((always_inline)) uint64_t block_records(const uint64_t *w)
{
	uint64_t other = 0, records = 0;

	for (uint32_t k = 0; k < BLOCK; k++)
		other |= (int64_t)w[k] < PLAIN_MIN;
	if (!other)
		return BLOCK;
	for (uint32_t k = 0; k < BLOCK; k++)
		records += word_records(w[k]);
	return records;
}

__attribute__((target_clones("avx2", "default"))) uint64_t
wpp_count_path_records(const uint64_t *words, uint32_t n)
{
	uint64_t records = 0;
	uint32_t i = 0;

	for (; i + BLOCK <= n; i += BLOCK)
		records += block_records(words + i);
	for (; i < n; i++)
		records += word_records(words[i]);
	return records;
}

/* (Each block copied and weighed from the same loads: the words come from
 * another core's cache, and the separate count pass read them again.) */
__attribute__((target_clones("avx2", "default"))) uint64_t
wpp_copy_path_records(uint64_t *restrict dst, const uint64_t *restrict words, uint32_t n)
{
	uint64_t records = 0;
	uint32_t i = 0;

	for (; i + BLOCK <= n; i += BLOCK) {
		memcpy(dst + i, words + i, BLOCK * sizeof(*words));
		records += block_records(words + i);
	}
	for (; i < n; i++) {
		dst[i] = words[i];
		records += word_records(words[i]);
	}
	return records;
}
