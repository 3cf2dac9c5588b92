/* SPDX-License-Identifier: MIT */
/*
 * bench_wet.c — the tier-2 stream benchmark behind scripts/bench-wet: per
 * test stream (wet_gen.h) and per raw file given (little-endian u64
 * values), the method the warm-up chose, compressed bits per value beside
 * zstd -3 of the raw values (a one-way baseline), build time per value,
 * and read time per step forward, backward and per random seek, beside
 * reading the raw array in the same run.  A path stream (FILE.u32, as
 * `wpptrace wpp --raw-out` writes) gives the real-program figures a WET
 * cares most about: the flow stream (path per timestamp) and every path's
 * timestamp stream, the paper's node timestamp labels.
 *   [WET_SEG_LEN=N] [WET_WARMUP=N] [WET_METHOD=K] bench_wet [NVALUES [FILE.u64 | FILE.u32 ...]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <zstd.h>

#include "tests/unit/wet/wet_gen.h"
#include "analysis/wet/wet_stream.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what)
{
	fprintf(stderr, "bench_wet: %s\n", what);
	exit(1);
}

/* Summing the raw array: the baseline per step. */
static volatile uint64_t sink;
/* Segment length of every stream built (WET_SEG_LEN; 0 = the default). */
static struct wet_stream_opts opts;

static double raw_ns_per_step(const uint64_t *v, size_t n)
{
	double t0 = now_ns();
	uint64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += v[i];
	sink = sum;
	return (now_ns() - t0) / (double)n;
}

/* The method most segments use, and its share: "fcm2 87%". */
static const char *main_method(const struct wet_stream *s, char *buf, size_t len)
{
	uint32_t best = 0, best_n = 0;
	char name[24];

	for (uint32_t i = 0; i < s->nsegs; i++) {
		uint32_t n = 0;

		for (uint32_t j = 0; j < s->nsegs; j++)
			n += s->segs[j].method.kind == s->segs[i].method.kind &&
			     s->segs[j].method.size == s->segs[i].method.size;
		if (n > best_n) {
			best_n = n;
			best = i;
		}
		if (best_n * 2 > s->nsegs)
			break;
	}
	if (!s->nsegs)
		return "-";
	snprintf(buf, len, "%s %.0f%%", wet_method_name(&s->segs[best].method, name, sizeof(name)),
		 100.0 * best_n / s->nsegs);
	return buf;
}

