/* SPDX-License-Identifier: MIT */
/*
 * test_count_cache.c — a hashed function's path cache (trace_abi.h, "A
 * hashed function's path cache"; rt_count_table.h), under ASan/UBSan,
 * against a brute-force tally kept here.  The path end the pass emits is
 * written out in C (path_end: the pair the id's multiplicative hash names,
 * compare, add; else the runtime's miss: claim or the hash), and:
 *  - claiming: a free pair is claimed once, a held one is left to its
 *    path, the holder keeps counting there;
 *  - exactness: skewed random paths (narrow and wide ids) through caches
 *    of 2 pairs (nearly everything conflicts and goes to the hash) and of
 *    4096, with drains in between: array drain plus hash drain give every
 *    path's count once, in the right function;
 *    keys stay after a drain, counts go;
 *  - threads: each thread counts in its own array and hash at once, the
 *    drains after the join give each thread's tally;
 *  - fork: the child's reset (MADV_DONTNEED, as rt_count_fork_child does)
 *    leaves no inherited key or count, the child's new paths claim pairs
 *    again, and the parent's counts are untouched.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runtime/rt_count_table.h"

/* f0: an array of 3 paths; f1: a cache (keys from slot 3, then their
 * counts); f2: an array of 5 paths after it. */
struct tu {
	uint64_t first[4];
	uint64_t fid_base;
	uint8_t cached[3];
	struct wpp_count_desc desc;
	uint32_t log2_pairs;
};

static void tu_init(struct tu *t, uint32_t log2_pairs)
{
	uint64_t pairs = UINT64_C(1) << log2_pairs;
	*t = (struct tu){.first = {0, 3, 3 + 2 * pairs, 3 + 2 * pairs + 5},
			 .fid_base = (uint64_t)11 << WPP_FID_SHIFT,
			 .cached = {0, (uint8_t)log2_pairs, 0},
			 .log2_pairs = log2_pairs};
	t->desc = (struct wpp_count_desc){WPP_COUNT_DESC_CACHED,
					  3,
					  t->first[3],
					  &t->fid_base,
					  t->first,
					  NULL,
					  NULL,
					  t->cached};
}

