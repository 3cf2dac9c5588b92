/* SPDX-License-Identifier: MIT */
/*
 * test_batch_words.c — BATCH_Z words on demand (batch_words.h) against the
 * words that went into the chunks: random and in-order access with one to
 * three batches pinned at once, a budget smaller than one chunk and one
 * larger than all of them.  Whatever the pattern, every batch reads back
 * its own words; the decoded words held never exceed the budget plus the
 * chunks pinned; a walk in order decodes each chunk exactly once; a
 * budget that holds everything decodes each chunk once whatever the order.
 * Chunks are built here from word_codec.h and the heads' layout
 * (wpp/wpp_file.h), not by the recorder's packer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "decode/batch_words.h"
#include "common/word_codec.h"
#include "common/wppfile_batch.h"

#define NCHUNKS 24
#define BATCHES_PER_CHUNK 3

struct fixture {
	struct wpp_packed_chunk chunks[NCHUNKS];
	void *payloads[NCHUNKS];
	struct wpp_batch_ref refs[NCHUNKS * BATCHES_PER_CHUNK];
	uint64_t *truth[NCHUNKS * BATCHES_PER_CHUNK];
	size_t nrefs;
};

static uint64_t next_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005u + 1442695040888963407u;
	return *s >> 17;
}

/* Loop-like words: a few paths of a few functions, so that the codec has
 * runs, dictionary hits and literals to code. */
static void fill(uint64_t *w, uint32_t n, uint64_t *s)
{
	for (uint32_t i = 0; i < n; i++)
		w[i] = (uint64_t)(1 + next_rand(s) % 5) << 40 |
		       (next_rand(s) % 4 == 0 ? next_rand(s) % 300 : i % 3);
}

static void build(struct fixture *fx, struct wpp_chunk_cache *cache, uint64_t seed)
{
	struct wc_encoder *e = wc_encoder_new(1);
	uint64_t s = seed;

	assert_non_null(e);
	memset(fx, 0, sizeof(*fx));
	for (int c = 0; c < NCHUNKS; c++) {
		struct wpp_chunk_batch heads[BATCHES_PER_CHUNK];
		uint64_t total = 0;
		size_t len;
		uint32_t codec;

		wc_begin(e);
		for (int b = 0; b < BATCHES_PER_CHUNK; b++) {
			uint32_t n = (uint32_t)(next_rand(&s) % 6000); /* 0 too */
			uint64_t *w = malloc((n + 1) * sizeof(*w));
			assert_non_null(w);
			fill(w, n, &s);
			assert_int_equal(wc_add(e, w, n), 0);
			heads[b] = (struct wpp_chunk_batch){.pid = 7,
							    .tid = 7,
							    .seq = 1 + (uint64_t)c * BATCHES_PER_CHUNK + b,
							    .nwords = n};
			fx->truth[fx->nrefs] = w;
			fx->refs[fx->nrefs++] =
			    (struct wpp_batch_ref){.seq = heads[b].seq,
						   .nwords = n,
						   .packed = &fx->chunks[c],
						   .packed_at = (uint32_t)total};
			total += n;
		}
		const void *packed = wc_finish(e, &len, &codec);
		assert_non_null(packed);
		struct wpp_chunk_batch_z z = {
		    .nbatches = BATCHES_PER_CHUNK, .codec = codec, .packed_len = (uint32_t)len};
		size_t size = sizeof(z) + sizeof(heads) + len;
		unsigned char *p = malloc(size);
		assert_non_null(p);
		memcpy(p, &z, sizeof(z));
		memcpy(p + sizeof(z), heads, sizeof(heads));
		memcpy(p + sizeof(z) + sizeof(heads), packed, len);
		z.head_crc32c = wpp_batch_z_heads_crc(p, BATCHES_PER_CHUNK);
		memcpy(p, &z, sizeof(z));
		fx->payloads[c] = p;
		fx->chunks[c] = (struct wpp_packed_chunk){.payload = p,
							  .length = (uint32_t)size,
							  .total_words = total,
							  .file_offset = 4096 * (uint64_t)c,
							  .cache = cache};
	}
	wc_encoder_free(e);
}

static void teardown_fixture(struct fixture *fx)
{
	for (int c = 0; c < NCHUNKS; c++)
		free(fx->payloads[c]);
	for (size_t i = 0; i < fx->nrefs; i++)
		free(fx->truth[i]);
}

static uint64_t chunk_bytes(const struct wpp_packed_chunk *ch)
{
	return (ch->total_words + 1) * 8;
}

static void check_words(const struct fixture *fx, size_t i, const unsigned char *got)
{
	assert_non_null(got);
	assert_memory_equal(got, fx->truth[i], (size_t)fx->refs[i].nwords * 8);
}

