/* SPDX-License-Identifier: MIT */
/*
 * test_path_tally.c — live path counts (user/collect/path_tally.c) against
 * what a simulated thread really executed.
 *
 * The simulator plays the runtime (docs/runtime.md): levels with buffers
 * of a few words, seqs assigned when a buffer opens and shared by every
 * level, signal handlers nested up to 4 deep that name the interrupted
 * level's batch (numbered on demand, then published even if empty) and
 * its cursor, handlers that fill several buffers, REPEAT words written
 * after batch boundaries and after handlers ran, wide records, zero and
 * PAD words; it hands the batches over in the order it publishes them
 * (children before parents), and counts every path execution as it
 * writes it.  Those counts are the reference: the tally must equal them
 * exactly, with nothing unattributable.  Then hand-made cases: loss,
 * salvaged copies, take, thread exit, images.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "collect/path_tally.h"
#include "wpp/trace_abi.h"

static uint32_t rnd(unsigned *s, uint32_t n)
{
	*s = *s * 1103515245u + 12345u;
	return (*s >> 8) % n;
}

/* ---- what really ran ---- */

struct truth {
	struct path_tally_entry e[4096];
	size_t n;
};

static void ran(struct truth *t, uint32_t fid, uint64_t id, uint64_t times)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->e[i].fid == fid && t->e[i].id == id) {
			t->e[i].count += times;
			return;
		}
	assert_true(t->n < 4096);
	t->e[t->n++] = (struct path_tally_entry){1, fid, id, times};
}

