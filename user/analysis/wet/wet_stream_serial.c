/* SPDX-License-Identifier: MIT */
/*
 * wet_stream_serial.c — the byte forms of a tier-2 stream, their parsers
 * and the full check (wet_stream.h).
 *
 * Framed (standalone, self-checking):
 *   "WETS" u8 version u8 table_bits (of the FCM/DFCM segments)
 *   varint seg_len, varint count, segments,
 *   u32 CRC32C of everything before, little-endian
 * Bare (inside a container that checks its own bytes, the stored WET):
 *   varint count; when count > 0: u8 table_bits | 0x20 when seg_len is
 *   not WET_DEFAULT_SEG_LEN, then varint seg_len when flagged; segments.
 *   A WET holds tens of thousands of label streams, most of a few values:
 *   the framed form's 15 fixed bytes were a fifth of all it stored.
 * Segments (ceil(count / seg_len), each parked at its start, where the
 * window, the left stack and table and the last-n list are empty):
 *     u8 method: kind << 5 | size
 *     varint right_bits, ceil(right_bits / 8) bytes of the right stack
 *     FCM/DFCM: varint n, n x (varint index gap, varint zigzag value) —
 *               the right table's non-zero entries
 *
 * The parser trusts nothing: every length is checked against what is left
 * of the buffer and against what the counts allow before anything is
 * allocated.
 */
#include "analysis/wet/wet_stream.h"
#include "analysis/wet/wet_stream_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "common/varint.h"

#define MAGIC	"WETS"
#define VERSION 2
/* The longest code per value: a miss's 2-bit tag, 6-bit length, 64-bit
 * difference. */
#define MAX_CODE_BITS 72

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
	uint8_t b[VARINT_MAX];

	put_bytes(k, b, (size_t)(varint_put(b, v) - b));
}

static int is_table_kind(const struct wet_method *m)
{
	return m->kind == WET_FCM || m->kind == WET_DFCM;
}

static void put_segment(struct sink *k, const struct wet_seg *seg)
{
	const struct wet_method *m = &seg->method;
	const struct wet_tab_entry *tab = seg->nright_tab ? seg->tab + seg->nleft_tab : NULL;
	uint8_t method = (uint8_t)(m->kind << 5 | m->size);

	put_bytes(k, &method, 1);
	put_varint(k, seg->right.bits.nbits);
	if (k->out)
		wet_bits_bytes(&seg->right.bits, k->out + k->len);
	k->len += (seg->right.bits.nbits + 7) / 8;
	if (!is_table_kind(m))
		return;
	put_varint(k, seg->nright_tab);
	for (uint32_t i = 0; i < seg->nright_tab; i++) {
		uint32_t gap = i ? tab[i].index - tab[i - 1].index - 1 : tab[i].index;

		put_varint(k, gap);
		put_varint(k, zz(tab[i].value));
	}
}

size_t wet_seg_serial_size(const struct wet_seg *seg)
{
	struct sink k = {0};

	put_segment(&k, seg);
	return k.len;
}

#define BARE_SEG_LEN_FLAG 0x20

static void put_stream(struct sink *k, const struct wet_stream *s, int bare)
{
	uint8_t head[6] = {MAGIC[0], MAGIC[1], MAGIC[2], MAGIC[3], VERSION, s->table_bits};

	if (!bare) {
		put_bytes(k, head, sizeof(head));
		put_varint(k, s->seg_len);
		put_varint(k, s->count);
	} else {
		put_varint(k, s->count);
		if (!s->count)
			return;
		head[0] = (uint8_t)(s->table_bits |
				    (s->seg_len != WET_DEFAULT_SEG_LEN ? BARE_SEG_LEN_FLAG : 0));
		put_bytes(k, head, 1);
		if (s->seg_len != WET_DEFAULT_SEG_LEN)
			put_varint(k, s->seg_len);
	}
	for (uint32_t i = 0; i < s->nsegs; i++)
		put_segment(k, &s->segs[i]);
}

/* Park every segment at its start (the serialized position), closed. */
static int park(struct wet_stream *s)
{
	for (uint32_t i = 0; i < s->nsegs; i++)
		if (s->segs[i].pos != 0 && wet_stream_park(s, i) < 0)
			return -1;
	return wet_stream_release(s);
}