/* Random gets with up to `hold` batches pinned at once. */
static void random_walk(struct fixture *fx, struct wpp_chunk_cache *cache, size_t budget,
			unsigned hold, uint64_t seed)
{
	size_t held[3];
	unsigned nheld = 0;
	uint64_t s = seed;

	for (int step = 0; step < 3000; step++) {
		if (nheld == hold) {
			unsigned k = (unsigned)(next_rand(&s) % nheld);
			wpp_batch_words_put(&fx->refs[held[k]]);
			held[k] = held[--nheld];
		}
		size_t i = next_rand(&s) % fx->nrefs;
		check_words(fx, i, wpp_batch_words_get(&fx->refs[i]));
		held[nheld++] = i;
		/* Memory: the budget, plus what is pinned. */
		uint64_t pinned = 0;
		for (int c = 0; c < NCHUNKS; c++)
			if (fx->chunks[c].pins)
				pinned += chunk_bytes(&fx->chunks[c]);
		assert_true(wpp_chunk_cache_stats(cache)->bytes <= budget + pinned);
		/* Earlier gets stay valid while pinned. */
		for (unsigned k = 0; k < nheld; k++)
			check_words(fx, held[k], wpp_batch_words_get(&fx->refs[held[k]]));
		for (unsigned k = 0; k < nheld; k++)
			wpp_batch_words_put(&fx->refs[held[k]]);
	}
	while (nheld)
		wpp_batch_words_put(&fx->refs[held[--nheld]]);
	for (int c = 0; c < NCHUNKS; c++)
		assert_int_equal(fx->chunks[c].pins, 0);
}

static void test_random_access_small_budget(void **state)
{
	(void)state;
	for (unsigned hold = 1; hold <= 3; hold++) {
		size_t budget = 20000; /* below one chunk's words */
		struct wpp_chunk_cache *cache = wpp_chunk_cache_new(budget);
		struct fixture *fx = malloc(sizeof(*fx));
		assert_non_null(cache);
		assert_non_null(fx);
		build(fx, cache, 11 + hold);
		random_walk(fx, cache, budget, hold, 5 + hold);
		assert_true(wpp_chunk_cache_stats(cache)->decodes > NCHUNKS);
		wpp_chunk_cache_free(cache);
		teardown_fixture(fx);
		free(fx);
	}
}

static void test_in_order_decodes_each_chunk_once(void **state)
{
	struct wpp_chunk_cache *cache = wpp_chunk_cache_new(0); /* keeps nothing unpinned */
	struct fixture *fx = malloc(sizeof(*fx));
	const struct wpp_batch_ref *prev = NULL;
	(void)state;

	assert_non_null(cache);
	assert_non_null(fx);
	build(fx, cache, 99);
	/* As the decoder does: the next batch's words, then the previous let go. */
	for (size_t i = 0; i < fx->nrefs; i++) {
		check_words(fx, i, wpp_batch_words_get(&fx->refs[i]));
		if (prev)
			wpp_batch_words_put(prev);
		prev = &fx->refs[i];
	}
	wpp_batch_words_put(prev);
	assert_int_equal(wpp_chunk_cache_stats(cache)->decodes, NCHUNKS);
	assert_true(wpp_chunk_cache_stats(cache)->peak_bytes <=
		    2 * chunk_bytes(&fx->chunks[0]) + 2 * 6000 * 8 * BATCHES_PER_CHUNK);
	wpp_chunk_cache_free(cache);
	teardown_fixture(fx);
	free(fx);
}

static void test_large_budget_decodes_once(void **state)
{
	size_t budget = 64u << 20;
	struct wpp_chunk_cache *cache = wpp_chunk_cache_new(budget);
	struct fixture *fx = malloc(sizeof(*fx));
	(void)state;

	assert_non_null(cache);
	assert_non_null(fx);
	build(fx, cache, 3);
	random_walk(fx, cache, budget, 2, 77);
	assert_int_equal(wpp_chunk_cache_stats(cache)->decodes, NCHUNKS);
	wpp_chunk_cache_free(cache);
	teardown_fixture(fx);
	free(fx);
}

/* A batch read straight from a BATCH chunk: its own words, no cache. */
static void test_unpacked_batch(void **state)
{
	uint64_t w[3] = {1, 2, 3};
	struct wpp_batch_ref b = {.nwords = 3, .words = (const unsigned char *)w};
	(void)state;

	assert_ptr_equal(wpp_batch_words_get(&b), (const unsigned char *)w);
	wpp_batch_words_put(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_access_small_budget),
	    cmocka_unit_test(test_in_order_decodes_each_chunk_once),
	    cmocka_unit_test(test_large_budget_decodes_once),
	    cmocka_unit_test(test_unpacked_batch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
