/* SPDX-License-Identifier: MIT */
/*
 * wet_dedup.c — equal label streams stored once (wet_dedup.h): a hash
 * table over the distinct streams' bytes, open addressing, compared byte
 * for byte.
 */
#include "analysis/wet/wet_dedup.h"

#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"

void wet_dedup_init(struct wet_dedup *d)
{
	*d = (struct wet_dedup){0};
}

static uint64_t slot_of(uint32_t crc, size_t n, uint64_t nslots)
{
	return ((uint64_t)crc * UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)n) & (nslots - 1);
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
		const uint8_t *b = d->bytes + d->off[o - 1];
		uint64_t j = slot_of(wpp_crc32c(0, b, d->len[o - 1]), d->len[o - 1], nn);
		while (s[j])
			j = (j + 1) & (nn - 1);
		s[j] = o;
	}
	free(d->slots);
	d->slots = s;
	d->nslots = nn;
	return 0;
}

static int reserve(struct wet_dedup *d, size_t n)
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
		d->cap = nc;
	}
	if (d->nbytes + n > d->cap_bytes) {
		size_t nc = d->cap_bytes ? d->cap_bytes : 65536;
		while (nc < d->nbytes + n)
			nc *= 2;
		uint8_t *b = realloc(d->bytes, nc);
		if (!b)
			return -1;
		d->bytes = b;
		d->cap_bytes = nc;
	}
	if ((d->used + 1) * 2 > d->nslots && grow_table(d) < 0)
		return -1;
	return 0;
}

uint64_t wet_dedup_offer(struct wet_dedup *d, const uint8_t *b, size_t n)
{
	if (n > UINT32_MAX || reserve(d, n) < 0)
		return WET_DEDUP_OOM;
	uint64_t j = slot_of(wpp_crc32c(0, b, n), n, d->nslots);
	for (; d->slots[j]; j = (j + 1) & (d->nslots - 1)) {
		uint64_t o = d->slots[j] - 1;
		if (d->len[o] == n && memcmp(d->bytes + d->off[o], b, n) == 0) {
			d->off[d->count] = UINT64_MAX;
			d->len[d->count++] = 0;
			return o;
		}
	}
	memcpy(d->bytes + d->nbytes, b, n);
	d->off[d->count] = d->nbytes;
	d->len[d->count] = (uint32_t)n;
	d->nbytes += n;
	d->slots[j] = ++d->count;
	d->used++;
	return WET_DEDUP_NEW;
}

static size_t varint_bytes(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

size_t wet_dedup_ref_bytes(uint64_t to)
{
	return 1 + varint_bytes(to);
}

void wet_dedup_free(struct wet_dedup *d)
{
	free(d->bytes);
	free(d->off);
	free(d->len);
	free(d->slots);
	*d = (struct wet_dedup){0};
}