static size_t serialize(struct wet_stream *s, uint8_t **out, int bare)
{
	struct sink k = {0};
	uint32_t crc;

	*out = NULL;
	if (wet_stream_materialize(s) < 0)
		return 0;
	if (park(s) < 0)
		return 0;
	put_stream(&k, s, bare);
	k.out = malloc(k.len + 4);
	if (!k.out)
		return 0;
	k.len = 0;
	put_stream(&k, s, bare);
	if (!bare) {
		crc = wpp_crc32c(0, k.out, k.len);
		for (unsigned i = 0; i < 4; i++)
			k.out[k.len++] = (uint8_t)(crc >> (8 * i));
	}
	*out = k.out;
	return k.len;
}

size_t wet_stream_serialize(struct wet_stream *s, uint8_t **out)
{
	return serialize(s, out, 0);
}

size_t wet_stream_serialize_bare(struct wet_stream *s, uint8_t **out)
{
	return serialize(s, out, 1);
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

static int get_segment(struct source *r, unsigned table_bits, struct wet_seg *seg, uint32_t count)
{
	struct wet_method *m = &seg->method;
	uint64_t nbits, v, n, index = 0;

	seg->count = count;
	seg->pos = 0;
	if (r->p == r->end)
		return fail(r, "truncated segment");
	*m = (struct wet_method){(uint8_t)(*r->p >> 5), (uint8_t)(*r->p & 31), 0};
	r->p++;
	if (is_table_kind(m))
		m->table_bits = (uint8_t)table_bits;
	if (wet_method_check(m) < 0)
		return fail(r, "unknown predictor %u/%u", m->kind, m->size);
	if (get_varint(r, &nbits, "stack length") < 0)
		return -1;
	if (nbits > (uint64_t)count * MAX_CODE_BITS)
		return fail(r, "stack of %llu bits for %u values", (unsigned long long)nbits,
			    count);
	if ((uint64_t)(r->end - r->p) < (nbits + 7) / 8)
		return fail(r, "truncated stack");
	if (wet_bits_load(&seg->right.bits, r->p, nbits) < 0)
		return fail(r, "out of memory");
	r->p += (nbits + 7) / 8;
	if (!is_table_kind(m))
		return 0;
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
		if (gap >= (UINT64_C(1) << m->table_bits) ||
		    index >= (UINT64_C(1) << m->table_bits))
			return fail(r, "table index out of range");
		if (v == 0)
			return fail(r, "zero table entry stored");
		seg->tab[i] = (struct wet_tab_entry){(uint32_t)index, unzz(v)};
	}
	seg->nright_tab = (uint32_t)n;
	return 0;
}

/* The segments of a stream whose header said table_bits, seg_len and
 * count; r must end exactly after them. */
static struct wet_stream *parse_segments(struct source *r, unsigned table_bits, uint64_t seg_len,
					 uint64_t count)
{
	struct wet_stream *s;
	uint64_t nsegs;

	if (table_bits > WET_MAX_TABLE_BITS) {
		fail(r, "table of 2^%u entries", table_bits);
		return NULL;
	}
	if (seg_len == 0 || seg_len > WET_MAX_SEG_LEN) {
		fail(r, "segment length %llu out of range", (unsigned long long)seg_len);
		return NULL;
	}
	nsegs = (count + seg_len - 1) / seg_len;
	/* Every segment takes at least two bytes. */
	if (nsegs > (uint64_t)(r->end - r->p) / 2 || nsegs >= UINT32_MAX) {
		fail(r, "%llu values do not fit in the bytes", (unsigned long long)count);
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s || (nsegs && !(s->segs = calloc(nsegs, sizeof(*s->segs))))) {
		free(s);
		fail(r, "out of memory");
		return NULL;
	}
	s->table_bits = (uint8_t)table_bits;
	s->seg_len = (uint32_t)seg_len;
	s->count = count;
	s->nsegs = s->cap_segs = (uint32_t)nsegs;
	s->open = UINT32_MAX;
	for (uint32_t i = 0; i < nsegs; i++) {
		uint64_t left = count - (uint64_t)i * seg_len;

		if (get_segment(r, table_bits, &s->segs[i],
				(uint32_t)(left < seg_len ? left : seg_len)) < 0) {
			wet_stream_free(s);
			return NULL;
		}
	}
	if (r->p != r->end) {
		fail(r, "%zu bytes after the last segment", (size_t)(r->end - r->p));
		wet_stream_free(s);
		return NULL;
	}
	return s;
}

