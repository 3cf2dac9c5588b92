/* SPDX-License-Identifier: MIT */
/*
 * test_wet_stream.c — tier-2 streams against the raw values they were
 * built from: forward, backward, random walks and seeks, for every
 * predictor forced and for the warm-up's own choice, across segment
 * boundaries; the serialized form's round trip and canonicity; damaged and
 * crafted bytes rejected with an error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wet_gen.h"
#include "analysis/wet/wet_stream.h"
#include "common/crc32c.h"

static struct wet_stream *build(const uint64_t *v, size_t n, const struct wet_method *m,
				uint32_t seg_len)
{
	struct wet_stream_opts o = {.seg_len = seg_len, .method = m};
	struct wet_builder b;
	struct wet_stream *s;

	assert_int_equal(wet_builder_init(&b, &o), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(wet_builder_add(&b, v[i]), 0);
	s = wet_builder_finish(&b);
	assert_non_null(s);
	assert_int_equal(wet_stream_count(s), n);
	return s;
}

static void expect_at(struct wet_stream *s, const uint64_t *v, uint64_t i)
{
	uint64_t x = ~v[i];

	assert_int_equal(wet_stream_get(s, i, &x), 0);
	if (x != v[i])
		fail_msg("value %llu: got %#llx, want %#llx", (unsigned long long)i,
			 (unsigned long long)x, (unsigned long long)v[i]);
}

/* Forward, backward, then a random walk of short steps and jumps. */
static void check_all_orders(struct wet_stream *s, const uint64_t *v, size_t n, uint64_t seed)
{
	uint64_t x, i = 0;

	for (i = 0; i < n; i++)
		expect_at(s, v, i);
	for (i = n; i-- > 0;)
		expect_at(s, v, i);
	assert_int_equal(wet_stream_get(s, n, &x), -1);
	if (!n)
		return;
	i = 0;
	for (unsigned k = 0; k < 4000; k++) {
		uint64_t r = wet_gen_rand(&seed);

		if (r % 16 == 0)
			i = (r >> 8) % n;
		else if (r % 2 && i + 1 < n)
			i++;
		else if (i > 0)
			i--;
		expect_at(s, v, i);
	}
}

static const size_t lengths[] = {0, 1, 2, 3, 5, 17, 300, 5000};
static const uint32_t seg_lens[] = {1, 7, 64, 0};

/* Every predictor, forced, on every stream kind, length and segment size. */
static void test_every_method(void **state)
{
	(void)state;
	uint64_t *v = malloc(5000 * sizeof(*v));

	for (unsigned c = 0; c < wet_ncandidates; c++) {
		struct wet_method m = wet_candidates[c];

		if (m.kind == WET_FCM || m.kind == WET_DFCM)
			m.table_bits = (uint8_t)(4 + c % 5);
		for (int g = 0; g < GEN_NKINDS; g++)
			for (size_t l = 0; l < sizeof(lengths) / sizeof(lengths[0]); l++)
				for (size_t k = 0; k < sizeof(seg_lens) / sizeof(seg_lens[0]);
				     k++) {
					struct wet_stream *s;

					if (lengths[l] > 300 && (g + k + c) % 3) /* keep it quick */
						continue;
					wet_gen_fill(g, c + l, v, lengths[l]);
					s = build(v, lengths[l], &m, seg_lens[k]);
					check_all_orders(s, v, lengths[l], c * 100 + g);
					wet_stream_free(s);
				}
	}
	free(v);
}

/* The warm-up's choice, with streams that change character halfway:
 * segments of one stream then use different predictors. */
static void test_chosen_method(void **state)
{
	(void)state;
	size_t n = 20000;
	uint64_t *v = malloc(n * sizeof(*v));
	unsigned mixed = 0;

	for (int g = 0; g < GEN_NKINDS; g++) {
		struct wet_stream *s;
		const struct wet_method *first, *last;

		wet_gen_fill(g, 7, v, n);
		/* A second phase of another kind. */
		wet_gen_fill((g + 3) % GEN_NKINDS, 8, v + n / 2, n / 2);
		s = build(v, n, NULL, 0);
		first = &s->segs[0].method;
		last = &s->segs[s->nsegs - 1].method;
		mixed += first->kind != last->kind || first->size != last->size;
		check_all_orders(s, v, n, g);
		wet_stream_free(s);
	}
	assert_true(mixed >= GEN_NKINDS / 2);
	free(v);
}

static size_t serialized_size(const uint64_t *v, size_t n)
{
	struct wet_stream *s = build(v, n, NULL, 0);
	uint8_t *bytes;
	size_t len = wet_stream_serialize(s, &bytes);

	assert_true(len > 0);
	free(bytes);
	wet_stream_free(s);
	return len;
}

