/* SPDX-License-Identifier: MIT */
/*
 * wet_dedup.h — equal label streams of one WET stored once (docs/wet.md,
 * "Labels shared across nodes").  The paper shares one copy of the labels
 * of a group of non-local edges between two nodes; here any label stream
 * of a thread's WET (timestamps, values, edge labels, of any node) whose
 * serialized bytes equal an earlier one's is stored as a reference to it.
 * On zlib's test run a quarter of the stored bytes were such repeats:
 * edge labels whose def runs in step with the use in several nodes, and
 * the same few values seen by the same statement in several paths of a
 * function.
 *
 * Contract
 *   - Streams are offered in the order they are stored; each gets the next
 *     ordinal.  wet_dedup_offer returns the ordinal of an earlier stream
 *     with the same bytes (compared byte for byte, not by hash alone), or
 *     WET_DEDUP_NEW and remembers the bytes.
 *   - Memory: a copy of every distinct stream's bytes (the stored size)
 *     and 16 bytes of index per stream.
 */
#ifndef WPP_WET_DEDUP_H
#define WPP_WET_DEDUP_H

#include <stddef.h>
#include <stdint.h>

#define WET_DEDUP_NEW UINT64_MAX

struct wet_dedup {
	uint8_t *bytes; /* distinct streams, end to end */
	size_t nbytes, cap_bytes;
	uint64_t *off;	/* per ordinal: offset in bytes (UINT64_MAX: a repeat) */
	uint32_t *len;	/* per ordinal */
	uint64_t count; /* ordinals handed out */
	uint64_t cap;
	uint64_t *slots; /* hash table of ordinal + 1 (0: empty) */
	uint64_t nslots, used;
};

void wet_dedup_init(struct wet_dedup *d);
#define WET_DEDUP_OOM (WET_DEDUP_NEW - 1)
/* The ordinal of an earlier stream with these bytes, or WET_DEDUP_NEW
 * (and b is remembered); either way the stream takes the next ordinal.
 * WET_DEDUP_OOM when out of memory (nothing is then recorded). */
uint64_t wet_dedup_offer(struct wet_dedup *d, const uint8_t *b, size_t n);
/* Bytes a reference to ordinal `to` takes where it is stored: a 0 length
 * and the ordinal, varints. */
size_t wet_dedup_ref_bytes(uint64_t to);
void wet_dedup_free(struct wet_dedup *d);

#endif
