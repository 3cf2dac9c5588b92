/* SPDX-License-Identifier: MIT */
/*
 * test_kipf_serial.c — WPP_CHUNK_KIPF round trips (one chunk and many) and
 * rejection of corrupt chunks: every targeted corruption is refused with a
 * reason, random damage never crashes the reader.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "forest_check.h"
#include "analysis/kpaths/kipf.h"
#include "analysis/kpaths/kipf_serial.h"
#include "analysis/kpaths/kslab.h"
#include "streams.h"

struct chunks {
	unsigned char *buf[4096];
	uint32_t len[4096];
	size_t n;
};

static int capture(void *ctx, const void *payload, uint32_t len)
{
	struct chunks *c = ctx;

	assert_true(c->n < 4096);
	c->buf[c->n] = malloc(len);
	memcpy(c->buf[c->n], payload, len);
	c->len[c->n++] = len;
	return 0;
}

static void chunks_free(struct chunks *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->buf[i]);
	c->n = 0;
}

static struct kipf *forest(uint64_t seed, unsigned k, uint64_t max_nodes)
{
	static struct ev e[4000];
	size_t n = stream_loopy(seed, e, 4000);
	struct kslab *s = kslab_new(k, max_nodes);
	struct kipf *f = kipf_new(k);

	for (size_t i = 0; i < n; i++) {
		if (e[i].mark)
			kslab_mark(s);
		else
			kslab_item(s, e[i].fid, e[i].value);
	}
	assert_int_equal(kipf_add_kslab(f, s), 0);
	assert_int_equal(kipf_sort(f), 0);
	kslab_free(s);
	return f;
}

static int load_all(struct kipf_store *st, const struct chunks *c)
{
	char err[160];

	for (size_t i = 0; i < c->n; i++)
		if (kipf_store_add(st, c->buf[i], c->len[i], err, sizeof(err)) < 0)
			return -1;
	return 0;
}

static void round_trip(unsigned k, uint64_t max_nodes, uint32_t max_payload, int want_many)
{
	struct kipf *f = forest(k * 13 + 1, k, max_nodes);
	struct chunks c = {0};
	struct kipf_store st = {0};
	struct kipf_stored *t;

	assert_int_equal(kipf_write_chunks(f, 10, 11, 2, max_payload, capture, &c), 0);
	if (want_many)
		assert_true(c.n > 3);
	assert_int_equal(load_all(&st, &c), 0);
	t = kipf_store_find(&st, 10, 2, 11);
	assert_non_null(t);
	assert_true(t->complete);
	assert_false(t->bad);
	forest_same(f, t->ipf);
	kipf_store_free(&st);
	chunks_free(&c);
	kipf_free(f);
}

static void test_round_trip(void **state)
{
	(void)state;
	for (unsigned k = 1; k <= KSLAB_MAX_K; k += 3) {
		round_trip(k, 0, 16u << 20, 0);
		round_trip(k, 0, (uint32_t)KIPF_CHUNK_MIN_PAYLOAD, k > 2);
		round_trip(k, 0, (uint32_t)KIPF_CHUNK_MIN_PAYLOAD + 24 * 37, 0);
	}
	round_trip(8, 200, (uint32_t)KIPF_CHUNK_MIN_PAYLOAD, 1); /* pruned */
}

static void test_empty_forest(void **state)
{
	struct kipf *f = kipf_new(4);
	struct chunks c = {0};
	struct kipf_store st = {0};
	(void)state;

	assert_int_equal(kipf_sort(f), 0);
	assert_int_equal(kipf_write_chunks(f, 1, 1, 0, 1u << 20, capture, &c), 0);
	assert_int_equal(c.n, 1);
	assert_int_equal(load_all(&st, &c), 0);
	assert_true(kipf_store_find(&st, 1, 0, 1)->complete);
	kipf_store_free(&st);
	chunks_free(&c);
	kipf_free(f);
}

static struct wpp_chunk_kipf *hdr(unsigned char *p)
{
	return (struct wpp_chunk_kipf *)p;
}

static struct wpp_kipf_node *node(unsigned char *p, uint32_t i)
{
	return (struct wpp_kipf_node *)(p + sizeof(struct wpp_chunk_kipf) +
					hdr(p)->context_len * sizeof(struct wpp_kipf_label)) +
	       i;
}

/* Apply one corruption to a copy of the chunks and expect a rejection. */
typedef void (*corrupt_fn)(struct chunks *c);