static void bench(const char *name, const uint64_t *v, size_t n, const uint64_t *seeks,
		  size_t nseeks)
{
	struct wet_builder b;
	struct wet_stream *s;
	uint8_t *bytes;
	size_t len, zcap = ZSTD_compressBound(n * 8);
	void *z = malloc(zcap ? zcap : 1);
	size_t zlen;
	double t0, build, fwd, bwd, seek, raw_seq;
	uint64_t x, sum = 0;
	char mname[48];

	if (!z)
		die("out of memory");
	zlen = ZSTD_compress(z, zcap, v, n * 8, 3);
	if (ZSTD_isError(zlen))
		die("zstd failed");
	free(z);
	t0 = now_ns();
	if (wet_builder_init(&b, &opts) < 0)
		die("out of memory");
	for (size_t i = 0; i < n; i++)
		if (wet_builder_add(&b, v[i]) < 0)
			die("out of memory");
	s = wet_builder_finish(&b);
	if (!s)
		die("out of memory");
	build = (now_ns() - t0) / (double)n;
	len = wet_stream_serialize(s, &bytes);
	if (!len)
		die("serialize failed");
	free(bytes);
	/* Sweeps start where serialize parked the cursors: at segment ends. */
	t0 = now_ns();
	for (size_t i = 0; i < n; i++) {
		if (wet_stream_get(s, i, &x) < 0 || x != v[i])
			die("forward read differs from the raw value");
		sum += x;
	}
	fwd = (now_ns() - t0) / (double)n;
	t0 = now_ns();
	for (size_t i = n; i-- > 0;) {
		if (wet_stream_get(s, i, &x) < 0 || x != v[i])
			die("backward read differs from the raw value");
		sum += x;
	}
	bwd = (now_ns() - t0) / (double)n;
	t0 = now_ns();
	for (size_t i = 0; i < nseeks; i++) {
		if (wet_stream_get(s, seeks[i] % n, &x) < 0 || x != v[seeks[i] % n])
			die("seek read differs from the raw value");
		sum += x;
	}
	seek = (now_ns() - t0) / (double)nseeks;
	sink = sum;
	raw_seq = raw_ns_per_step(v, n);
	printf("%-14s %-17s %7.2f %7.2f %7.1f %8.1f %8.1f %10.0f   x%.0f\n", name,
	       main_method(s, mname, sizeof(mname)), 8.0 * (double)len / (double)n,
	       8.0 * (double)zlen / (double)n, build, fwd, bwd, seek,
	       (fwd + bwd) / 2 / (raw_seq > 0.01 ? raw_seq : 0.01));
	wet_stream_free(s);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every path's timestamps (positions from 1) as one stream each: built one
 * path after another, sizes summed, then read forward and backward. */
static void bench_timestamps(const char *name, const uint64_t *sym, size_t n)
{
	/* (symbol << 32 | position) sorted: each symbol's positions in order. */
	uint64_t *key = malloc(n * sizeof(*key)), x;
	size_t bytes = 0, nstreams = 0;
	double t0, build, fwd = 0, bwd = 0;
	unsigned method_count[WET_NKINDS] = {0};

	if (!key || n >= UINT32_MAX)
		die("out of memory");
	for (size_t i = 0; i < n; i++)
		key[i] = sym[i] << 32 | i;
	qsort(key, n, sizeof(*key), cmp_u64);
	t0 = now_ns();
	for (size_t i = 0; i < n;) {
		size_t j = i;
		struct wet_builder b;
		struct wet_stream *s;
		uint8_t *out;
		size_t len;
		double t1;

		if (wet_builder_init(&b, &opts) < 0)
			die("out of memory");
		for (; j < n && key[j] >> 32 == key[i] >> 32; j++)
			if (wet_builder_add(&b, (key[j] & 0xffffffffu) + 1) < 0)
				die("out of memory");
		s = wet_builder_finish(&b);
		if (!s)
			die("out of memory");
		len = wet_stream_serialize(s, &out);
		if (!len)
			die("serialize failed");
		free(out);
		bytes += len;
		for (uint32_t k = 0; k < s->nsegs; k++)
			method_count[s->segs[k].method.kind]++;
		t1 = now_ns();
		for (size_t k = i; k < j; k++)
			if (wet_stream_get(s, k - i, &x) < 0 || x != (key[k] & 0xffffffffu) + 1)
				die("timestamp read differs");
		fwd += now_ns() - t1;
		t1 = now_ns();
		for (size_t k = j; k-- > i;)
			if (wet_stream_get(s, k - i, &x) < 0 || x != (key[k] & 0xffffffffu) + 1)
				die("timestamp read differs");
		bwd += now_ns() - t1;
		wet_stream_free(s);
		nstreams++;
		i = j;
	}
	build = (now_ns() - t0 - fwd - bwd) / (double)n;
	printf("%-14s %-17s %7.2f %7s %7.1f %8.1f %8.1f   %zu paths; timestamps %.0fx "
	       "(segments: fcm %u, dfcm %u, last-n %u, stride %u, verbatim %u)\n",
	       name, "timestamps", 8.0 * (double)bytes / (double)n, "-", build, fwd / (double)n,
	       bwd / (double)n, nstreams, 64.0 * (double)n / (8.0 * (double)bytes),
	       method_count[WET_FCM], method_count[WET_DFCM], method_count[WET_LAST_N],
	       method_count[WET_LAST_N_STRIDE], method_count[WET_VERBATIM]);
	free(key);
}

/* The interpreter's values split by the instruction that produced them,
 * one stream per instruction as a WET labels them: total bits per value. */
static void bench_per_statement(size_t n)
{
	uint64_t *v = malloc(n * sizeof(*v)), *part = malloc(n * sizeof(*part));
	uint32_t *pcs = malloc(n * sizeof(*pcs)), npc = 0;
	size_t bytes = 0;
	double t0 = now_ns();

	if (!v || !part || !pcs)
		die("out of memory");
	wet_gen_interpreter(1, v, pcs, n);
	for (size_t i = 0; i < n; i++)
		npc = pcs[i] + 1 > npc ? pcs[i] + 1 : npc;
	for (uint32_t pc = 0; pc < npc; pc++) {
		struct wet_builder b;
		struct wet_stream *s;
		uint8_t *out;
		size_t len, k = 0;

		for (size_t i = 0; i < n; i++)
			if (pcs[i] == pc)
				part[k++] = v[i];
		if (!k)
			continue;
		if (wet_builder_init(&b, &opts) < 0)
			die("out of memory");
		for (size_t i = 0; i < k; i++)
			if (wet_builder_add(&b, part[i]) < 0)
				die("out of memory");
		s = wet_builder_finish(&b);
		if (!s || !(len = wet_stream_serialize(s, &out)))
			die("building failed");
		for (size_t i = 0; i < k; i++) {
			uint64_t x;

			if (wet_stream_get(s, i, &x) < 0 || x != part[i])
				die("per-statement read differs");
		}
		bytes += len;
		free(out);
		wet_stream_free(s);
	}
	printf("%-14s %-17s %7.2f %7s %7.1f   %u instructions, one stream each: values %.1fx\n",
	       "interpreter", "per-stmt", 8.0 * (double)bytes / (double)n, "-",
	       (now_ns() - t0) / (double)n, npc, 64.0 * (double)n / (8.0 * (double)bytes));
	free(v);
	free(part);
	free(pcs);
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), m = strlen(tail);

	return n >= m && strcmp(s + n - m, tail) == 0;
}