/* Predictable streams compress to a fraction of a bit per value (hit
 * runs); random ones cost their raw size (verbatim), hardly more.  The interpreter's stream is
 * every instruction's value in execution order, half of them a multiply-add accumulator no
 * predictor can guess. */
static void test_compresses(void **state)
{
	(void)state;
	size_t n = 100000;
	uint64_t *v = malloc(n * sizeof(*v));
	static const struct {
		enum wet_gen_kind kind;
		double max_bits;
	} cases[] = {
	    {GEN_CONSTANT, 0.1},   {GEN_STRIDED, 0.1},	    {GEN_PERIODIC, 1.0},
	    {GEN_ARRAY_WALK, 1.0}, {GEN_INTERPRETER, 40.0}, {GEN_RANDOM, 64.1},
	};

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		double bits;

		wet_gen_fill(cases[c].kind, 3, v, n);
		bits = 8.0 * (double)serialized_size(v, n) / (double)n;
		if (bits > cases[c].max_bits) {
			free(v);
			fail_msg("%s: %.2f bits per value, more than %.1f",
				 wet_gen_name(cases[c].kind), bits, cases[c].max_bits);
		}
	}
	free(v);
}

static struct wet_stream *reparse(const uint8_t *bytes, size_t len)
{
	char err[160] = "";
	struct wet_stream *s = wet_stream_parse(bytes, len, err, sizeof(err));

	if (!s)
		fail_msg("parse: %s", err);
	assert_int_equal(wet_stream_verify(s, err, sizeof(err)), 0);
	return s;
}

/* Serialize, parse, verify, read; and the bytes depend on the values only,
 * not on where readers left the cursors. */
static void test_serial_round_trip(void **state)
{
	(void)state;
	size_t n = 9000;
	uint64_t *v = malloc(n * sizeof(*v));

	for (int g = 0; g < GEN_NKINDS; g++)
		for (size_t k = 0; k < sizeof(seg_lens) / sizeof(seg_lens[0]); k++) {
			struct wet_stream *s, *t;
			uint8_t *a, *b;
			size_t alen, blen;

			if (seg_lens[k] == 1 && g % 2)
				continue;
			wet_gen_fill(g, 11, v, n);
			s = build(v, n, NULL, seg_lens[k]);
			alen = wet_stream_serialize(s, &a);
			assert_true(alen > 0);
			check_all_orders(s, v, n, g + 50);
			blen = wet_stream_serialize(s, &b);
			assert_int_equal(alen, blen);
			assert_memory_equal(a, b, alen);
			t = reparse(a, alen);
			check_all_orders(t, v, n, g + 60);
			free(b);
			blen = wet_stream_serialize(t, &b);
			assert_int_equal(alen, blen);
			assert_memory_equal(a, b, alen);
			free(a);
			free(b);
			wet_stream_free(s);
			wet_stream_free(t);
		}
	free(v);
}

/* A builder whose tables are released between adds (as a builder of many
 * streams does) builds the same bytes. */
static void test_release_while_building(void **state)
{
	(void)state;
	size_t n = 12000;
	uint64_t *v = malloc(n * sizeof(*v));

	for (int g = 0; g < GEN_NKINDS; g++) {
		struct wet_stream_opts o = {.seg_len = 1000};
		struct wet_builder b;
		struct wet_stream *s, *t;
		uint8_t *a, *c;
		size_t alen, clen;

		wet_gen_fill(g, 21, v, n);
		assert_int_equal(wet_builder_init(&b, &o), 0);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(wet_builder_add(&b, v[i]), 0);
			if (i % 7 == 0)
				assert_int_equal(wet_builder_release(&b), 0);
		}
		s = wet_builder_finish(&b);
		assert_non_null(s);
		t = build(v, n, NULL, 1000);
		alen = wet_stream_serialize(s, &a);
		clen = wet_stream_serialize(t, &c);
		assert_int_equal(alen, clen);
		assert_memory_equal(a, c, alen);
		check_all_orders(s, v, n, g + 70);
		free(a);
		free(c);
		wet_stream_free(s);
		wet_stream_free(t);
	}
	free(v);
}

static void fix_crc(uint8_t *bytes, size_t len)
{
	uint32_t crc = wpp_crc32c(0, bytes, len - 4);

	for (unsigned i = 0; i < 4; i++)
		bytes[len - 4 + i] = (uint8_t)(crc >> (8 * i));
}