struct wet_stream *wet_stream_parse(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	struct source r = {buf, buf + len, err, errlen};
	uint64_t seg_len, count;
	uint32_t crc = 0;

	if (len < 10 || memcmp(buf, MAGIC, 4) != 0) {
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
	r.p = buf + 6;
	r.end = buf + len - 4;
	if (get_varint(&r, &seg_len, "segment length") < 0 || get_varint(&r, &count, "count") < 0)
		return NULL;
	return parse_segments(&r, buf[5], seg_len, count);
}

struct wet_stream *wet_stream_parse_bare(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	struct source r = {buf, buf + len, err, errlen};
	uint64_t seg_len = WET_DEFAULT_SEG_LEN, count;
	uint8_t head;

	if (get_varint(&r, &count, "count") < 0)
		return NULL;
	if (count) {
		if (r.p == r.end) {
			fail(&r, "truncated stream head");
			return NULL;
		}
		head = *r.p++;
		if (head & ~(BARE_SEG_LEN_FLAG | 0x1f)) {
			fail(&r, "unknown stream head %#x", head);
			return NULL;
		}
		if ((head & BARE_SEG_LEN_FLAG) && get_varint(&r, &seg_len, "segment length") < 0)
			return NULL;
		return parse_segments(&r, head & 0x1f, seg_len, count);
	}
	return parse_segments(&r, 0, seg_len, 0);
}

struct wet_stream *wet_stream_parse_bare_lazy(const uint8_t *buf, size_t len, char *err,
					      size_t errlen)
{
	struct source r = {buf, buf + len, err, errlen};
	uint64_t count;
	struct wet_stream *s;

	if (get_varint(&r, &count, "count") < 0)
		return NULL;
	if (!(s = calloc(1, sizeof(*s)))) {
		fail(&r, "out of memory");
		return NULL;
	}
	s->count = count;
	s->open = UINT32_MAX;
	s->lazy = buf;
	s->lazy_len = len;
	return s;
}

int wet_stream_materialize(struct wet_stream *s)
{
	char why[160];
	struct wet_stream *p;

	if (!s->lazy)
		return 0;
	p = wet_stream_parse_bare(s->lazy, s->lazy_len, why, sizeof(why));
	if (!p || p->count != s->count) {
		wet_stream_free(p);
		return -1;
	}
	*s = *p; /* lazy now NULL */
	free(p);
	return 0;
}

/* --- the full check ------------------------------------------------------ */

static int all_zero(const uint64_t *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v[i])
			return 0;
	return 1;
}

/* The state left of the cursor is empty (as at the start). */
static int left_empty(const struct wet_method *m, const struct wet_seg *seg,
		      const struct wet_state *st)
{
	if (seg->left.bits.nbits || seg->left.run || !all_zero(seg->win, WET_MAX_WINDOW))
		return 0;
	return is_table_kind(m) ? all_zero(st->left_tab, st->entries)
				: all_zero(st->list, WET_MAX_LIST);
}

static int verify_segment(struct wet_stream *s, uint32_t k, char *err, size_t errlen)
{
	struct source r = {NULL, NULL, err, errlen};
	struct wet_seg *seg = &s->segs[k];
	const struct wet_method *m = &seg->method;
	struct wet_state *st;

	/* Every step is reversible, so codes that walk from the empty start
	 * state to an empty end state and back are a coding of the values they
	 * decode to: that is the check (a checksum cannot catch a crafted
	 * stream). */
	if (wet_stream_park(s, k) < 0)
		return fail(&r, "segment %u: damaged code", k);
	st = s->st; /* the open segment's */
	if (!left_empty(m, seg, st))
		return fail(&r, "segment %u: does not start empty", k);
	while (seg->pos < seg->count)
		if (wet_seg_forward(m, seg, st) < 0)
			return fail(&r, "segment %u: damaged code at value %u", k, seg->pos);
	if (seg->right.bits.nbits || seg->right.run ||
	    (is_table_kind(m) && !all_zero(st->right_tab, st->entries)))
		return fail(&r, "segment %u: does not end empty", k);
	if (wet_seg_rewind(m, seg, st) < 0 || !left_empty(m, seg, st))
		return fail(&r, "segment %u: does not return to its start", k);
	return 0;
}

int wet_stream_verify(struct wet_stream *s, char *err, size_t errlen)
{
	if (wet_stream_materialize(s) < 0)
		return snprintf(err, errlen, "damaged stream"), -1;
	for (uint32_t k = 0; k < s->nsegs; k++) {
		if (s->segs[k].count == 0)
			return snprintf(err, errlen, "segment %u is empty", k), -1;
		if (verify_segment(s, k, err, errlen) < 0)
			return -1;
	}
	return wet_stream_release(s);
}
