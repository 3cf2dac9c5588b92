/* SPDX-License-Identifier: MIT */
/*
 * wet_stream_serial.c — the byte form of a tier-2 stream, its parser and
 * its full check (wet_stream.h).
 *
 *   "WETS" u8 version u8 kind u8 size u8 table_bits
 *   varint seg_len, varint count
 *   per segment (ceil(count / seg_len), each parked at its end):
 *     varint left_bits, ceil(left_bits / 8) bytes of the left stack
 *     window: w varints (zigzag)
 *     FCM/DFCM: varint n, n x (varint index gap, varint zigzag value) —
 *               the left table's non-zero entries (the right one is empty
 *               at the end);  last-n: size varints (zigzag), the list
 *   u32 CRC32C of everything before, little-endian
 *
 * The parser trusts nothing: every length is checked against what is left
 * of the buffer and against what the counts allow before anything is
 * allocated.
 */
#include "wet_stream.h"
#include "wet_stream_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../common/crc32c.h"

#define MAGIC	"WETS"
#define VERSION 1
/* The longest code: flag, 6-bit length, 64-bit payload. */
#define MAX_CODE_BITS 71

static uint64_t zz(uint64_t v)
{
	return (v << 1) ^ (uint64_t)((int64_t)v >> 63);
}

static uint64_t unzz(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

/* Appends to a buffer sized by a counting pass (out == NULL counts only). */
struct sink {
	uint8_t *out;
	size_t len;
};

static void put_bytes(struct sink *k, const void *p, size_t n)
{
	if (k->out)
		memcpy(k->out + k->len, p, n);
	k->len += n;
}

static void put_varint(struct sink *k, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;

	while (v >= 0x80) {
		b[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (uint8_t)v;
	put_bytes(k, b, n);
}

static int is_table_kind(const struct wet_method *m)
{
	return m->kind == WET_FCM || m->kind == WET_DFCM;
}

static void put_segment(struct sink *k, const struct wet_method *m, const struct wet_seg *seg)
{
	unsigned w = wet_method_window(m);
	size_t nbytes = (seg->left.nbits + 7) / 8;

	put_varint(k, seg->left.nbits);
	if (k->out)
		wet_bits_bytes(&seg->left, k->out + k->len);
	k->len += nbytes;
	for (unsigned i = 0; i < w; i++)
		put_varint(k, zz(seg->win[i]));
	if (!is_table_kind(m)) {
		for (unsigned i = 0; i < m->size; i++)
			put_varint(k, zz(seg->list[i]));
		return;
	}
	put_varint(k, seg->nleft_tab);
	for (uint32_t i = 0; i < seg->nleft_tab; i++) {
		uint32_t gap = i ? seg->tab[i].index - seg->tab[i - 1].index - 1 : seg->tab[i].index;

		put_varint(k, gap);
		put_varint(k, zz(seg->tab[i].value));
	}
}

size_t wet_seg_serial_size(const struct wet_method *m, const struct wet_seg *seg)
{
	struct sink k = {0};

	put_segment(&k, m, seg);
	return k.len;
}

static void put_stream(struct sink *k, const struct wet_stream *s)
{
	uint8_t head[8] = {MAGIC[0],	    MAGIC[1],	    MAGIC[2],	   MAGIC[3],
			   VERSION,	    s->method.kind, s->method.size, s->method.table_bits};

	put_bytes(k, head, sizeof(head));
	put_varint(k, s->seg_len);
	put_varint(k, s->count);
	for (uint32_t i = 0; i < s->nsegs; i++)
		put_segment(k, &s->method, &s->segs[i]);
}

/* Park every segment at its end (the serialized position) and close it. */
static int park(struct wet_stream *s)
{
	for (uint32_t i = 0; i < s->nsegs; i++) {
		uint64_t last = (uint64_t)i * s->seg_len + s->segs[i].count - 1, x;

		if (s->segs[i].pos != s->segs[i].count && wet_stream_get(s, last, &x) < 0)
			return -1;
	}
	return wet_stream_release(s);
}

size_t wet_stream_serialize(struct wet_stream *s, uint8_t **out)
{
	struct sink k = {0};
	uint32_t crc;

	*out = NULL;
	if (park(s) < 0)
		return 0;
	put_stream(&k, s);
	k.out = malloc(k.len + 4);
	if (!k.out)
		return 0;
	k.len = 0;
	put_stream(&k, s);
	crc = wpp_crc32c(0, k.out, k.len);
	for (unsigned i = 0; i < 4; i++)
		k.out[k.len++] = (uint8_t)(crc >> (8 * i));
	*out = k.out;
	return k.len;
}

/* --- parsing ------------------------------------------------------------ */

struct source {
	const uint8_t *p, *end;
	char *err;
	size_t errlen;
};

static int fail(struct source *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int get_varint(struct source *r, uint64_t *v, const char *what)
{
	uint64_t x = 0;

	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (r->p == r->end)
			return fail(r, "truncated %s", what);
		b = *r->p++;
		if (shift == 63 && b > 1)
			break;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return fail(r, "malformed %s", what);
}

static int get_segment(struct source *r, const struct wet_method *m, struct wet_seg *seg,
		       uint32_t count)
{
	unsigned w = wet_method_window(m);
	uint64_t nbits, v, n, index = 0;

	seg->count = seg->pos = count;
	if (get_varint(r, &nbits, "stack length") < 0)
		return -1;
	if (nbits > (uint64_t)count * MAX_CODE_BITS)
		return fail(r, "stack of %llu bits for %u values", (unsigned long long)nbits, count);
	if ((uint64_t)(r->end - r->p) < (nbits + 7) / 8)
		return fail(r, "truncated stack");
	if (wet_bits_load(&seg->left, r->p, nbits) < 0)
		return fail(r, "out of memory");
	r->p += (nbits + 7) / 8;
	for (unsigned i = 0; i < w; i++) {
		if (get_varint(r, &v, "window") < 0)
			return -1;
		seg->win[i] = unzz(v);
		/* Before x_0 the window holds padding zeros. */
		if (i + count < w && seg->win[i])
			return fail(r, "non-zero padding in a window");
	}
	if (!is_table_kind(m)) {
		for (unsigned i = 0; i < m->size; i++) {
			if (get_varint(r, &v, "list") < 0)
				return -1;
			seg->list[i] = unzz(v);
		}
		return 0;
	}
	if (get_varint(r, &n, "table size") < 0)
		return -1;
	if (n > (UINT64_C(1) << m->table_bits) || n > (uint64_t)(r->end - r->p) / 2)
		return fail(r, "table of %llu entries", (unsigned long long)n);
	seg->tab = malloc((n + 1) * sizeof(*seg->tab));
	if (!seg->tab)
		return fail(r, "out of memory");
	for (uint64_t i = 0; i < n; i++) {
		uint64_t gap;

		if (get_varint(r, &gap, "table index") < 0 || get_varint(r, &v, "table value") < 0)
			return -1;
		index += gap + (i ? 1 : 0);
		if (gap >= (UINT64_C(1) << m->table_bits) || index >= (UINT64_C(1) << m->table_bits))
			return fail(r, "table index out of range");
		if (v == 0)
			return fail(r, "zero table entry stored");
		seg->tab[i] = (struct wet_tab_entry){(uint32_t)index, unzz(v)};
	}
	seg->nleft_tab = (uint32_t)n;
	return 0;
}

struct wet_stream *wet_stream_parse(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	struct source r = {buf, buf + len, err, errlen};
	struct wet_method m;
	struct wet_stream *s;
	uint64_t seg_len, count, nsegs;
	uint32_t crc = 0;

	if (len < 12 || memcmp(buf, MAGIC, 4) != 0) {
		fail(&r, "not a WET stream");
		return NULL;
	}
	for (unsigned i = 0; i < 4; i++)
		crc |= (uint32_t)buf[len - 4 + i] << (8 * i);
	if (wpp_crc32c(0, buf, len - 4) != crc) {
		fail(&r, "checksum mismatch");
		return NULL;
	}
	if (buf[4] != VERSION) {
		fail(&r, "unsupported WET stream version %u", buf[4]);
		return NULL;
	}
	m = (struct wet_method){buf[5], buf[6], buf[7]};
	if (wet_method_check(&m) < 0) {
		fail(&r, "unknown predictor %u/%u/%u", buf[5], buf[6], buf[7]);
		return NULL;
	}
	r.p = buf + 8;
	r.end = buf + len - 4;
	if (get_varint(&r, &seg_len, "segment length") < 0 || get_varint(&r, &count, "count") < 0)
		return NULL;
	if (seg_len == 0 || seg_len > WET_MAX_SEG_LEN) {
		fail(&r, "segment length %llu out of range", (unsigned long long)seg_len);
		return NULL;
	}
	nsegs = (count + seg_len - 1) / seg_len;
	/* Every segment takes at least 3 bytes. */
	if (nsegs > (uint64_t)(r.end - r.p) / 3 || nsegs >= UINT32_MAX) {
		fail(&r, "%llu values do not fit in %zu bytes", (unsigned long long)count, len);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s || (nsegs && !(s->segs = calloc(nsegs, sizeof(*s->segs))))) {
		free(s);
		fail(&r, "out of memory");
		return NULL;
	}
	s->method = m;
	s->seg_len = (uint32_t)seg_len;
	s->count = count;
	s->nsegs = s->cap_segs = (uint32_t)nsegs;
	s->open = UINT32_MAX;
	for (uint32_t i = 0; i < nsegs; i++) {
		uint64_t left = count - (uint64_t)i * seg_len;

		if (get_segment(&r, &m, &s->segs[i], (uint32_t)(left < seg_len ? left : seg_len)) <
		    0) {
			wet_stream_free(s);
			return NULL;
		}
	}
	if (r.p != r.end) {
		fail(&r, "%zu bytes after the last segment", (size_t)(r.end - r.p));
		wet_stream_free(s);
		return NULL;
	}
	return s;
}

/* --- the full check ------------------------------------------------------ */

static int all_zero(const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i])
			return 0;
	return 1;
}

static int verify_segment(struct wet_stream *s, uint32_t k, char *err, size_t errlen)
{
	struct source r = {NULL, NULL, err, errlen};
	const struct wet_method *m = &s->method;
	struct wet_seg *seg = &s->segs[k];
	struct wet_state *st = &s->st;

	/* Every step is reversible, so codes that walk back to the empty start
	 * state are a coding of the values they decode to: that is the check
	 * (a checksum cannot catch a crafted stream). */
	while (seg->pos > 0)
		if (wet_seg_backward(m, seg, st) < 0)
			return fail(&r, "segment %u: damaged code before value %u", k, seg->pos);
	if (seg->left.nbits || !all_zero(seg->win, WET_MAX_WINDOW) ||
	    (is_table_kind(m) ? !all_zero(st->left_tab, st->entries)
			      : !all_zero(st->list, WET_MAX_LIST)))
		return fail(&r, "segment %u: does not return to its start state", k);
	while (seg->pos < seg->count)
		if (wet_seg_forward(m, seg, st) < 0)
			return fail(&r, "segment %u: damaged code after value %u", k, seg->pos);
	if (seg->right.nbits || (is_table_kind(m) && !all_zero(st->right_tab, st->entries)))
		return fail(&r, "segment %u: does not return to its end state", k);
	return 0;
}

int wet_stream_verify(struct wet_stream *s, char *err, size_t errlen)
{
	for (uint32_t k = 0; k < s->nsegs; k++) {
		uint64_t x;

		/* Opening goes through the reader, so the state is loaded. */
		if (s->segs[k].count == 0)
			return snprintf(err, errlen, "segment %u is empty", k), -1;
		if (wet_stream_get(s, (uint64_t)k * s->seg_len + s->segs[k].count - 1, &x) < 0)
			return snprintf(err, errlen, "segment %u: damaged code", k), -1;
		if (verify_segment(s, k, err, errlen) < 0)
			return -1;
	}
	return wet_stream_release(s);
}
