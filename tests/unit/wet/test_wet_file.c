/* SPDX-License-Identifier: MIT */
/*
 * The WET builder's flow and timestamp labels and the stored form of a WET
 * (wet_build.h, wet_file.h), on synthetic path executions of random DAGs
 * (tests/unit/decode/testlib.h):
 *   - every timestamp's node read back from the flow stream, and every
 *     node's timestamps from its stream, equal the executions fed in
 *     (a brute force: the list kept here), gaps where they were given;
 *   - encoded and decoded, the WET answers the same;
 *   - hostile stored forms — bits flipped with the whole-string checksum
 *     made right again, every truncation, a fid the recording does not
 *     have — give NULL and a reason, or a WET that still reads back
 *     consistently; never a crash (run under the sanitizers);
 *   - equal streams stored once (wet_dedup.h): the ordinal of the first
 *     equal stream, against a brute-force search over every earlier one.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/crc32c.h"
#include "symbolizer/meta_model.h"
#include "tests/unit/decode/testlib.h"
#include "analysis/wet/wet_build.h"
#include "analysis/wet/wet_dedup.h"
#include "analysis/wet/wet_file.h"
#include "analysis/wet/wet_query.h"

#define NFNS	 3
#define NEXEC	 20000
#define FID_BASE 100

struct fixture {
	struct tl_func f[NFNS];
	void *blob;
	struct wpp_tu *tu;
	struct wet_thread *t;
	uint32_t exec_fn[NEXEC];
	uint64_t exec_path[NEXEC];
};

static const struct wpp_fn *fn_of(void *ctx, uint32_t fid)
{
	struct fixture *fx = ctx;

	return fid >= FID_BASE && fid < FID_BASE + NFNS ? fx->tu->by_local[fid - FID_BASE] : NULL;
}

static const struct wpp_fn *no_fn(void *ctx, uint32_t fid)
{
	(void)ctx;
	(void)fid;
	return NULL;
}

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));
	unsigned seed = 7;
	char err[200];
	size_t size;
	uint32_t blocks[TL_MAX_BLOCKS + 1];
	struct wpp_path p;

	assert_non_null(fx);
	for (int i = 0; i < NFNS; i++) {
		tl_random_dag(&fx->f[i], 4 + (uint32_t)i * 3, &seed);
		fx->f[i].name = i == 0 ? "f0" : i == 1 ? "f1" : "f2";
	}
	fx->blob = tl_blob(fx->f, NFNS, 5, WPP_MODE_PATHS, &size);
	fx->tu = wpp_meta_parse(fx->blob, size, err, sizeof(err));
	if (!fx->tu)
		fail_msg("%s", err);
	struct wet_build *b = wet_build_new(NULL, 10, 11, 0);
	assert_non_null(b);
	/* Runs of one path (loops), switches between functions, two gaps. */
	for (uint32_t i = 0; i < NEXEC; i++) {
		if (i == 0 || rand_r(&seed) % 8 == 0) {
			fx->exec_fn[i] = (uint32_t)rand_r(&seed) % NFNS;
			fx->exec_path[i] = (uint64_t)rand_r(&seed) % fx->f[fx->exec_fn[i]].npaths;
		} else {
			fx->exec_fn[i] = fx->exec_fn[i - 1];
			fx->exec_path[i] = fx->exec_path[i - 1];
		}
		const struct wpp_fn *fn = fx->tu->by_local[fx->exec_fn[i]];
		assert_int_equal(
		    wpp_path_expand(fn, fx->exec_path[i], blocks, TL_MAX_BLOCKS + 1, &p), 0);
		assert_int_equal(
		    wet_build_path(b, FID_BASE + fx->exec_fn[i], fn, fx->exec_path[i], &p, NULL, 0),
		    0);
		if (i == 999 || i == 15000)
			assert_int_equal(wet_build_gap(b), 0);
	}
	fx->t = wet_build_finish(b);
	assert_non_null(fx->t);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;

	wet_thread_free(fx->t);
	wpp_tu_free(fx->tu);
	free(fx->blob);
	free(fx);
	return 0;
}