/* Read a stream that parsed and verified: every value must come back. */
static void read_everything(struct wet_stream *s)
{
	uint64_t x;

	for (uint64_t i = 0; i < wet_stream_count(s); i++)
		assert_int_equal(wet_stream_get(s, i, &x), 0);
	for (uint64_t i = wet_stream_count(s); i-- > 0;)
		assert_int_equal(wet_stream_get(s, i, &x), 0);
}

/* Damage: every truncation and random flips fail the checksum; the same
 * flips with the checksum fixed (a crafted file) fail parsing or the full
 * check, or yield a stream that still reads without error. */
static void test_corrupt(void **state)
{
	(void)state;
	size_t n = 3000;
	uint64_t *v = malloc(n * sizeof(*v)), seed = 99;
	unsigned rejected = 0, tried = 0;

	for (int g = 0; g < GEN_NKINDS; g++)
		for (unsigned c = 0; c < wet_ncandidates; c += 2) {
			struct wet_method m = wet_candidates[c];
			struct wet_stream *s;
			uint8_t *bytes, *bad;
			size_t len;
			char err[160];

			if (m.kind == WET_FCM || m.kind == WET_DFCM)
				m.table_bits = 6;
			wet_gen_fill(g, c, v, n);
			s = build(v, n, &m, 256);
			len = wet_stream_serialize(s, &bytes);
			wet_stream_free(s);
			assert_true(len > 12);
			bad = malloc(len);
			for (size_t cut = 0; cut < len; cut += 1 + cut / 8) {
				s = wet_stream_parse(bytes, cut, err, sizeof(err));
				assert_null(s);
				assert_true(err[0] != 0);
			}
			for (unsigned k = 0; k < 60; k++) {
				size_t at = wet_gen_rand(&seed) % len;
				uint8_t flip = (uint8_t)(1u << (wet_gen_rand(&seed) % 8));

				memcpy(bad, bytes, len);
				bad[at] ^= flip;
				assert_null(wet_stream_parse(bad, len, err, sizeof(err)));
				if (at >= len - 4)
					continue;
				fix_crc(bad, len);
				tried++;
				s = wet_stream_parse(bad, len, err, sizeof(err));
				if (s && wet_stream_verify(s, err, sizeof(err)) == 0)
					read_everything(s);
				else
					rejected++;
				wet_stream_free(s);
			}
			free(bad);
			free(bytes);
		}
	/* Most crafted flips land in codes or counts and must be caught. */
	if (rejected * 2 < tried)
		fail_msg("only %u of %u crafted streams rejected", rejected, tried);
	free(v);
}

/* Hand-made hostile headers (version 2: "WETS" 2 table_bits, varint
 * seg_len, varint count, segments, CRC). */
static void test_hostile_headers(void **state)
{
	(void)state;
	uint8_t buf[64];
	char err[160];
	size_t len;

	assert_null(wet_stream_parse(buf, 0, err, sizeof(err)));
	/* One segment of one value whose method byte names kind 7. */
	memcpy(buf, "WETS\x02\x04\x10\x01\xe1\x00", 10);
	len = 14;
	fix_crc(buf, len);
	assert_null(wet_stream_parse(buf, len, err, sizeof(err)));
	assert_non_null(strstr(err, "predictor"));
	/* The same with an FCM of order 9. */
	buf[8] = 0x09;
	fix_crc(buf, len);
	assert_null(wet_stream_parse(buf, len, err, sizeof(err)));
	assert_non_null(strstr(err, "predictor"));
	/* Tables of 2^40 entries. */
	memcpy(buf, "WETS\x02\x28\x10\x01\x01\x00", 10);
	fix_crc(buf, len);
	assert_null(wet_stream_parse(buf, len, err, sizeof(err)));
	/* A count far beyond the bytes. */
	memcpy(buf, "WETS\x02\x04\x01", 7);
	len = 7;
	memcpy(buf + len, "\xff\xff\xff\xff\xff\xff\xff\x7f", 8);
	len += 8;
	len += 4;
	fix_crc(buf, len);
	assert_null(wet_stream_parse(buf, len, err, sizeof(err)));
	/* Segment length 0. */
	memcpy(buf, "WETS\x02\x04\x00\x00", 8);
	len = 12;
	fix_crc(buf, len);
	assert_null(wet_stream_parse(buf, len, err, sizeof(err)));
	assert_non_null(strstr(err, "segment length"));
	/* Version 1 is refused. */
	buf[4] = 1;
	fix_crc(buf, len);
	assert_null(wet_stream_parse(buf, len, err, sizeof(err)));
	assert_non_null(strstr(err, "version"));
}

/* Settling a warm-up early (what the WET builder does to idle streams):
 * the values read back are the same in every order, the warm-up buffer is
 * gone after a settle of enough values, and the stream round-trips. */
