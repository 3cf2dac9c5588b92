/* SPDX-License-Identifier: MIT */
/*
 * fuzz_wet_stream.c — libFuzzer target: tier-2 WET streams
 * (user/analysis/wet/wet_stream.h) from hostile bytes.
 *
 * Each input is used three ways.  As a serialized stream (its checksum
 * made right, so the fuzzer gets past it): parse (framed, bare, and bare
 * lazily), full check, and reads in every order.  As values (little-endian u64 after a selector byte that
 * picks the predictor and segment length): build, read back, serialize,
 * parse, check, read back again.  And as damage to that serialization:
 * bits flipped where the input's last bytes say, checksum made right, then
 * parsed and read like the first.  ASan/UBSan catch bad accesses; the
 * promises checked are the header's: a stream that parsed and verified
 * reads every value without error, the same way in both directions, and
 * a built stream reads back exactly the values it was given.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/wet/wet_stream.h"
#include "common/crc32c.h"

#define MAX_VALUES 20000

static void broken(const char *promise)
{
	fprintf(stderr, "broken promise: %s\n", promise);
	abort();
}

static void fix_crc(uint8_t *b, size_t len)
{
	uint32_t crc;

	if (len < 4)
		return;
	crc = wpp_crc32c(0, b, len - 4);
	for (unsigned i = 0; i < 4; i++)
		b[len - 4 + i] = (uint8_t)(crc >> (8 * i));
}

/* Read everything forward, backward and by jumps; same values each way. */
static void read_all(struct wet_stream *s, const uint64_t *want)
{
	uint64_t n = wet_stream_count(s), x;
	uint64_t *seen;

	seen = malloc((n + 1) * sizeof(*seen));
	if (!seen)
		return;
	for (uint64_t i = 0; i < n; i++) {
		if (wet_stream_get(s, i, &seen[i]) < 0)
			broken("a verified stream reads forward");
		if (want && seen[i] != want[i])
			broken("a built stream reads back its values");
	}
	for (uint64_t i = n; i-- > 0;)
		if (wet_stream_get(s, i, &x) < 0 || x != seen[i])
			broken("a stream reads the same backward");
	for (uint64_t i = 0; n && i < 64; i++) {
		uint64_t k = (i * 2654435761u) % n;

		if (wet_stream_get(s, k, &x) < 0 || x != seen[k])
			broken("a stream reads the same by seeks");
	}
	free(seen);
}

/* A parsed stream (or NULL, err saying why) is checked and read whole;
 * -1 when it holds too many values to read here (the caller stops). */
static int check_and_read(struct wet_stream *s, char *err, size_t errlen, const char *rejected)
{
	/* Checking and reading are linear in the count, and a few bytes of
	 * runs can honestly hold millions of values: keep runs short. */
	if (s && wet_stream_count(s) > 64 * MAX_VALUES) {
		wet_stream_free(s);
		return -1;
	}
	if (s && wet_stream_verify(s, err, errlen) == 0)
		read_all(s, NULL);
	else if (!err[0])
		broken(rejected);
	wet_stream_free(s);
	return 0;
}

static void parse_and_read(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	char err[160] = "";

	if (!copy)
		return;
	memcpy(copy, data, size);
	fix_crc(copy, size);
	if (check_and_read(wet_stream_parse(copy, size, err, sizeof(err)), err, sizeof(err),
			   "a rejected stream says why") == 0) {
		/* The same bytes as the bare form a stored WET holds (no
		 * checksum of its own: the parser and the full check are all
		 * there is). */
		err[0] = 0;
		check_and_read(wet_stream_parse_bare(data, size, err, sizeof(err)), err,
			       sizeof(err), "a rejected bare stream says why");
		/* And lazily, as a query reads a stored WET: the count now,
		 * the rest parsed by the first read (here the full check). */
		err[0] = 0;
		check_and_read(wet_stream_parse_bare_lazy(data, size, err, sizeof(err)), err,
			       sizeof(err), "a rejected lazy stream says why");
	}
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t seg_lens[] = {1, 3, 17, 64, 0};
	struct wet_stream_opts o = {0};
	struct wet_method m;
	struct wet_builder b;
	struct wet_stream *s, *t;
	uint64_t *v;
	size_t n, len;
	uint8_t *bytes;
	char err[160];

	if (size < 1)
		return 0;
	parse_and_read(data, size);

	n = (size - 1) / 8 < MAX_VALUES ? (size - 1) / 8 : MAX_VALUES;
	v = malloc((n + 1) * sizeof(*v));
	if (!v)
		return 0;
	for (size_t i = 0; i < n; i++)
		memcpy(&v[i], data + 1 + 8 * i, 8);
	o.seg_len = seg_lens[(data[0] >> 4) % 5];
	if ((data[0] & 15) < wet_ncandidates) {
		m = wet_candidates[data[0] & 15];
		if (m.kind == WET_FCM || m.kind == WET_DFCM)
			m.table_bits = 5;
		o.method = &m;
	}
	if (wet_builder_init(&b, &o) < 0)
		broken("valid options are accepted");
	for (size_t i = 0; i < n; i++)
		if (wet_builder_add(&b, v[i]) < 0)
			broken("adding a value succeeds");
	s = wet_builder_finish(&b);
	if (!s)
		broken("finishing succeeds");
	read_all(s, v);
	len = wet_stream_serialize(s, &bytes);
	if (!len)
		broken("serializing succeeds");
	t = wet_stream_parse(bytes, len, err, sizeof(err));
	if (!t || wet_stream_verify(t, err, sizeof(err)) < 0)
		broken("a serialized stream parses and verifies");
	read_all(t, v);
	/* Damage where the input's last bytes say. */
	for (size_t k = 0; k < 4 && k < size; k++) {
		size_t at = (data[size - 1 - k] * 131u + k * 977u) % len;

		bytes[at] ^= (uint8_t)(1u << (k % 8));
		parse_and_read(bytes, len);
	}
	free(bytes);
	wet_stream_free(s);
	wet_stream_free(t);
	free(v);
	return 0;
}
