/* SPDX-License-Identifier: MIT */
/*
 * wet_dedup.c — equal label streams stored once (wet_dedup.h): a hash
 * table over a CRC32C and an FNV-1a of each stream, open addressing; with
 * the stored string at hand, a match is confirmed byte for byte.
 */
#include "analysis/wet/wet_dedup.h"

#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "common/varint.h"

void wet_dedup_init(struct wet_dedup *d)
{
	*d = (struct wet_dedup){0};
}

/* A second hash unrelated to the CRC: two CRC32Cs of different seeds
 * differ by a function of the length only, so they would add nothing. */
static uint32_t fnv1a_high(const uint8_t *b, size_t n)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * UINT64_C(0x100000001b3);
	return (uint32_t)(h >> 32);
}

static uint64_t slot_of(uint64_t hash, uint32_t n, uint64_t nslots)
{
	return ((hash ^ n) * UINT64_C(0x9e3779b97f4a7c15) >> 17) & (nslots - 1);
}

static int grow_table(struct wet_dedup *d)
{
	uint64_t nn = d->nslots ? 2 * d->nslots : 1024;
	uint64_t *s = calloc(nn, sizeof(*s));

	if (!s)
		return -1;
	for (uint64_t i = 0; i < d->nslots; i++) {
		uint64_t o = d->slots[i];
		if (!o)
			continue;
		uint64_t j = slot_of(d->hash[o - 1], d->len[o - 1], nn);
		while (s[j])
			j = (j + 1) & (nn - 1);
		s[j] = o;
	}
	free(d->slots);
	d->slots = s;
	d->nslots = nn;
	return 0;
}

static int reserve(struct wet_dedup *d)
{
	if (d->count == d->cap) {
		uint64_t nc = d->cap ? 2 * d->cap : 1024;
		uint64_t *off = realloc(d->off, nc * sizeof(*off));
		if (!off)
			return -1;
		d->off = off;
		uint32_t *len = realloc(d->len, nc * sizeof(*len));
		if (!len)
			return -1;
		d->len = len;
		uint64_t *hash = realloc(d->hash, nc * sizeof(*hash));
		if (!hash)
			return -1;
		d->hash = hash;
		d->cap = nc;
	}
	if ((d->used + 1) * 2 > d->nslots && grow_table(d) < 0)
		return -1;
	return 0;
}

uint64_t wet_dedup_offer(struct wet_dedup *d, const uint8_t *base, const uint8_t *b, size_t n,
			 uint64_t at)
{
	if (n > UINT32_MAX || reserve(d) < 0)
		return WET_DEDUP_OOM;
	uint64_t hash = (uint64_t)wpp_crc32c(0, b, n) << 32 | fnv1a_high(b, n);
	uint64_t j = slot_of(hash, (uint32_t)n, d->nslots);
	for (; d->slots[j]; j = (j + 1) & (d->nslots - 1)) {
		uint64_t o = d->slots[j] - 1;
		if (d->len[o] == n && d->hash[o] == hash &&
		    (!base || memcmp(base + d->off[o], b, n) == 0)) {
			d->off[d->count] = UINT64_MAX;
			d->len[d->count] = 0;
			d->hash[d->count++] = 0;
			return o;
		}
	}
	d->off[d->count] = at;
	d->len[d->count] = (uint32_t)n;
	d->hash[d->count] = hash;
	d->slots[j] = ++d->count;
	d->used++;
	return WET_DEDUP_NEW;
}

size_t wet_dedup_ref_bytes(uint64_t to)
{
	return 1 + varint_size(to);
}

void wet_dedup_free(struct wet_dedup *d)
{
	free(d->off);
	free(d->len);
	free(d->hash);
	free(d->slots);
	*d = (struct wet_dedup){0};
}
