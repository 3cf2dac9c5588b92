/* SPDX-License-Identifier: MIT */
/*
 * test_count_snapshot.c — the live-count reader (count_snapshot.h) on
 * count blocks laid out by hand in this process's own memory and read
 * back through /proc/self/mem, under ASan/UBSan:
 *  - two threads' blocks (arrays of a TU with a hashed function between
 *    two array functions, and hashes) sum to the expected (fid, path,
 *    count) list; a free block and a busy hash are left out;
 *  - per thread: samples under each block's tid; a drain under way said;
 *  - deltas between snapshots, including a counter drained in between;
 *  - hostile layouts: a list that loops, a descriptor of another ABI,
 *    slot ranges that overrun, an unmapped array, no counts address —
 *    each an error, never a crash or a hang;
 *  - a PPP unit's descriptor: slots of a function with a slot table are
 *    read as the Ball-Larus ids it names (a hole is dropped), the others
 *    by index; an unmapped table is an error;
 *  - a sparse array (2^25 counters, 256 MiB of address space, counts at
 *    random slots): every count read, and no page the test did not write
 *    mapped by the reading (mincore before and after).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bpfcollect/count_snapshot.h"
#include "wpp/trace_abi.h"
#include "runtime/wpp_registry.h"
#include "tests/unit/runtime/resident_pages.h"

#define A(p) ((uint64_t)(uintptr_t)(p))

/* An address nothing is mapped at for the whole test: inside page 0,
 * below vm.mmap_min_addr.  (A page mapped and unmapped again does not
 * stay unmapped: the sanitizer's allocator can take it back before the
 * read, and the read then succeeds.) */
#define UNMAPPED ((uint64_t)64)

static uint64_t fid_base = (uint64_t)40 << WPP_FID_SHIFT;
/* f0: 4 paths, f1: hashed, f2: 3 paths */
static uint64_t first[4] = {0, 4, 4, 7};
static struct wpp_count_desc desc;
static uint64_t arr0[7], arr1[7];
static struct wpp_count_array_ref refs0[2], refs1[2];
static struct wpp_count_hash_entry hash0[8], hash1[8];
static struct wpp_count_block b0, b1, b2;
static uint64_t head;

static void layout(void)
{
	desc = (struct wpp_count_desc){WPP_ABI_VERSION, 3, 7, &fid_base, first, NULL, NULL, NULL};
	memset(arr0, 0, sizeof(arr0));
	memset(arr1, 0, sizeof(arr1));
	memset(hash0, 0, sizeof(hash0));
	memset(hash1, 0, sizeof(hash1));
	arr0[0] = 5, arr0[3] = 1, arr0[6] = 2; /* f0 p0, f0 p3, f2 p2 */
	arr1[0] = 10, arr1[5] = 7;	       /* f0 p0, f2 p1 */
	hash0[3] = (struct wpp_count_hash_entry){(uint64_t)41 << WPP_FID_SHIFT, 5000, 9};
	hash1[6] = (struct wpp_count_hash_entry){(uint64_t)41 << WPP_FID_SHIFT, 5000, 1};
	hash1[1] = (struct wpp_count_hash_entry){(uint64_t)41 << WPP_FID_SHIFT, 77, 4};
	refs0[0] = (struct wpp_count_array_ref){A(&desc), 0, A(arr0)};
	refs1[0] = (struct wpp_count_array_ref){A(&desc), 0, A(arr1)};
	b2 =
	    (struct wpp_count_block){0, WPP_COUNT_FREE, 0, A(refs1), 1, 2, A(hash1), 8, 2, 0, 0, 0};
	b1 = (struct wpp_count_block){
	    A(&b2), WPP_COUNT_LIVE, 0, A(refs1), 1, 2, A(hash1), 8, 2, 0, 0, 0};
	b0 = (struct wpp_count_block){
	    A(&b1), WPP_COUNT_LIVE, 0, A(refs0), 1, 2, A(hash0), 8, 1, 0, 0, 0};
	head = A(&b0);
}

static void expect(const struct count_snapshot *s, const struct count_sample *want, size_t n)
{
	assert_int_equal(s->n, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(s->s[i].fid, want[i].fid);
		assert_int_equal(s->s[i].id, want[i].id);
		assert_int_equal(s->s[i].count, want[i].count);
	}
}

static void test_sums_threads(void **state)
{
	(void)state;
	struct count_snapshot s;
	layout();
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s), 0);
	const struct count_sample want[] = {
	    {40, 0, 15, 0},    {40, 3, 1, 0}, {41, 77, 4, 0},
	    {41, 5000, 10, 0}, {42, 1, 7, 0}, {42, 2, 2, 0},
	};
	expect(&s, want, sizeof(want) / sizeof(*want));
	assert_int_equal(s.threads, 2); /* b2 is free */
	count_snapshot_free(&s);

	/* a busy hash is not read (its owner is moving entries) */
	b1.busy = 1;
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s), 0);
	assert_int_equal(s.hashes_busy, 1);
	const struct count_sample want_busy[] = {
	    {40, 0, 15, 0}, {40, 3, 1, 0}, {41, 5000, 9, 0}, {42, 1, 7, 0}, {42, 2, 2, 0},
	};
	expect(&s, want_busy, sizeof(want_busy) / sizeof(*want_busy));
	count_snapshot_free(&s);
}