static void c_k_zero(struct chunks *c)
{
	hdr(c->buf[0])->k = 0;
}
static void c_k_big(struct chunks *c)
{
	hdr(c->buf[0])->k = WPP_KIPF_MAX_K + 1;
}
static void c_short(struct chunks *c)
{
	c->len[0] = sizeof(struct wpp_chunk_kipf) - 1;
}
static void c_size(struct chunks *c)
{
	hdr(c->buf[0])->nnodes++;
}
static void c_flags(struct chunks *c)
{
	hdr(c->buf[0])->flags |= 0x80;
}
static void c_depth_jump(struct chunks *c)
{
	node(c->buf[0], 1)->depth = node(c->buf[0], 0)->depth + 2;
}
static void c_depth_k(struct chunks *c)
{
	node(c->buf[0], 1)->depth = hdr(c->buf[0])->k;
}
static void c_zero_count(struct chunks *c)
{
	node(c->buf[0], 2)->count = 0;
}
static void c_zero_fid(struct chunks *c)
{
	node(c->buf[0], 2)->fid = 0;
}
static void c_child_count(struct chunks *c)
{
	node(c->buf[0], 1)->count = node(c->buf[0], 0)->count + 1;
}
static void c_first_depth(struct chunks *c)
{
	node(c->buf[0], 0)->depth = 1;
}
static void c_part(struct chunks *c)
{
	hdr(c->buf[1])->part = 5;
}
static void c_context(struct chunks *c)
{
	struct wpp_kipf_label *l =
	    (struct wpp_kipf_label *)(c->buf[1] + sizeof(struct wpp_chunk_kipf));
	if (hdr(c->buf[1])->context_len)
		l[0].value ^= 1;
	else
		hdr(c->buf[1])->part = 0;
}
static void c_items(struct chunks *c)
{
	hdr(c->buf[1])->items++;
}
static void c_pruned_flag(struct chunks *c)
{
	hdr(c->buf[0])->flags |= WPP_KIPF_PRUNED;
}
static void c_duplicate(struct chunks *c)
{
	/* Make root 1 repeat root 0 (roots are depth-0 nodes). */
	uint32_t n = hdr(c->buf[0])->nnodes, first = 0, second = 0;
	for (uint32_t i = 1; i < n && !second; i++)
		if (node(c->buf[0], i)->depth == 0)
			second = i;
	assert_true(second > 0);
	node(c->buf[0], second)->fid = node(c->buf[0], first)->fid;
	node(c->buf[0], second)->value = node(c->buf[0], first)->value;
}
static void c_swap_roots(struct chunks *c)
{
	uint32_t n = hdr(c->buf[0])->nnodes, second = 0;
	for (uint32_t i = 1; i < n && !second; i++)
		if (node(c->buf[0], i)->depth == 0)
			second = i;
	assert_true(second > 0);
	node(c->buf[0], second)->fid = 0 + 1;
	node(c->buf[0], second)->value = 0;
	node(c->buf[0], 0)->fid = 0xffffff;
}

static void test_corrupt_chunks_rejected(void **state)
{
	static const corrupt_fn fns[] = {
	    c_k_zero,  c_k_big,	     c_short,	    c_size,	   c_flags,	  c_depth_jump,
	    c_depth_k, c_zero_count, c_zero_fid,    c_child_count, c_first_depth, c_part,
	    c_context, c_items,	     c_pruned_flag, c_duplicate,   c_swap_roots};
	struct kipf *f = forest(99, 6, 0);
	(void)state;

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		struct chunks c = {0};
		struct kipf_store st = {0};
		assert_int_equal(kipf_write_chunks(f, 1, 2, 0,
						   (uint32_t)KIPF_CHUNK_MIN_PAYLOAD + 24 * 100,
						   capture, &c),
				 0);
		assert_true(c.n >= 2);
		fns[i](&c);
		if (load_all(&st, &c) == 0)
			fail_msg("corruption %zu accepted", i);
		kipf_store_free(&st);
		chunks_free(&c);
	}
	kipf_free(f);
}

static void test_random_damage_never_crashes(void **state)
{
	struct kipf *f = forest(7, 5, 0);
	uint64_t rng = 12345;
	(void)state;

	for (int round = 0; round < 300; round++) {
		struct chunks c = {0};
		struct kipf_store st = {0};
		char err[160];
		assert_int_equal(kipf_write_chunks(f, 1, 2, 0,
						   (uint32_t)KIPF_CHUNK_MIN_PAYLOAD + 24 * 60,
						   capture, &c),
				 0);
		for (int flips = 0; flips < 1 + round % 8; flips++) {
			size_t ci = test_rand(&rng) % c.n;
			size_t at = test_rand(&rng) % c.len[ci];
			c.buf[ci][at] ^= (unsigned char)(1u << (test_rand(&rng) % 8));
		}
		if (round % 5 == 0) {
			size_t ci = test_rand(&rng) % c.n;
			c.len[ci] = (uint32_t)(test_rand(&rng) % (c.len[ci] + 1));
		}
		for (size_t i = 0; i < c.n; i++)
			(void)kipf_store_add(&st, c.buf[i], c.len[i], err, sizeof(err));
		kipf_store_free(&st);
		chunks_free(&c);
	}
	kipf_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_empty_forest),
	    cmocka_unit_test(test_corrupt_chunks_rejected),
	    cmocka_unit_test(test_random_damage_never_crashes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
