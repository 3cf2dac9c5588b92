/* SPDX-License-Identifier: MIT */
/*
 * test_count_table.c — counting mode's runtime pieces (rt_count_table.h),
 * under ASan/UBSan, against references computed here:
 *  - the hash: random keys (narrow and wide ids, many fids) counted through
 *    several growths equal a brute-force tally; a drain takes every count
 *    once and leaves zeros; clear forgets everything;
 *  - an array drain names each slot's function and path from the TU's
 *    registered base (the unregistered fid before registration), skips
 *    hashed functions' empty ranges and zeroes what it took;
 *  - a sparse array of 2^26 counters (512 MiB of address space, as a
 *    function with up to 2^29 paths gets): the pagemap-guided drain takes
 *    every count written at random slots and maps no page it was not
 *    written to (mincore afterwards), and a touched oracle that denies a
 *    page leaves that page's counts where they are;
 *  - the encoding of a count decodes, by the trace ABI's rules written out
 *    here, to the same (fid, id, count), with the fewest REPEAT words and a
 *    wide record's two words in one piece.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/rt_count_pages.h"
#include "runtime/rt_count_table.h"
#include "tests/unit/runtime/resident_pages.h"

struct tally {
	uint64_t fidw, id, count;
};

struct got {
	struct tally *t;
	size_t n, cap;
};

static void collect(uint64_t fidw, uint64_t id, uint64_t count, void *arg)
{
	struct got *g = arg;
	assert_true(count >= 1);
	if (g->n == g->cap) {
		g->cap = g->cap ? 2 * g->cap : 256;
		g->t = realloc(g->t, g->cap * sizeof(*g->t));
		assert_non_null(g->t);
	}
	g->t[g->n++] = (struct tally){fidw, id, count};
}

static int by_key(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;
	if (x->fidw != y->fidw)
		return x->fidw < y->fidw ? -1 : 1;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return 0;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

#define NKEYS 5000
#define NADDS 300000

static void test_hash_counts_every_key(void **state)
{
	(void)state;
	struct rt_count_table t = {0};
	static struct tally ref[NKEYS];
	uint64_t s = 0x1234567;
	for (size_t k = 0; k < NKEYS; k++) {
		uint64_t fid = 1 + rnd(&s) % 40;
		uint64_t id = k % 3 ? rnd(&s) % 5000 : rnd(&s) >> 2; /* some wide */
		ref[k] = (struct tally){fid << WPP_FID_SHIFT, id, 0};
		for (size_t j = 0; j < k; j++)
			if (ref[j].fidw == ref[k].fidw && ref[j].id == ref[k].id)
				ref[k].id++, j = (size_t)-1; /* distinct keys */
	}
	for (size_t i = 0; i < NADDS; i++) {
		/* skewed: a few keys take most counts, as hot paths do */
		size_t k = i % 4 ? rnd(&s) % 16 : rnd(&s) % NKEYS;
		assert_int_equal(rt_count_table_add(&t, ref[k].fidw, ref[k].id), 0);
		ref[k].count++;
	}
	assert_true(t.cap >= 4096); /* grew at least twice from 1024 */
	struct got g = {0};
	rt_count_table_drain(&t, collect, &g);
	qsort(g.t, g.n, sizeof(*g.t), by_key);
	qsort(ref, NKEYS, sizeof(*ref), by_key);
	size_t j = 0;
	for (size_t k = 0; k < NKEYS; k++) {
		if (!ref[k].count)
			continue;
		assert_true(j < g.n);
		assert_int_equal(g.t[j].fidw, ref[k].fidw);
		assert_int_equal(g.t[j].id, ref[k].id);
		assert_int_equal(g.t[j].count, ref[k].count);
		j++;
	}
	assert_int_equal(j, g.n);

	/* drained counts are gone; new ones are deltas */
	g.n = 0;
	rt_count_table_drain(&t, collect, &g);
	assert_int_equal(g.n, 0);
	assert_int_equal(rt_count_table_add(&t, ref[0].fidw, ref[0].id), 0);
	rt_count_table_drain(&t, collect, &g);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.t[0].count, 1);

	/* clear: nothing left, and the table still counts */
	assert_int_equal(rt_count_table_add(&t, ref[1].fidw, ref[1].id), 0);
	rt_count_table_clear(&t);
	g.n = 0;
	rt_count_table_drain(&t, collect, &g);
	assert_int_equal(g.n, 0);
	assert_int_equal(rt_count_table_add(&t, ref[2].fidw, ref[2].id), 0);
	rt_count_table_drain(&t, collect, &g);
	assert_int_equal(g.n, 1);
	free(g.t);
}