/* Per thread (record's periodic snapshot, record_live_counts.c): each
 * block's samples under its owner's tid, sorted by (tid, fid, id); a block
 * whose drain count is odd (a drain runs) is said, its counts kept. */
static void test_threads_and_drains(void **state)
{
	(void)state;
	struct count_snapshot s;
	layout();
	b0.tid = 200, b1.tid = 100;
	assert_int_equal(count_snapshot_read_threads(getpid(), A(&head), &s), 0);
	const struct count_sample want[] = {
	    {40, 0, 10, 100}, {41, 77, 4, 100}, {41, 5000, 1, 100}, {42, 1, 7, 100},
	    {40, 0, 5, 200},  {40, 3, 1, 200},	{41, 5000, 9, 200}, {42, 2, 2, 200},
	};
	expect(&s, want, sizeof(want) / sizeof(*want));
	for (size_t i = 0; i < s.n; i++)
		assert_int_equal(s.s[i].tid, want[i].tid);
	assert_int_equal(s.threads_draining, 0);
	count_snapshot_free(&s);

	/* merged, the tids are gone and the sums are the same as ever */
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s), 0);
	assert_int_equal(s.n, 6);
	for (size_t i = 0; i < s.n; i++)
		assert_int_equal(s.s[i].tid, 0);
	count_snapshot_free(&s);

	b1.drains = 3; /* a drain began and has not ended */
	b0.drains = 4; /* two drains, both over */
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s), 0);
	assert_int_equal(s.threads_draining, 1);
	assert_int_equal(s.n, 6);
	count_snapshot_free(&s);
}

static void test_deltas(void **state)
{
	(void)state;
	struct count_snapshot s1, s2, d;
	layout();
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s1), 0);
	arr0[0] += 3;	    /* ran 3 more times */
	arr1[5] = 2;	    /* drained, then ran twice */
	hash1[1].count = 4; /* unchanged */
	arr0[1] = 6;	    /* new path */
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s2), 0);
	assert_int_equal(count_snapshot_delta(&s1, &s2, &d), 0);
	const struct count_sample want[] = {{40, 0, 3, 0}, {40, 1, 6, 0}, {42, 1, 2, 0}};
	expect(&d, want, sizeof(want) / sizeof(*want));
	count_snapshot_free(&s1);
	count_snapshot_free(&s2);
	count_snapshot_free(&d);
}

static void test_hostile(void **state)
{
	(void)state;
	struct count_snapshot s;
	layout();
	assert_int_equal(count_snapshot_read(getpid(), 0, &s), -ENOENT);

	b2.next = A(&b0); /* a list that loops */
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s), -EPROTO);
	layout();
	desc.abi_version = 99;
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s), -EPROTO);
	layout();
	first[2] = 9; /* past nslots */
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s), -EPROTO);
	first[2] = 4;
	layout();
	b0.narrays = 3; /* more than its capacity */
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s), -EPROTO);
	layout();
	b1.hash_cap = 6; /* not a power of two */
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s), -EPROTO);
	layout();
	refs0[0].base = UNMAPPED;
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s), -EPROTO);
	layout();
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s), 0);
	count_snapshot_free(&s);
}

/* f0 counts by Ball-Larus id; f2's three slots are PPP ids standing for
 * paths 900, (a hole) and 12. */
static void test_ppp_slots(void **state)
{
	(void)state;
	struct count_snapshot s;
	static const uint64_t f2_paths[3] = {900, WPP_PPP_HOLE, 12};
	static const uint64_t *tables[3] = {NULL, NULL, f2_paths};
	layout();
	desc.abi_version = WPP_COUNT_DESC_PPP;
	desc.ppp_slots = tables;
	/* arr1[5] = 7 and this one sit in the hole (the code never counts
	 * there): dropped */
	arr0[5] = 3;
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s), 0);
	const struct count_sample want[] = {
	    {40, 0, 15, 0}, {40, 3, 1, 0}, {41, 77, 4, 0}, {41, 5000, 10, 0}, {42, 12, 2, 0},
	};
	expect(&s, want, sizeof(want) / sizeof(*want));
	count_snapshot_free(&s);
	arr1[4] = 8; /* PPP id 0: path 900 */
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s), 0);
	const struct count_sample want2[] = {
	    {40, 0, 15, 0},    {40, 3, 1, 0},  {41, 77, 4, 0},
	    {41, 5000, 10, 0}, {42, 12, 2, 0}, {42, 900, 8, 0},
	};
	expect(&s, want2, sizeof(want2) / sizeof(*want2));
	count_snapshot_free(&s);

	tables[2] = (const uint64_t *)(uintptr_t)UNMAPPED; /* an unmapped slot table */
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s), -EPROTO);
	tables[2] = f2_paths;
	layout();
}