/* t answers as the executions fed in: flow, node timestamps, gaps. */
static void check_against_feed(struct fixture *fx, struct wet_thread *t)
{
	uint64_t *k = calloc(t->nnodes, sizeof(*k));

	assert_non_null(k);
	assert_int_equal(t->nts, NEXEC);
	for (uint64_t ts = 1; ts <= NEXEC; ts++) {
		uint32_t node;
		uint64_t got;
		assert_int_equal(wet_flow_at(t, ts, &node), 0);
		assert_ptr_equal(t->nodes[node]->fn, fx->tu->by_local[fx->exec_fn[ts - 1]]);
		assert_int_equal(t->nodes[node]->path_id, fx->exec_path[ts - 1]);
		assert_int_equal(wet_node_ts(t, node, k[node]++, &got), 0);
		assert_int_equal(got, ts);
		assert_int_equal(wet_gap_after(t, ts), ts == 1000 || ts == 15001);
	}
	for (uint32_t n = 0; n < t->nnodes; n++)
		assert_int_equal(k[n], t->nodes[n]->ninst);
	/* and backward, the other direction of every stream */
	for (uint64_t ts = NEXEC; ts >= 1; ts--) {
		uint32_t node;
		uint64_t got;
		assert_int_equal(wet_flow_at(t, ts, &node), 0);
		assert_int_equal(wet_node_ts(t, node, --k[node], &got), 0);
		assert_int_equal(got, ts);
	}
	free(k);
}

static void test_build_against_feed(void **state)
{
	check_against_feed(*state, ((struct fixture *)*state)->t);
}

static void test_round_trip(void **state)
{
	struct fixture *fx = *state;
	uint8_t *blob;
	size_t len;
	char err[256];

	assert_int_equal(wet_file_encode(fx->t, &blob, &len), 0);
	struct wet_thread *t2 = wet_file_decode(blob, len, fn_of, fx, 1, err, sizeof(err));
	if (!t2)
		fail_msg("%s", err);
	assert_int_equal(t2->pid, 10);
	assert_int_equal(t2->tid, 11);
	assert_int_equal(t2->nnodes, fx->t->nnodes);
	assert_memory_equal(&t2->sizes, &fx->t->sizes, sizeof(t2->sizes));
	check_against_feed(fx, t2);
	wet_thread_free(t2);
	/* read lazily: every stream parsed when first read, the same answers */
	uint8_t *copy = malloc(len);
	assert_non_null(copy);
	memcpy(copy, blob, len);
	t2 = wet_file_decode(copy, len, fn_of, fx, WET_FILE_LAZY, err, sizeof(err));
	if (!t2)
		fail_msg("%s", err);
	t2->blob = copy; /* its streams' bytes */
	assert_memory_equal(&t2->sizes, &fx->t->sizes, sizeof(t2->sizes));
	check_against_feed(fx, t2);
	wet_thread_free(t2);
	/* the recording's module map has no such function */
	t2 = wet_file_decode(blob, len, no_fn, fx, 1, err, sizeof(err));
	assert_null(t2);
	assert_non_null(strstr(err, "function"));
	free(blob);
}

/* Decode hostile bytes: NULL with a reason, or a WET whose damage (codes
 * in a stream: the stored form has no per-stream checksums, only the
 * whole string's) the full walk reports, or that reads whole.  Caught
 * either way counts as rejected. */
static uint64_t tries;

static void decode_hostile(struct fixture *fx, const uint8_t *buf, size_t len, int verify,
			   uint64_t *rejected)
{
	tries++;
	char err[256] = "";
	struct wet_thread *t = wet_file_decode(buf, len, fn_of, fx, verify, err, sizeof(err));

	if (!t) {
		assert_true(err[0] != 0);
		(*rejected)++;
		return;
	}
	uint64_t s, v;
	if (wet_verify(t, &s, &v, err, sizeof(err)) < 0) {
		assert_true(err[0] != 0);
		(*rejected)++;
	}
	for (uint64_t ts = 1; ts <= t->nts; ts += 97) {
		uint32_t node;
		uint64_t x;
		if (wet_flow_at(t, ts, &node) == 0)
			(void)wet_node_ts(t, node, 0, &x);
	}
	wet_thread_free(t);
}