static void test_array_drain(void **state)
{
	(void)state;
	/* f0: 5 paths, f1: hashed (empty range), f2: 7 paths */
	static const uint64_t first[4] = {0, 5, 5, 12};
	uint64_t fid_base = (uint64_t)7 << WPP_FID_SHIFT;
	struct wpp_count_desc desc = {WPP_ABI_VERSION, 3, 12, &fid_base, first, NULL, NULL, NULL};
	uint64_t base[12] = {0};
	base[0] = 3, base[4] = 1, base[5] = 9, base[11] = UINT64_C(1) << 40;
	struct got g = {0};
	rt_count_array_drain(&desc, base, NULL, NULL, collect, &g);
	assert_int_equal(g.n, 4);
	struct tally want[4] = {{(uint64_t)7 << 40, 0, 3},
				{(uint64_t)7 << 40, 4, 1},
				{(uint64_t)9 << 40, 0, 9},
				{(uint64_t)9 << 40, 6, UINT64_C(1) << 40}};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(g.t[i].fidw, want[i].fidw);
		assert_int_equal(g.t[i].id, want[i].id);
		assert_int_equal(g.t[i].count, want[i].count);
	}
	for (int i = 0; i < 12; i++)
		assert_int_equal(base[i], 0);
	/* before registration: the unregistered fid, for every function */
	fid_base = (uint64_t)WPP_FID_UNREGISTERED << WPP_FID_SHIFT;
	base[6] = 2;
	g.n = 0;
	rt_count_array_drain(&desc, base, NULL, NULL, collect, &g);
	assert_int_equal(g.n, 1);
	assert_int_equal(wpp_word_fid(g.t[0].fidw), WPP_FID_UNREGISTERED);
	assert_int_equal(g.t[0].count, 2);
	free(g.t);
}

/* A PPP unit: f0 counts by Ball-Larus id (no table), f1 by PPP id over 4
 * slots whose table names Ball-Larus paths 70, (hole), 3 and 12; a
 * counting unit's descriptor with the same pointer is not read for it. */
static void test_ppp_array_drain(void **state)
{
	(void)state;
	static const uint64_t first[3] = {0, 3, 7};
	static const uint64_t f1_paths[4] = {70, WPP_PPP_HOLE, 3, 12};
	const uint64_t *const tables[2] = {NULL, f1_paths};
	uint64_t fid_base = (uint64_t)5 << WPP_FID_SHIFT;
	struct wpp_count_desc desc = {WPP_COUNT_DESC_PPP, 2, 7, &fid_base, first, NULL, tables, NULL};
	uint64_t base[7] = {0};
	base[1] = 4, base[3] = 2, base[5] = 8, base[6] = 1;
	struct got g = {0};
	rt_count_array_drain(&desc, base, NULL, NULL, collect, &g);
	assert_int_equal(g.n, 4);
	struct tally want[4] = {{(uint64_t)5 << 40, 1, 4},
				{(uint64_t)6 << 40, 70, 2},
				{(uint64_t)6 << 40, 3, 8},
				{(uint64_t)6 << 40, 12, 1}};
	for (int i = 0; i < 4; i++) {
		assert_int_equal(g.t[i].fidw, want[i].fidw);
		assert_int_equal(g.t[i].id, want[i].id);
		assert_int_equal(g.t[i].count, want[i].count);
	}
	/* a counter in a hole (never counted into) is dropped, not reported
	 * as a path that does not exist */
	base[4] = 5;
	g.n = 0;
	rt_count_array_drain(&desc, base, NULL, NULL, collect, &g);
	assert_int_equal(g.n, 0);
	assert_int_equal(base[4], 0);
	/* version 1: slots are Ball-Larus ids whatever the last field holds */
	desc.abi_version = WPP_ABI_VERSION;
	base[5] = 1;
	rt_count_array_drain(&desc, base, NULL, NULL, collect, &g);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.t[0].id, 2);
	free(g.t);
}