/* f1 (hashed in layout()) gets a path cache of 2 pairs in [4, 8): keys
 * 4-5, counts 6-7, and f2 moves to [8, 11); a count goes to the path its
 * key (id + 1) names, a count without a key is no path. */
static void test_cached_pairs(void **state)
{
	(void)state;
	struct count_snapshot s;
	static const uint8_t cached[3] = {0, 1, 0};
	static uint64_t cfirst[4] = {0, 4, 8, 11};
	static uint64_t c0[11], c1[11];
	layout();
	desc = (struct wpp_count_desc){WPP_COUNT_DESC_CACHED, 3, 11, &fid_base, cfirst, NULL, NULL,
				       cached};
	refs0[0].base = A(c0), refs1[0].base = A(c1);
	c0[0] = 5, c0[3] = 1, c0[10] = 2; /* f0 p0, f0 p3, f2 p2 */
	c0[5] = 13, c0[7] = 3;		  /* f1: path 12, 3 times */
	c1[4] = 901, c1[6] = 7;		  /* f1: path 900, 7 times */
	c1[5] = 78;			  /* a key without a count: nothing */
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s), 0);
	const struct count_sample want[] = {
	    {40, 0, 5, 0},    {40, 3, 1, 0},	{41, 12, 3, 0},	  {41, 77, 4, 0},
	    {41, 900, 7, 0}, {41, 5000, 10, 0}, {42, 2, 2, 0},
	};
	expect(&s, want, sizeof(want) / sizeof(*want));
	count_snapshot_free(&s);
	/* a count whose key was never written (the runtime never leaves one):
	 * dropped */
	c1[4] = 0;
	assert_int_equal(count_snapshot_read(getpid(), A(&head), &s), 0);
	assert_int_equal(s.n, 6);
	count_snapshot_free(&s);
	layout();
}

/* A sparse array read through the process's pagemap (rt_count_pages.h). */
#define SPARSE_SLOTS (UINT64_C(1) << 25)

static void test_sparse_array(void **state)
{
	(void)state;
	static uint64_t sfirst[3] = {0, SPARSE_SLOTS - 5, SPARSE_SLOTS};
	static struct wpp_count_desc sdesc;
	static struct wpp_count_array_ref sref;
	static struct wpp_count_block sb;
	static uint64_t shead;
	uint64_t bytes = SPARSE_SLOTS * 8, seed = 0x1234567;
	uint64_t *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(base != MAP_FAILED);
	madvise(base, bytes, MADV_NOHUGEPAGE);
	enum { N = 100 };
	uint64_t slots[N + 1];
	for (int i = 0; i < N; i++) {
		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		slots[i] = seed % (SPARSE_SLOTS - 5);
		base[slots[i]] += 1 + (uint64_t)i;
	}
	slots[N] = SPARSE_SLOTS - 1; /* f1's last path */
	base[slots[N]] = 3;
	uint64_t total = 0;
	sdesc = (struct wpp_count_desc){WPP_ABI_VERSION, 2, SPARSE_SLOTS, &fid_base, sfirst, NULL,
					NULL, NULL};
	sref = (struct wpp_count_array_ref){A(&sdesc), 0, A(base)};
	sb = (struct wpp_count_block){0, WPP_COUNT_LIVE, 0, A(&sref), 1, 1, 0, 0, 0, 0, 0, 0};
	shead = A(&sb);
	uint64_t before = resident_pages(base, bytes);

	struct count_snapshot s;
	assert_int_equal(count_snapshot_read(getpid(), A(&shead), &s), 0);
	assert_int_equal(resident_pages(base, bytes), before);
	/* every nonzero counter, as (fid, path, count), sorted */
	size_t want = 0;
	for (size_t i = 0; i < s.n; i++) {
		uint64_t slot = s.s[i].fid == 40 ? s.s[i].id : SPARSE_SLOTS - 5 + s.s[i].id;
		assert_true(s.s[i].fid == 40 || s.s[i].fid == 41);
		assert_int_equal(s.s[i].count, base[slot]);
		total += s.s[i].count;
	}
	uint64_t sum = 0;
	for (uint64_t k = 0; k <= N; k++) {
		int seen = 0;
		for (uint64_t j = 0; j < k; j++)
			seen |= slots[j] == slots[k];
		if (!seen) {
			want++;
			sum += base[slots[k]];
		}
	}
	assert_int_equal(s.n, want);
	assert_int_equal(total, sum);
	assert_int_equal(s.s[s.n - 1].fid, 41);
	assert_int_equal(s.s[s.n - 1].id, 4);
	count_snapshot_free(&s);
	munmap(base, bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sums_threads), cmocka_unit_test(test_threads_and_drains),
	    cmocka_unit_test(test_deltas),	 cmocka_unit_test(test_hostile),
	    cmocka_unit_test(test_ppp_slots),	 cmocka_unit_test(test_sparse_array),
	    cmocka_unit_test(test_cached_pairs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