static void test_hostile(void **state)
{
	struct fixture *fx = *state;
	uint8_t *blob, *copy;
	size_t len;
	unsigned seed = 3;
	uint64_t rejected = 0;

	assert_int_equal(wet_file_encode(fx->t, &blob, &len), 0);
	copy = malloc(len);
	assert_non_null(copy);
	/* Flipped bits, the trailing checksum made right again: only the
	 * reader's own checks stand in the way. */
	for (int i = 0; i < 3000; i++) {
		memcpy(copy, blob, len);
		size_t at = (size_t)rand_r(&seed) % (len - 4);
		copy[at] ^= (uint8_t)(1u << (rand_r(&seed) % 8));
		uint32_t crc = wpp_crc32c(0, copy, len - 4);
		memcpy(copy + len - 4, &crc, 4);
		decode_hostile(fx, copy, len, i % 3, &rejected); /* parse, verify, lazy */
	}
	/* Every truncation (checksum fixed), and the unfixed ones. */
	for (size_t n = 0; n < len; n += 1 + n / 64) {
		memcpy(copy, blob, n);
		if (n >= 4) {
			uint32_t crc = wpp_crc32c(0, copy, n - 4);
			memcpy(copy + n - 4, &crc, 4);
		}
		decode_hostile(fx, copy, n, 1, &rejected);
		decode_hostile(fx, blob, n, 0, &rejected);
	}
	print_message("%llu of %llu hostile forms rejected or caught reading, none crashed\n",
		      (unsigned long long)rejected, (unsigned long long)tries);
	assert_true(rejected > tries / 2);
	free(copy);
	free(blob);
}

/* Offers of short random strings from a small alphabet (many repeats,
 * many equal lengths, the empty string), against a brute force: with the
 * stored string at hand (bytes compared, as the writer does) and without
 * (hashes only, as the size figures do). */
static void test_dedup(void **state)
{
	(void)state;
	enum { N = 20000, MAXLEN = 6 };
	static uint8_t seen[N][MAXLEN], stored[N * MAXLEN];
	static size_t seen_len[N];
	static uint64_t first[N]; /* the ordinal of the first equal one */
	struct wet_dedup d, h;
	unsigned seed = 5;
	uint64_t repeats = 0, nstored = 0;

	wet_dedup_init(&d);
	wet_dedup_init(&h);
	for (size_t i = 0; i < N; i++) {
		size_t n = (size_t)rand_r(&seed) % (MAXLEN + 1);
		for (size_t j = 0; j < n; j++)
			seen[i][j] = (uint8_t)(rand_r(&seed) % 3);
		seen_len[i] = n;
		first[i] = i;
		for (size_t e = 0; e < i; e++)
			if (first[e] == e && seen_len[e] == n && !memcmp(seen[e], seen[i], n)) {
				first[i] = e;
				break;
			}
		uint64_t want = first[i] == i ? WET_DEDUP_NEW : first[i];
		uint64_t got = wet_dedup_offer(&d, stored, seen[i], n, nstored);
		assert_int_equal(got, want);
		if (got == WET_DEDUP_NEW) {
			memcpy(stored + nstored, seen[i], n);
			nstored += n;
		}
		assert_int_equal(wet_dedup_offer(&h, NULL, seen[i], n, 0), want);
		repeats += first[i] != i;
	}
	/* 3^0 + ... + 3^6 = 1093 distinct strings at most */
	assert_true(repeats >= N - 1093);
	assert_int_equal(wet_dedup_ref_bytes(5), 2);
	assert_int_equal(wet_dedup_ref_bytes(300), 3);
	wet_dedup_free(&d);
	wet_dedup_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_dedup),
	    cmocka_unit_test(test_build_against_feed),
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_hostile),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