/* Slots of the sparse test: f0 2^25 + 100 slots (f2 starts mid-page), f1
 * hashed, f2 the rest of 2^26. */
#define SPARSE_SLOTS (UINT64_C(1) << 26)
#define SPARSE_F0    ((UINT64_C(1) << 25) + 100)

/* The kernel's word, but every odd page denied. */
static const void *even_pages_only(void *ctx, const void *from, const void *end)
{
	for (const char *at = rt_count_pages_next_here(ctx, from, end); at < (const char *)end;
	     at = rt_count_pages_next_here(ctx, at, end)) {
		if (((uintptr_t)at / 4096) % 2 == 0)
			return at;
		at = (const char *)(((uintptr_t)at | 4095) + 1);
	}
	return end;
}

static void test_sparse_drain(void **state)
{
	(void)state;
	static const uint64_t first[4] = {0, SPARSE_F0, SPARSE_F0, SPARSE_SLOTS};
	uint64_t fid_base = (uint64_t)3 << WPP_FID_SHIFT;
	struct wpp_count_desc desc = {WPP_ABI_VERSION, 3, SPARSE_SLOTS, &fid_base, first, NULL,
				      NULL, NULL};
	uint64_t bytes = SPARSE_SLOTS * 8;
	uint64_t *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(base != MAP_FAILED);
	madvise(base, bytes, MADV_NOHUGEPAGE);

	/* 200 counts at random slots, plus both sides of f2's first slot */
	enum { N = 202 };
	struct tally ref[N];
	uint64_t seed = 0x5eed5eedULL;
	size_t nref = 0;
	for (int i = 0; i < N; i++) {
		uint64_t s = i == 0 ? SPARSE_F0 - 1 : i == 1 ? SPARSE_F0 : rnd(&seed) % SPARSE_SLOTS;
		int dup = 0;
		for (size_t k = 0; k < nref; k++)
			dup |= ref[k].id == s;
		if (dup)
			continue;
		base[s] = 1 + rnd(&seed) % 1000;
		ref[nref++] = (struct tally){0, s, base[s]};
	}
	uint64_t touched_before = resident_pages(base, bytes);
	assert_true(touched_before >= 2 && touched_before <= nref);

	/* odd pages denied: their counts stay */
	struct got g = {0};
	struct rt_count_pages pages = {.fd = -1};
	rt_count_pages_open(&pages, "/proc/self/pagemap");
	assert_true(pages.fd >= 0);
	rt_count_array_drain(&desc, base, even_pages_only, &pages, collect, &g);
	size_t left = 0;
	for (size_t k = 0; k < nref; k++)
		left += base[ref[k].id] != 0;
	assert_int_equal(g.n + left, nref);
	assert_true(left > 0 && g.n > 0);

	/* the kernel's word alone: every remaining count, and no page the
	 * test did not write was mapped by either drain */
	rt_count_array_drain(&desc, base, rt_count_pages_next_here, &pages, collect, &g);
	rt_count_pages_close(&pages);
	assert_int_equal(resident_pages(base, bytes), touched_before);
	assert_int_equal(g.n, nref);
	qsort(g.t, g.n, sizeof(*g.t), by_key);
	for (size_t k = 0; k < nref; k++) {
		uint64_t s = ref[k].id;
		int f2 = s >= SPARSE_F0;
		ref[k].fidw = (uint64_t)(f2 ? 5 : 3) << WPP_FID_SHIFT;
		ref[k].id = f2 ? s - SPARSE_F0 : s;
	}
	qsort(ref, nref, sizeof(*ref), by_key);
	for (size_t k = 0; k < nref; k++) {
		assert_int_equal(g.t[k].fidw, ref[k].fidw);
		assert_int_equal(g.t[k].id, ref[k].id);
		assert_int_equal(g.t[k].count, ref[k].count);
	}
	for (size_t k = 0; k < nref; k++)
		assert_int_equal(base[(ref[k].fidw >> WPP_FID_SHIFT) == 5 ? SPARSE_F0 + ref[k].id
									 : ref[k].id],
				 0);
	munmap(base, bytes);
	free(g.t);
}