static uint64_t *map_array(const struct tu *t)
{
	void *p = mmap(NULL, t->desc.nslots * 8, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	return p;
}

/* The code of a cached function's path end (ir_counts.c's
 * __wpp_count_cached, and the runtime's __wpp_count_cache_miss). */
static void path_end(const struct tu *t, uint64_t *base, struct rt_count_table *hash, uint64_t id)
{
	uint64_t key = id + 1, npairs = UINT64_C(1) << t->log2_pairs;
	uint64_t at = t->first[1] + ((key * WPP_COUNT_HASH_MUL) >> (64 - t->log2_pairs));
	if (base[at] == key) {
		base[at + npairs]++;
		return;
	}
	if (!rt_count_cache_claim(&base[at], &base[at + npairs], key))
		assert_int_equal(rt_count_table_add(hash, t->fid_base + ((uint64_t)1 << WPP_FID_SHIFT), id),
				 0);
}

#define NPATHS 3000

struct tally {
	uint64_t id[NPATHS];
	uint64_t want[NPATHS], got[NPATHS];
	uint64_t other;	    /* counts drained for a path of f1 not counted */
	uint64_t elsewhere; /* counts drained for f0 and f2 */
	uint32_t fid;
};

static void add_got(uint64_t fidw, uint64_t id, uint64_t count, void *arg)
{
	struct tally *t = arg;
	assert_true(count >= 1);
	if (wpp_word_fid(fidw) != t->fid) {
		t->elsewhere += count;
		return;
	}
	for (size_t k = 0; k < NPATHS; k++)
		if (t->id[k] == id) {
			t->got[k] += count;
			return;
		}
	t->other += count;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

static void make_paths(struct tally *t, uint64_t seed)
{
	memset(t, 0, sizeof(*t));
	t->fid = 12; /* f1 of the TU registered at 11 */
	for (size_t k = 0; k < NPATHS; k++) {
		/* distinct: the index in the low bits; some ids wide */
		uint64_t r = rnd(&seed);
		t->id[k] = (k % 4 ? r % 100000 : r >> 3) / NPATHS * NPATHS + k;
	}
}

/* n path ends, skewed (a few hot paths take most, as loops do) */
static void run_paths(const struct tu *t, uint64_t *base, struct rt_count_table *hash,
		      struct tally *ta, uint64_t *seed, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t k = i % 8 ? rnd(seed) % 24 : rnd(seed) % NPATHS;
		path_end(t, base, hash, ta->id[k]);
		ta->want[k]++;
	}
}

static void drain_all(const struct tu *t, uint64_t *base, struct rt_count_table *hash,
		      struct tally *ta)
{
	rt_count_array_drain(&t->desc, base, NULL, NULL, add_got, ta);
	rt_count_table_drain(hash, add_got, ta);
}

static void assert_tally(const struct tally *ta)
{
	assert_int_equal(ta->other, 0);
	for (size_t k = 0; k < NPATHS; k++)
		assert_int_equal(ta->got[k], ta->want[k]);
}

static void collect_one(uint64_t fidw, uint64_t id, uint64_t count, void *arg)
{
	uint64_t *got = arg; /* [fid word, id, count] x 8 */
	for (int i = 0; i < 8; i++)
		if (!got[3 * i + 2]) {
			got[3 * i] = fidw, got[3 * i + 1] = id, got[3 * i + 2] = count;
			return;
		}
	fail();
}

/* A PPP function's range: its interval (3 PPP ids naming paths 70, a hole
 * and 12), then its residual paths' cache of 2 pairs. */
static void test_ppp_then_cache(void **state)
{
	(void)state;
	static const uint64_t first[2] = {0, 3 + 4};
	static const uint64_t f0_paths[3] = {70, WPP_PPP_HOLE, 12};
	const uint64_t *const tables[1] = {f0_paths};
	static const uint8_t cached[1] = {1};
	uint64_t fid_base = (uint64_t)5 << WPP_FID_SHIFT;
	struct wpp_count_desc desc = {WPP_COUNT_DESC_CACHED, 1, 7, &fid_base, first, NULL, tables,
				      cached};
	uint64_t base[7] = {0};
	base[0] = 4, base[2] = 2;	   /* paths 70 and 12 */
	base[3] = 1000, base[5] = 9; /* residual path 999, 9 times */
	base[4] = 7;		   /* a claimed key without a count */
	uint64_t got[24] = {0};
	rt_count_array_drain(&desc, base, NULL, NULL, collect_one, got);
	/* the cache first (the range's end), then the interval */
	uint64_t want[9] = {(uint64_t)5 << 40, 999, 9, (uint64_t)5 << 40, 70, 4,
			    (uint64_t)5 << 40, 12, 2};
	for (int i = 0; i < 9; i++)
		assert_int_equal(got[i], want[i]);
	assert_int_equal(got[11], 0);
	assert_int_equal(base[3], 1000); /* keys stay */
	assert_int_equal(base[5] + base[0] + base[2], 0);
	/* a cache larger than the range (no layout of the pass): nothing read */
	static const uint8_t too_big[1] = {3};
	desc.cached = too_big;
	base[0] = 1;
	memset(got, 0, sizeof(got));
	rt_count_array_drain(&desc, base, NULL, NULL, collect_one, got);
	assert_int_equal(got[2], 0);
}

static void test_claim(void **state)
{
	(void)state;
	uint64_t key = 0, count = 0;
	assert_int_equal(rt_count_cache_claim(&key, &count, 8), 1);
	assert_int_equal(key, 8);
	assert_int_equal(count, 1);
	/* held by 8: left alone */
	assert_int_equal(rt_count_cache_claim(&key, &count, 10), 0);
	assert_int_equal(key, 8);
	assert_int_equal(count, 1);
	/* the holder (a handler claimed it between the compare and the call) */
	assert_int_equal(rt_count_cache_claim(&key, &count, 8), 1);
	assert_int_equal(count, 2);
}

static void exact_with(uint32_t log2_pairs)
{
	struct tu t;
	tu_init(&t, log2_pairs);
	uint64_t *base = map_array(&t);
	struct rt_count_table hash = {0};
	static struct tally ta;
	uint64_t seed = 0x9876 + log2_pairs;
	make_paths(&ta, 77);
	/* the neighbours' counts stay theirs */
	base[2] = 5, base[t.first[2] + 4] = 6;
	for (int round = 0; round < 4; round++) {
		run_paths(&t, base, &hash, &ta, &seed, 200000);
		drain_all(&t, base, &hash, &ta);
		assert_tally(&ta);
		assert_int_equal(ta.elsewhere, 11);
		/* a drain takes counts and leaves keys */
		uint64_t keys = 0, npairs = UINT64_C(1) << log2_pairs;
		for (uint64_t s = t.first[1]; s < t.first[1] + npairs; s++) {
			keys += base[s] != 0;
			assert_int_equal(base[s + npairs], 0);
		}
		assert_true(keys >= npairs / 2);
	}
	/* both ways were used: with 2 pairs nearly all went to the hash */
	assert_true(hash.used > (log2_pairs == 1 ? NPATHS / 2 : 0));
	rt_count_table_clear(&hash);
	munmap(base, t.desc.nslots * 8);
}

static void test_exact_small(void **state)
{
	(void)state;
	exact_with(1);
}

static void test_exact_default(void **state)
{
	(void)state;
	exact_with(12);
}

struct worker {
	struct tu *t;
	uint64_t *base;
	struct rt_count_table hash;
	struct tally ta;
	uint64_t seed;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	run_paths(w->t, w->base, &w->hash, &w->ta, &w->seed, 300000);
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	struct tu t;
	tu_init(&t, 4);
	enum { N = 4 };
	static struct worker w[N];
	pthread_t th[N];
	for (int i = 0; i < N; i++) {
		w[i] = (struct worker){.t = &t, .base = map_array(&t), .seed = 1000 + i};
		make_paths(&w[i].ta, 5 + i); /* each thread its own paths */
		assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
	}
	for (int i = 0; i < N; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		drain_all(&t, w[i].base, &w[i].hash, &w[i].ta);
		assert_tally(&w[i].ta);
		rt_count_table_clear(&w[i].hash);
		munmap(w[i].base, t.desc.nslots * 8);
	}
}

static void test_fork(void **state)
{
	(void)state;
	struct tu t;
	tu_init(&t, 3);
	uint64_t *base = map_array(&t);
	struct rt_count_table hash = {0};
	static struct tally ta;
	uint64_t seed = 42;
	make_paths(&ta, 9);
	run_paths(&t, base, &hash, &ta, &seed, 50000);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* rt_count_fork_child: the array handed back, the hash cleared */
		madvise(base, t.desc.nslots * 8, MADV_DONTNEED);
		rt_count_table_clear(&hash);
		for (uint64_t s = 0; s < t.desc.nslots; s++)
			if (base[s])
				_exit(2);
		memset(ta.want, 0, sizeof(ta.want));
		memset(ta.got, 0, sizeof(ta.got));
		run_paths(&t, base, &hash, &ta, &seed, 30000);
		drain_all(&t, base, &hash, &ta);
		int bad = ta.other != 0;
		for (size_t k = 0; k < NPATHS; k++)
			bad |= ta.got[k] != ta.want[k];
		_exit(bad ? 3 : 0);
	}
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	/* the parent's counts are its own, untouched by the child */
	drain_all(&t, base, &hash, &ta);
	assert_tally(&ta);
	rt_count_table_clear(&hash);
	munmap(base, t.desc.nslots * 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_claim),	  cmocka_unit_test(test_exact_small),
	    cmocka_unit_test(test_exact_default), cmocka_unit_test(test_threads),
	    cmocka_unit_test(test_fork),	  cmocka_unit_test(test_ppp_then_cache),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
