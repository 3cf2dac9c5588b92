/* SPDX-License-Identifier: MIT */
/*
 * stable_hash.h — 64-bit hashes of content only (names, files, CFG shape),
 * never of pointers, addresses or time, so the same source compiled twice
 * gives the same function ids and TU hash (profiles from one run can drive
 * the next build).  FNV-1a with a final avalanche mix.
 */
#ifndef WPP_INSTRUMENT_STABLE_HASH_H
#define WPP_INSTRUMENT_STABLE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define WPP_HASH_INIT UINT64_C(0xcbf29ce484222325)

static inline uint64_t wpp_hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

static inline uint64_t wpp_hash_u64(uint64_t h, uint64_t v)
{
	unsigned char b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	return wpp_hash_bytes(h, b, 8);
}

/* Length-prefixed, so ("ab","c") and ("a","bc") differ. */
static inline uint64_t wpp_hash_str(uint64_t h, const char *s, size_t n)
{
	return wpp_hash_bytes(wpp_hash_u64(h, n), s, n);
}

static inline uint64_t wpp_hash_final(uint64_t h)
{
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	h *= UINT64_C(0xc4ceb9fe1a85ec53);
	h ^= h >> 33;
	return h;
}

#endif
