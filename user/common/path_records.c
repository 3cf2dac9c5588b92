/* SPDX-License-Identifier: MIT */
/*
 * path_records.c — see path_records.h.
 *
 * Branch-free, so that it vectorizes: in the recorder this is the drain's
 * first read of every word.  Base x86-64 has no 64-bit vector compare, and
 * there the compiler keeps it scalar (~15 instructions a word, a tenth of
 * the collector's CPU on bzip2); an AVX2 copy is chosen at load time where
 * the CPU has it.
 */
#include "common/path_records.h"

#include "wpp/trace_abi.h"

__attribute__((target_clones("avx2", "default"))) uint64_t
wpp_count_path_records(const uint64_t *words, uint32_t n)
{
	uint64_t records = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint64_t w = words[i];
		uint64_t control = (w >> WPP_FID_SHIFT) == WPP_FID_CONTROL;
		uint64_t repeat = control & (((w >> 32) & 0xff) == WPP_CTRL_REPEAT);
		uint64_t value = (w >> 62) == 2; /* a WET value word (wet_abi.h) */
		records += (1 - control - value) + ((w & UINT32_MAX) & (0 - repeat));
	}
	return records;
}