/* Up to n values of a file: u64 words, or u32 symbols widened. */
static size_t read_stream(const char *path, uint64_t *v, size_t n, int u32)
{
	FILE *f = fopen(path, "rb");
	size_t got = 0;

	if (!f)
		die("cannot open a stream file");
	if (u32) {
		uint32_t w;

		while (got < n && fread(&w, sizeof(w), 1, f) == 1)
			v[got++] = w;
	} else {
		got = fread(v, sizeof(*v), n, f);
	}
	fclose(f);
	if (got == 0)
		die("empty stream file");
	return got;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
	const char *seg_len = getenv("WET_SEG_LEN");

	opts.seg_len = seg_len ? (uint32_t)strtoul(seg_len, NULL, 10) : 0;
	opts.warmup = getenv("WET_WARMUP") ? (uint32_t)strtoul(getenv("WET_WARMUP"), NULL, 10) : 0;
	/* WET_METHOD=K forces candidate K (0..11) instead of the warm-up's
	 * choice, to see what the choice left on the table. */
	if (getenv("WET_METHOD")) {
		static struct wet_method forced;

		forced = wet_candidates[strtoul(getenv("WET_METHOD"), NULL, 10) % wet_ncandidates];
		if (forced.kind == WET_FCM || forced.kind == WET_DFCM)
			forced.table_bits = 12;
		opts.method = &forced;
	}
	size_t nseeks = 20000;
	uint64_t *v, *seeks, seed = 42;

	if (n == 0)
		die("usage: bench_wet [NVALUES [FILE.u64 | FILE.u32 ...]]");
	v = malloc(n * sizeof(*v));
	seeks = malloc(nseeks * sizeof(*seeks));
	if (!v || !seeks)
		die("out of memory");
	for (size_t i = 0; i < nseeks; i++)
		seeks[i] = wet_gen_rand(&seed);
	printf("segments of %u values; ", opts.seg_len ? opts.seg_len : WET_DEFAULT_SEG_LEN);
	printf("%zu values per stream; bits/value (tier 2, zstd -3 of the raw words), "
	       "ns per value built, ns per step forward/backward (sweeps), ns per random seek, "
	       "and the sweep step against a raw array read\n",
	       n);
	printf("%-14s %-17s %7s %7s %7s %8s %8s %10s   %s\n", "stream", "method", "bits", "zstd",
	       "build", "forward", "backward", "seek", "vs raw");
	for (int k = 0; k < GEN_NKINDS; k++) {
		wet_gen_fill(k, 1, v, n);
		bench(wet_gen_name(k), v, n, seeks, nseeks);
	}
	bench_per_statement(n);
	for (int a = 2; a < argc; a++) {
		int u32 = ends_with(argv[a], ".u32");
		size_t got = read_stream(argv[a], v, n, u32);
		const char *base = strrchr(argv[a], '/') ? strrchr(argv[a], '/') + 1 : argv[a];

		bench(base, v, got, seeks, nseeks);
		if (u32)
			bench_timestamps(base, v, got);
	}
	free(v);
	free(seeks);
	return 0;
}