static void test_settle(void **state)
{
	(void)state;
	size_t n = 9000;
	uint64_t *v = malloc(n * sizeof(*v)), seed = 11;
	char err[160];

	for (int g = 0; g < GEN_NKINDS; g++) {
		struct wet_stream_opts o = {.seg_len = 1000};
		struct wet_builder b;
		struct wet_stream *s, *t;
		uint8_t *a;
		size_t alen;
		unsigned settled = 0;

		wet_gen_fill(g, 31, v, n);
		assert_int_equal(wet_builder_init(&b, &o), 0);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(wet_builder_add(&b, v[i]), 0);
			if (wet_gen_rand(&seed) % 97 == 0) {
				uint32_t waiting = b.nwarm;
				assert_int_equal(wet_builder_settle(&b, 32), 0);
				if (waiting >= 32) {
					assert_int_equal(b.nwarm, 0);
					assert_null(b.warm);
					settled++;
				} else
					assert_int_equal(b.nwarm, waiting);
			}
		}
		assert_true(settled > 0);
		s = wet_builder_finish(&b);
		assert_non_null(s);
		check_all_orders(s, v, n, g + 90);
		alen = wet_stream_serialize_bare(s, &a);
		t = wet_stream_parse_bare(a, alen, err, sizeof(err));
		if (!t)
			fail_msg("bare parse: %s", err);
		assert_int_equal(wet_stream_verify(t, err, sizeof(err)), 0);
		check_all_orders(t, v, n, g + 95);
		free(a);
		wet_stream_free(s);
		wet_stream_free(t);
	}
	free(v);
}

/* The bare form (what a stored WET holds): the framed form's codes
 * without magic, version and CRC, so it is that much smaller; it parses
 * back to the same values for every segment length, the empty stream
 * included; every truncation is refused; and flipped bits (nothing checks
 * a sum here: the container does) are refused by the parser or the full
 * check, or read without error — never crash. */
static void test_bare_form(void **state)
{
	(void)state;
	size_t n = 5000;
	uint64_t *v = malloc(n * sizeof(*v)), seed = 7;
	char err[160];

	for (int g = 0; g < GEN_NKINDS; g++)
		for (size_t k = 0; k < sizeof(seg_lens) / sizeof(seg_lens[0]); k++) {
			size_t len = g == 0 && k == 0 ? 0 : n - 37 * (size_t)g;
			struct wet_stream *s, *t;
			uint8_t *framed, *bare, *again, *bad;
			size_t flen, blen, alen;

			if (seg_lens[k] == 1 && g % 2)
				continue;
			wet_gen_fill(g, 13, v, n);
			s = build(v, len, NULL, seg_lens[k]);
			flen = wet_stream_serialize(s, &framed);
			blen = wet_stream_serialize_bare(s, &bare);
			assert_true(blen > 0 && blen + 9 <= flen);
			t = wet_stream_parse_bare(bare, blen, err, sizeof(err));
			if (!t)
				fail_msg("bare parse: %s", err);
			assert_int_equal(wet_stream_verify(t, err, sizeof(err)), 0);
			assert_int_equal(wet_stream_count(t), len);
			check_all_orders(t, v, len, g + 80);
			alen = wet_stream_serialize_bare(t, &again);
			assert_int_equal(alen, blen);
			assert_memory_equal(again, bare, blen);
			for (size_t cut = 0; cut < blen; cut += 1 + cut / 8)
				assert_null(wet_stream_parse_bare(bare, cut, err, sizeof(err)));
			bad = malloc(blen);
			for (unsigned f = 0; f < 40; f++) {
				struct wet_stream *u;

				memcpy(bad, bare, blen);
				bad[wet_gen_rand(&seed) % blen] ^=
				    (uint8_t)(1u << (wet_gen_rand(&seed) % 8));
				u = wet_stream_parse_bare(bad, blen, err, sizeof(err));
				if (u && wet_stream_verify(u, err, sizeof(err)) == 0)
					read_everything(u);
				wet_stream_free(u);
			}
			free(bad);
			free(framed);
			free(bare);
			free(again);
			wet_stream_free(s);
			wet_stream_free(t);
		}
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_method),
	    cmocka_unit_test(test_chosen_method),
	    cmocka_unit_test(test_compresses),
	    cmocka_unit_test(test_serial_round_trip),
	    cmocka_unit_test(test_corrupt),
	    cmocka_unit_test(test_hostile_headers),
	    cmocka_unit_test(test_release_while_building),
	    cmocka_unit_test(test_bare_form),
	    cmocka_unit_test(test_settle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