static int by_key(const void *x, const void *y)
{
	const struct path_tally_entry *a = x, *b = y;
	if (a->fid != b->fid)
		return a->fid < b->fid ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

/* ---- the simulated runtime ---- */

#define MAX_LEVELS  5
#define MAX_BATCHES 4096

struct pub {
	struct wpp_chunk_batch h;
	uint64_t *words;
};

struct level {
	uint64_t seq; /* 0: in scratch (no buffer open) */
	uint64_t words[24];
	uint32_t n, cap;
	uint64_t parent_seq;
	uint32_t parent_off;
	int has_last; /* a record was written on this level: REPEAT may follow */
	uint32_t last_fid;
	uint64_t last_id;
};

struct sim {
	unsigned s;
	uint64_t seq;
	struct level lv[MAX_LEVELS];
	int depth;
	struct pub pubs[MAX_BATCHES];
	size_t npubs;
	struct truth truth;
};

static void publish(struct sim *m, int d)
{
	struct level *l = &m->lv[d];
	struct pub *p = &m->pubs[m->npubs++];
	assert_true(m->npubs < MAX_BATCHES);
	p->h = (struct wpp_chunk_batch){.pid = 7,
					.tid = 8,
					.seq = l->seq,
					.parent_seq = d ? l->parent_seq : 0,
					.parent_off = d ? l->parent_off : 0,
					.flags = d ? WPP_BATCH_SIGNAL : 0,
					.nwords = l->n};
	p->words = malloc((l->n ? l->n : 1) * 8);
	memcpy(p->words, l->words, l->n * 8);
	l->seq = 0; /* back to scratch: the next word opens a buffer */
	l->n = 0;
}

/* Append k (1 or 2) words to the current level, opening its buffer if it
 * is in scratch, publishing it when full (a pair never straddles: slack). */
static void put(struct sim *m, const uint64_t *w, uint32_t k)
{
	struct level *l = &m->lv[m->depth];
	if (!l->seq)
		l->seq = ++m->seq;
	memcpy(l->words + l->n, w, k * 8);
	l->n += k;
	if (l->n >= l->cap)
		publish(m, m->depth);
}

static void step(struct sim *m)
{
	struct level *l = &m->lv[m->depth];
	uint32_t r = rnd(&m->s, 100);

	if (r < 45) { /* a narrow record */
		uint32_t fid = 1 + rnd(&m->s, 4);
		uint64_t id = rnd(&m->s, 6), w = wpp_make_word(fid, id);
		put(m, &w, 1);
		ran(&m->truth, fid, id, 1);
		l->has_last = 1, l->last_fid = fid, l->last_id = id;
	} else if (r < 52) { /* a wide record */
		uint32_t fid = 5 + rnd(&m->s, 2);
		uint64_t id = (uint64_t)rnd(&m->s, 3) << 45 | rnd(&m->s, 4);
		uint64_t w[2] = {wpp_make_ctrl(WPP_CTRL_WIDE_PATH, fid), WPP_WIDE_ID_MARK | id};
		put(m, w, 2);
		ran(&m->truth, fid, id, 1);
		l->has_last = 1, l->last_fid = fid, l->last_id = id;
	} else if (r < 70) { /* the last record's path again, n more times */
		if (!l->has_last)
			return;
		uint32_t n = 1 + rnd(&m->s, 1000);
		uint64_t w = wpp_make_ctrl(WPP_CTRL_REPEAT, n);
		put(m, &w, 1);
		ran(&m->truth, l->last_fid, l->last_id, n);
	} else if (r < 74) { /* filler the readers skip */
		uint64_t w = rnd(&m->s, 2) ? 0 : wpp_make_ctrl(WPP_CTRL_PAD, 0);
		put(m, &w, 1);
	} else if (r < 84) { /* a signal: a handler runs on the next level */
		if (m->depth + 1 >= MAX_LEVELS)
			return;
		if (!l->seq)
			l->seq = ++m->seq; /* numbered on demand as the parent */
		struct level *h = &m->lv[m->depth + 1];
		*h = (struct level){
		    .cap = 2 + rnd(&m->s, 10), .parent_seq = l->seq, .parent_off = l->n};
		m->depth++;
	} else if (r < 94) { /* the handler returns */
		if (!m->depth)
			return;
		if (l->seq)
			publish(m, m->depth); /* what it recorded, or empty as a parent */
		m->depth--;
	}
}

static void simulate(struct sim *m, unsigned seed, int steps)
{
	memset(m, 0, sizeof(*m));
	m->s = seed;
	m->lv[0].cap = 3 + rnd(&m->s, 20);
	for (int i = 0; i < steps && m->npubs < MAX_BATCHES - 16; i++)
		step(m);
	while (m->depth) {
		if (m->lv[m->depth].seq)
			publish(m, m->depth);
		m->depth--;
	}
	if (m->lv[0].seq)
		publish(m, 0);
}

static void sim_free(struct sim *m)
{
	for (size_t i = 0; i < m->npubs; i++)
		free(m->pubs[i].words);
}

static void test_random_threads(void **state)
{
	(void)state;
	struct sim *m = malloc(sizeof(*m));
	assert_non_null(m);
	for (unsigned seed = 1; seed <= 300; seed++) {
		simulate(m, seed, 50 + (int)(seed % 7) * 300);
		struct path_tally *t = path_tally_new();
		assert_non_null(t);
		/* taken at random moments: the sum over takes is the run */
		struct truth got = {0};
		unsigned s = seed * 7919u;
		for (size_t i = 0; i <= m->npubs; i++) {
			if (i < m->npubs)
				assert_int_equal(
				    path_tally_batch(t, &m->pubs[i].h, m->pubs[i].words, 1), 0);
			if (i < m->npubs && rnd(&s, 10))
				continue;
			struct path_tally_entry *e;
			size_t n;
			assert_int_equal(path_tally_take(t, &e, &n), 0);
			for (size_t k = 0; k < n; k++) {
				assert_int_equal(e[k].image, 1);
				assert_true(e[k].count > 0);
				ran(&got, e[k].fid, e[k].id, e[k].count);
			}
			free(e);
		}
		struct path_tally_stats st;
		path_tally_stats(t, &st);
		assert_int_equal(st.unattributable, 0);
		assert_int_equal(st.malformed, 0);
		assert_int_equal(st.duplicates, 0);
		assert_int_equal(st.batches, m->npubs);
		qsort(got.e, got.n, sizeof(got.e[0]), by_key);
		qsort(m->truth.e, m->truth.n, sizeof(m->truth.e[0]), by_key);
		assert_int_equal(got.n, m->truth.n);
		for (size_t k = 0; k < got.n; k++) {
			assert_int_equal(got.e[k].fid, m->truth.e[k].fid);
			assert_int_equal(got.e[k].id, m->truth.e[k].id);
			assert_int_equal(got.e[k].count, m->truth.e[k].count);
		}
		path_tally_free(t);
		sim_free(m);
	}
	free(m);
}

/* ---- hand-made cases ---- */

#define A      wpp_make_word(1, 4)
#define B      wpp_make_word(2, 9)
#define REP(n) wpp_make_ctrl(WPP_CTRL_REPEAT, n)

static struct wpp_chunk_batch head(uint64_t seq, uint32_t flags, uint32_t n)
{
	return (struct wpp_chunk_batch){
	    .pid = 7, .tid = 8, .seq = seq, .flags = flags, .nwords = n};
}

/* A main batch of one word (what the cases mostly feed). */
static const struct wpp_chunk_batch *main1(uint64_t seq)
{
	static struct wpp_chunk_batch h;
	h = head(seq, 0, 1);
	return &h;
}

/* The count of (image, fid, id) taken now (0 if absent). */
static uint64_t take_one(struct path_tally *t, uint32_t image, uint32_t fid, uint64_t id)
{
	struct path_tally_entry *e;
	size_t n;
	uint64_t c = 0;
	assert_int_equal(path_tally_take(t, &e, &n), 0);
	for (size_t k = 0; k < n; k++) {
		if (k) /* sorted by (image, fid, id), one entry each */
			assert_true(e[k - 1].image < e[k].image ||
				    (e[k - 1].image == e[k].image && by_key(&e[k - 1], &e[k]) < 0));
		if (e[k].image == image && e[k].fid == fid && e[k].id == id)
			c = e[k].count;
	}
	free(e);
	return c;
}

static void test_cases(void **state)
{
	(void)state;
	struct path_tally *t = path_tally_new();
	struct path_tally_stats st;
	uint64_t w1[] = {A, REP(2)}, w2[] = {REP(3)}, w3[] = {B};
	struct wpp_chunk_batch h1 = head(1, 0, 2), h2 = head(2, 0, 1), h3 = head(3, 0, 1);

	/* A take empties the counts, not what a REPEAT repeats. */
	assert_int_equal(path_tally_batch(t, &h1, w1, 1), 0);
	assert_int_equal(take_one(t, 1, 1, 4), 3);
	assert_int_equal(path_tally_batch(t, &h2, w2, 1), 0);
	assert_int_equal(take_one(t, 1, 1, 4), 3);

	/* After a gap a REPEAT has nothing to repeat. */
	path_tally_gap(t, 7, 8);
	assert_int_equal(path_tally_batch(t, main1(4), w2, 1), 0);
	assert_int_equal(take_one(t, 1, 1, 4), 0);
	path_tally_stats(t, &st);
	assert_int_equal(st.unattributable, 3);

	/* A salvaged copy of a published batch counts once. */
	assert_int_equal(path_tally_batch(t, &h3, w3, 1), 0);
	struct wpp_chunk_batch copy = h3;
	copy.flags = WPP_BATCH_SALVAGED;
	assert_int_equal(path_tally_batch(t, &copy, w3, 1), 0);
	assert_int_equal(take_one(t, 1, 2, 9), 1);
	path_tally_stats(t, &st);
	assert_int_equal(st.duplicates, 1);

	/* Two images keep their own counts of one (fid, id). */
	struct wpp_chunk_batch other = head(1, 0, 1);
	other.pid = 9;
	assert_int_equal(path_tally_batch(t, &other, w3, 2), 0);
	assert_int_equal(path_tally_batch(t, main1(5), w3, 1), 0);
	assert_int_equal(path_tally_batch(t, main1(12), w3, 1), 0);
	struct path_tally_entry *e;
	size_t n;
	assert_int_equal(path_tally_take(t, &e, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(e[0].image, 1);
	assert_int_equal(e[0].count, 2);
	assert_int_equal(e[1].image, 2);
	assert_int_equal(e[1].count, 1);
	free(e);

	/* A handler's REPEAT repeats its own level's record, never the
	 * interrupted one's, and its second buffer continues its first. */
	uint64_t m6[] = {B}, s7[] = {A}, s8[] = {REP(5)}, m6b[] = {REP(2)};
	struct wpp_chunk_batch h7 = head(7, WPP_BATCH_SIGNAL, 1), h8 = h7;
	h7.parent_seq = h8.parent_seq = 6;
	h8.seq = 8;
	assert_int_equal(path_tally_batch(t, &h7, s7, 1), 0);
	assert_int_equal(path_tally_batch(t, &h8, s8, 1), 0);
	assert_int_equal(path_tally_batch(t, main1(6), m6, 1), 0);
	assert_int_equal(path_tally_batch(t, main1(9), m6b, 1), 0);
	/* a handler at another point starts with nothing to repeat */
	struct wpp_chunk_batch h10 = head(10, WPP_BATCH_SIGNAL, 1);
	h10.parent_seq = 9;
	assert_int_equal(path_tally_batch(t, &h10, s8, 1), 0);
	assert_int_equal(path_tally_take(t, &e, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(e[0].fid, 1);
	assert_int_equal(e[0].count, 6);
	assert_int_equal(e[1].fid, 2);
	assert_int_equal(e[1].count, 3);
	free(e);
	path_tally_stats(t, &st);
	assert_int_equal(st.unattributable, 3 + 5);

	/* A thread that ended takes its levels with it. */
	path_tally_thread_exit(t, 7, 8, 0);
	assert_int_equal(path_tally_batch(t, main1(11), w2, 1), 0);
	path_tally_stats(t, &st);
	assert_int_equal(st.unattributable, 3 + 5 + 3);
	assert_int_equal(path_tally_take(t, &e, &n), 0);
	assert_int_equal(n, 0);
	assert_null(e);
	path_tally_free(t);
}

/* Wide path ids differ in high bits only: they must spread over the
 * table like any other (a hash that kept only low bits clustered them,
 * and counting them went quadratic). */
static void test_wide_ids_spread(void **state)
{
	(void)state;
	enum { N = 50000 };
	struct path_tally *t = path_tally_new();
	uint64_t *w = malloc(2 * N * sizeof(*w));
	assert_non_null(w);
	for (uint64_t k = 0; k < N; k++) {
		w[2 * k] = wpp_make_ctrl(WPP_CTRL_WIDE_PATH, 3);
		w[2 * k + 1] = WPP_WIDE_ID_MARK | k << 45;
	}
	struct wpp_chunk_batch h = head(1, 0, 2 * N);
	assert_int_equal(path_tally_batch(t, &h, w, 1), 0);
	struct path_tally_stats st;
	path_tally_stats(t, &st);
	assert_int_equal(st.records, N);
	assert_true(st.probes < 4 * (uint64_t)N);
	struct path_tally_entry *e;
	size_t n;
	assert_int_equal(path_tally_take(t, &e, &n), 0);
	assert_int_equal(n, N);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(e[i].id, (uint64_t)i << 45);
		assert_int_equal(e[i].count, 1);
	}
	free(e);
	free(w);
	path_tally_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_threads),
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_wide_ids_spread),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
