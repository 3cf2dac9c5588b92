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
 *     with the same bytes, or WET_DEDUP_NEW.
 *   - The bytes are not copied.  With a base, earlier streams' bytes are
 *     read at base + the offset given when each was new (the stored
 *     string being written: the caller places them there), and equality
 *     is byte for byte.  Without one (counting sizes only), equality is
 *     by length and a 64-bit hash (a CRC32C and 32 bits of an FNV-1a): a
 *     collision would misstate a figure by one stream, never what is
 *     stored.
 *   - Memory: 20 bytes a stream and a hash table of 8 to 32 bytes a
 *     distinct stream.
 */
#ifndef WPP_WET_DEDUP_H
#define WPP_WET_DEDUP_H

#include <stddef.h>
#include <stdint.h>

#define WET_DEDUP_NEW UINT64_MAX
#define WET_DEDUP_OOM (WET_DEDUP_NEW - 1)

struct wet_dedup {
	uint64_t *off;	/* per ordinal: where its bytes are (UINT64_MAX: a repeat) */
	uint32_t *len;	/* per ordinal */
	uint64_t *hash; /* per ordinal: two CRC32Cs */
	uint64_t count; /* ordinals handed out */
	uint64_t cap;
	uint64_t *slots; /* hash table of ordinal + 1 (0: empty) */
	uint64_t nslots, used;
};

void wet_dedup_init(struct wet_dedup *d);
/* The ordinal of an earlier stream with bytes b[0..n), or WET_DEDUP_NEW
 * (it is then remembered as lying at base + at); either way the stream
 * takes the next ordinal.  base NULL: compare by hash (above).
 * WET_DEDUP_OOM when out of memory (nothing is then recorded). */
uint64_t wet_dedup_offer(struct wet_dedup *d, const uint8_t *base, const uint8_t *b, size_t n,
			 uint64_t at);
/* Bytes a reference to ordinal `to` takes where it is stored: a 0 length
 * and the ordinal, varints. */
size_t wet_dedup_ref_bytes(uint64_t to);
void wet_dedup_free(struct wet_dedup *d);

#endif