/* The words of one encoding, and how many pieces they came in. */
struct words {
	uint64_t w[64];
	unsigned n, pieces, wide_split;
};

static void put(const uint64_t *w, unsigned n, void *arg)
{
	struct words *o = arg;
	assert_true(n == 1 || n == 2);
	if (n == 1 && wpp_word_fid(w[0]) == WPP_FID_CONTROL &&
	    wpp_ctrl_op(w[0]) == WPP_CTRL_WIDE_PATH)
		o->wide_split++;
	for (unsigned i = 0; i < n; i++) {
		assert_true(o->n < 64);
		o->w[o->n++] = w[i];
	}
	o->pieces++;
}

/* trace_abi.h, read independently: one record, then REPEATs adding up. */
static void decode(const struct words *o, uint32_t *fid, uint64_t *id, uint64_t *count)
{
	unsigned i = 0;
	assert_true(o->n >= 1);
	if (wpp_word_fid(o->w[0]) == WPP_FID_CONTROL) {
		assert_int_equal(wpp_ctrl_op(o->w[0]), WPP_CTRL_WIDE_PATH);
		assert_true(o->n >= 2);
		assert_true(o->w[1] & WPP_WIDE_ID_MARK);
		*fid = wpp_ctrl_operand(o->w[0]);
		*id = o->w[1] & ~WPP_WIDE_ID_MARK;
		i = 2;
	} else {
		*fid = wpp_word_fid(o->w[0]);
		*id = wpp_word_payload(o->w[0]);
		i = 1;
	}
	*count = 1;
	for (; i < o->n; i++) {
		assert_int_equal(wpp_word_fid(o->w[i]), WPP_FID_CONTROL);
		assert_int_equal(wpp_ctrl_op(o->w[i]), WPP_CTRL_REPEAT);
		assert_true(wpp_ctrl_operand(o->w[i]) >= 1);
		*count += wpp_ctrl_operand(o->w[i]);
	}
}

static void test_encode_roundtrip(void **state)
{
	(void)state;
	const uint64_t M = WPP_REPEAT_MAX;
	const uint64_t counts[] = {1, 2, 1000, M, M + 1, M + 2, 3 * M + 5, 40 * M};
	const uint64_t ids[] = {0, 17, WPP_PAYLOAD_MASK, WPP_PAYLOAD_MASK + 1,
				(UINT64_C(1) << 62) + 3};
	for (size_t c = 0; c < sizeof(counts) / sizeof(*counts); c++)
		for (size_t k = 0; k < sizeof(ids) / sizeof(*ids); k++) {
			struct words o = {0};
			uint32_t fid;
			uint64_t id, count;
			rt_count_encode((uint64_t)12345 << WPP_FID_SHIFT, ids[k], counts[c], put,
					&o);
			decode(&o, &fid, &id, &count);
			assert_int_equal(fid, 12345);
			assert_int_equal(id, ids[k]);
			assert_int_equal(count, counts[c]);
			unsigned record = ids[k] > WPP_PAYLOAD_MASK ? 2 : 1;
			uint64_t repeats = (counts[c] - 1 + M - 1) / M;
			assert_int_equal(o.n, record + repeats);
			assert_int_equal(rt_count_words(ids[k], counts[c]), o.n);
			assert_int_equal(o.wide_split, 0);
		}
	struct words none = {0};
	rt_count_encode((uint64_t)5 << WPP_FID_SHIFT, 1, 0, put, &none);
	assert_int_equal(none.n, 0);
	assert_int_equal(rt_count_words(1, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hash_counts_every_key),
	    cmocka_unit_test(test_array_drain),
	    cmocka_unit_test(test_ppp_array_drain),
	    cmocka_unit_test(test_sparse_drain),
	    cmocka_unit_test(test_encode_roundtrip),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
