/* SPDX-License-Identifier: MIT */
/*
 * test_worker — grammars built on the collector's worker thread
 * (wpp_online_add_worker) against the same consumer run synchronously.
 *
 * Several threads' batches arrive interleaved, out of order within a
 * thread, with thread exits in the middle; both set-ups write their
 * GRAMMAR chunks to a file.  The worker's chunks must be byte-identical to
 * the synchronous ones (same events, same order, deterministic builder).
 * With a small backlog limit the worker gives up at a timing-dependent
 * point; whatever it still stores must then be a complete thread's chunk,
 * byte-identical to the synchronous one, never a partial grammar.  With the
 * worker held still while one thread overflows the backlog, only that
 * thread is given up: another thread's grammar is still stored, complete.
 * Fed as a compressing recorder feeds it — BATCH_Z chunks of up to three
 * consecutive batches of a thread, some of them empty, decoded by the
 * worker — the worker's chunks must again be the synchronous ones.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "collect/online.h"
#include "collect/sequitur_online.h"
#include "wpp/trace_abi.h"
#include "common/wppfile.h"
#include "common/wppfile_batch.h"

#define NTHREADS 6
#define MAXB	 40

struct tb {
	struct wpp_chunk_batch h;
	uint64_t words[256];
};

struct workload {
	struct tb b[NTHREADS * MAXB];
	size_t nb;
	size_t exit_after[NTHREADS]; /* event index after which the thread exits */
	size_t order[NTHREADS * MAXB];
};

static unsigned rnd(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

/* Loops over a few path ids with random trip counts: grammar-friendly but
 * not trivial. */
static void make_workload(struct workload *wl, unsigned seed)
{
	unsigned s = seed;
	size_t nb_of[NTHREADS], first[NTHREADS];

	wl->nb = 0;
	for (uint32_t t = 0; t < NTHREADS; t++) {
		nb_of[t] = 1 + rnd(&s) % MAXB;
		first[t] = wl->nb;
		for (size_t k = 0; k < nb_of[t]; k++) {
			struct tb *b = &wl->b[wl->nb++];
			uint32_t n = rnd(&s) % 9 == 0 ? 0 : 1 + rnd(&s) % 256;
			memset(&b->h, 0, sizeof(b->h));
			b->h.pid = 100;
			b->h.tid = 200 + t;
			b->h.seq = k + 1;
			b->h.nwords = n;
			for (uint32_t i = 0; i < n; i++)
				b->words[i] = wpp_make_word(1 + rnd(&s) % 3, rnd(&s) % (2 + t));
		}
	}
	/* Arrival: a random interleaving, each thread's batches slightly
	 * shuffled among themselves (the assembler reorders them). */
	for (size_t i = 0; i < wl->nb; i++)
		wl->order[i] = i;
	for (size_t i = wl->nb; i > 1; i--) {
		size_t j = rnd(&s) % i;
		size_t tmp = wl->order[i - 1];
		wl->order[i - 1] = wl->order[j];
		wl->order[j] = tmp;
	}
	for (uint32_t t = 0; t < NTHREADS; t++) {
		size_t last = 0;
		for (size_t i = 0; i < wl->nb; i++)
			if (wl->order[i] >= first[t] && wl->order[i] < first[t] + nb_of[t])
				last = i;
		/* Half the threads exit as soon as their last batch is in,
		 * the others only at the end. */
		wl->exit_after[t] = (t % 2) ? last : SIZE_MAX;
	}
}

/* As record_sink_flush(): write the held group (to a scratch file) and
 * hand the worker what was written. */
static void flush_group(struct wpp_batch_group *g, struct wpp_writer *scratch,
			struct wpp_online *o)
{
	const void *head, *packed;
	uint32_t head_len, packed_len;
	uint64_t bytes = 0;

	assert_int_equal(wpp_batch_group_write(g, scratch, &bytes), 0);
	wpp_batch_group_last(g, &head, &head_len, &packed, &packed_len);
	if (head_len)
		wpp_online_worker_packed(o, head, head_len, packed, packed_len);
}

/* Feed the workload; synchronous (max_backlog 0) or on the worker, fed raw
 * words or (packed) compressed chunks.  Returns what
 * wpp_online_worker_status says (0 without a worker). */
static int record_as(const struct workload *wl, const char *path, uint64_t max_backlog,
		     int packed)
{
	struct wpp_grammar_cfg gcfg = {.algo = SEQ_LOOKAHEAD};
	struct wpp_online_consumer gc;
	struct wpp_writer *w = wppw_open(path);
	char scratch_path[160];
	struct wpp_writer *scratch = NULL;
	struct wpp_batch_group *g = NULL;
	struct wpp_online *o;
	uint64_t peak = 0;
	int status;

	assert_non_null(w);
	if (max_backlog) {
		o = wpp_online_new(NULL, 0);
		assert_non_null(o);
		gcfg.emit_to = o;
		gc = wpp_grammar_consumer(&gcfg);
		assert_int_equal(wpp_online_add_worker(o, &gc, 1, max_backlog), 0);
	} else {
		gc = wpp_grammar_consumer(&gcfg);
		o = wpp_online_new(&gc, 1);
		assert_non_null(o);
	}
	if (packed) {
		snprintf(scratch_path, sizeof(scratch_path), "%s.scratch", path);
		scratch = wppw_open(scratch_path);
		g = wpp_batch_group_new(1);
		assert_non_null(scratch);
		assert_non_null(g);
		wpp_online_set_worker_packed(o);
	}
	for (size_t i = 0; i < wl->nb; i++) {
		const struct tb *b = &wl->b[wl->order[i]];
		wpp_online_batch(o, &b->h, b->words);
		if (packed) {
			if (!wpp_batch_group_fits(g, &b->h))
				flush_group(g, scratch, o);
			assert_int_equal(wpp_batch_group_add(g, &b->h, b->words), 0);
			if (i % 3 == 2)
				flush_group(g, scratch, o);
		}
		for (uint32_t t = 0; t < NTHREADS; t++)
			if (wl->exit_after[t] == i) {
				if (packed)
					flush_group(g, scratch, o);
				assert_int_equal(
				    wpp_online_thread_exit(
					o, &(struct wpp_thread_key){100, 200 + t, 0}, w),
				    0);
			}
	}
	if (packed) {
		flush_group(g, scratch, o);
		wpp_batch_group_free(g);
		wppw_abort(scratch);
		unlink(scratch_path);
	}
	assert_int_equal(wpp_online_finish(o, w), 0);
	status = wpp_online_worker_status(o, &peak);
	wpp_online_free(o);
	assert_int_equal(gcfg.failed, 0);
	assert_int_equal(wppw_close(w, &(struct wpp_chunk_end){0}), 0);
	return status;
}

static int record(const struct workload *wl, const char *path, uint64_t max_backlog)
{
	return record_as(wl, path, max_backlog, 0);
}

struct chunks {
	size_t n;
	uint32_t tid[NTHREADS + 1];
	size_t len[NTHREADS + 1];
	uint8_t *bytes[NTHREADS + 1];
};

static void read_grammars(const char *path, struct chunks *c)
{
	struct wpp_reader *r = wppr_open(path);
	struct wpp_chunk ch;

	assert_non_null(r);
	memset(c, 0, sizeof(*c));
	while (wppr_next(r, &ch)) {
		if (ch.type != WPP_CHUNK_GRAMMAR)
			continue;
		assert_true(c->n < NTHREADS);
		struct wpp_chunk_grammar h;
		memcpy(&h, ch.payload, sizeof(h));
		c->tid[c->n] = h.tid;
		c->len[c->n] = ch.length;
		c->bytes[c->n] = malloc(ch.length);
		memcpy(c->bytes[c->n], ch.payload, ch.length);
		c->n++;
	}
	assert_null(wppr_status(r));
	wppr_close(r);
}

static const uint8_t *find(const struct chunks *c, uint32_t tid, size_t *len)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->tid[i] == tid) {
			*len = c->len[i];
			return c->bytes[i];
		}
	return NULL;
}

static void free_chunks(struct chunks *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->bytes[i]);
}

/* Every chunk in got must equal want's chunk for the same thread. */
static void assert_subset(const struct chunks *want, const struct chunks *got, unsigned seed)
{
	for (size_t i = 0; i < got->n; i++) {
		size_t wlen = 0;
		const uint8_t *wb = find(want, got->tid[i], &wlen);
		if (!wb || wlen != got->len[i] || memcmp(wb, got->bytes[i], wlen))
			fail_msg("seed %u: worker chunk of tid %u differs from the synchronous one",
				 seed, got->tid[i]);
	}
}

static void tmp_name(char *buf, size_t len, const char *what)
{
	snprintf(buf, len, "/tmp/test_worker.%d.%s.wpp", (int)getpid(), what);
}

/* A worker with room for the whole backlog, fed raw words or compressed
 * chunks (packed), gives every thread the grammar the inline builder does. */
static void check_worker_equals_sync(int packed)
{
	struct workload *wl = malloc(sizeof(*wl));
	char a[128], b[128];

	tmp_name(a, sizeof(a), "sync");
	tmp_name(b, sizeof(b), packed ? "packed" : "worker");
	for (unsigned seed = 1; seed <= 24; seed++) {
		struct chunks want, got;
		make_workload(wl, seed);
		assert_int_equal(record(wl, a, 0), 0);
		assert_int_equal(record_as(wl, b, UINT64_C(64) << 20, packed), 0);
		read_grammars(a, &want);
		read_grammars(b, &got);
		assert_int_equal(want.n, NTHREADS);
		assert_int_equal(got.n, want.n);
		assert_subset(&want, &got, seed);
		free_chunks(&want);
		free_chunks(&got);
	}
	unlink(a);
	unlink(b);
	free(wl);
}

static void test_worker_equals_sync(void **state)
{
	(void)state;
	check_worker_equals_sync(0);
}

static void test_worker_fed_packed_equals_sync(void **state)
{
	(void)state;
	check_worker_equals_sync(1);
}

static void test_worker_gives_up_cleanly(void **state)
{
	(void)state;
	struct workload *wl = malloc(sizeof(*wl));
	char a[128], b[128];
	int gave_up = 0;

	tmp_name(a, sizeof(a), "sync");
	tmp_name(b, sizeof(b), "worker");
	for (unsigned seed = 100; seed < 124; seed++) {
		struct chunks want, got;
		make_workload(wl, seed);
		assert_int_equal(record(wl, a, 0), 0);
		/* A backlog of a few batches: whether and where the worker
		 * gives up depends on scheduling; correctness must not. */
		int status = record(wl, b, 1 + (seed % 8) * 2048);
		assert_true(status == 0 || status == 1);
		gave_up += status;
		read_grammars(a, &want);
		read_grammars(b, &got);
		assert_subset(&want, &got, seed);
		if (status == 0)
			assert_int_equal(got.n, want.n);
		free_chunks(&want);
		free_chunks(&got);
	}
	/* The smallest limit (1 byte) refuses the very first batch. */
	assert_true(gave_up >= 1);
	unlink(a);
	unlink(b);
	free(wl);
}

/* ---- one thread overflows the backlog while the worker is held still ---- */

static const struct wpp_online_consumer *gated_inner;
static int gate_open; /* the worker may consume words */
static uint32_t closed_tid[8], opened_tid[8];
static int nclosed, nopened;

static void wait_for_gate(void)
{
	while (!__atomic_load_n(&gate_open, __ATOMIC_ACQUIRE))
		usleep(1000);
}

/* Record tid in list (the worker writes, the test thread reads). */
static void note_tid(uint32_t *list, int *n, uint32_t tid)
{
	int k = __atomic_load_n(n, __ATOMIC_ACQUIRE);
	list[k] = tid;
	__atomic_store_n(n, k + 1, __ATOMIC_RELEASE);
}

static int noted(const uint32_t *list, const int *n, uint32_t tid)
{
	for (int i = 0; i < __atomic_load_n(n, __ATOMIC_ACQUIRE); i++)
		if (list[i] == tid)
			return 1;
	return 0;
}

static void *gated_open(void *cfg, const struct wpp_thread_key *key)
{
	(void)cfg;
	note_tid(opened_tid, &nopened, key->tid);
	return gated_inner->thread_open(gated_inner->cfg, key);
}

static void gated_words_at(void *st, const uint64_t *w, size_t n, uint32_t depth)
{
	wait_for_gate();
	gated_inner->thread_words_at(st, w, n, depth);
}

static void gated_words(void *st, const uint64_t *w, size_t n)
{
	wait_for_gate();
	gated_inner->thread_words(st, w, n);
}

static void gated_gap(void *st, uint64_t lost)
{
	gated_inner->thread_gap(st, lost);
}

static int gated_close(void *st, struct wpp_writer *w, const struct wpp_thread_key *key)
{
	note_tid(closed_tid, &nclosed, key->tid);
	return gated_inner->thread_close(st, w, key);
}

static int closed(uint32_t tid)
{
	return noted(closed_tid, &nclosed, tid);
}

#define BIG_TID	  200
#define SMALL_TID 201

static struct wpp_chunk_batch make_batch(uint32_t tid, uint64_t seq, uint64_t *words, uint32_t n,
					 unsigned *s)
{
	for (uint32_t i = 0; i < n; i++)
		words[i] = wpp_make_word(1 + rnd(s) % 3, rnd(s) % 4);
	return (struct wpp_chunk_batch){.pid = 100, .tid = tid, .seq = seq, .nwords = n};
}

/*
 * The small thread sends two batches, then the big one sends four times
 * the backlog while the worker consumes nothing: the big thread's events
 * overflow and it is dropped.  The worker, held inside the small thread's
 * first batch, must skip every queued batch of the big thread (it never
 * opens that thread) and close nothing before the drop marker.  Once it
 * has drained up to the drop, the small thread's remaining batches fit
 * again: its grammar must be stored, equal to the synchronous one, and the
 * big thread's must not be.  gated != 0: through the gate, on a
 * worker with a backlog of 64 KiB; else synchronously.  Returns the
 * worker status.
 */
static int record_overflow(const char *path, int gated)
{
	struct wpp_grammar_cfg gcfg = {.algo = SEQ_LOOKAHEAD};
	struct wpp_online_consumer inner, gate;
	struct wpp_writer *w = wppw_open(path);
	struct wpp_online *o;
	static uint64_t words[256];
	unsigned s_small = 5, s_big = 9;
	uint64_t seq_small = 1, peak = 0;
	int status;

	assert_non_null(w);
	if (gated) {
		o = wpp_online_new(NULL, 0);
		assert_non_null(o);
		gcfg.emit_to = o;
		inner = wpp_grammar_consumer(&gcfg);
		gated_inner = &inner;
		gate = (struct wpp_online_consumer){
		    .name = "gated",
		    .thread_open = gated_open,
		    .thread_words = gated_words,
		    .thread_gap = gated_gap,
		    .thread_close = gated_close,
		    .thread_words_at = inner.thread_words_at ? gated_words_at : NULL};
		__atomic_store_n(&gate_open, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&nclosed, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&nopened, 0, __ATOMIC_RELEASE);
		assert_int_equal(wpp_online_add_worker(o, &gate, 1, UINT64_C(64) << 10), 0);
	} else {
		inner = wpp_grammar_consumer(&gcfg);
		o = wpp_online_new(&inner, 1);
		assert_non_null(o);
	}
	for (; seq_small <= 2; seq_small++) {
		struct wpp_chunk_batch b = make_batch(SMALL_TID, seq_small, words, 64, &s_small);
		wpp_online_batch(o, &b, words);
	}
	for (uint64_t seq = 1; seq <= 128; seq++) { /* 256 KiB of words */
		struct wpp_chunk_batch b = make_batch(BIG_TID, seq, words, 256, &s_big);
		wpp_online_batch(o, &b, words);
	}
	if (gated) {
		uint64_t skipped = 0, drops = 0;
		__atomic_store_n(&gate_open, 1, __ATOMIC_RELEASE);
		struct timespec t0, t;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (wpp_online_worker_progress(o, &skipped, &drops), drops < 1) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec > 60)
				fail_msg("the worker never closed the dropped thread");
			usleep(1000);
		}
		/* Everything queued of the big thread (most of 64 KiB of
		 * 2 KiB batches) was skipped, not replayed. */
		assert_true(skipped >= 16);
		assert_false(noted(opened_tid, &nopened, BIG_TID));
		assert_false(closed(SMALL_TID));
	}
	for (; seq_small <= 6; seq_small++) {
		struct wpp_chunk_batch b = make_batch(SMALL_TID, seq_small, words, 64, &s_small);
		wpp_online_batch(o, &b, words);
	}
	/* The dropped thread exits; the small one is still open at the end
	 * (closed by finish, which must not drop it either). */
	assert_int_equal(wpp_online_thread_exit(o, &(struct wpp_thread_key){100, BIG_TID, 0}, w),
			 0);
	assert_int_equal(wpp_online_finish(o, w), 0);
	status = wpp_online_worker_status(o, &peak);
	wpp_online_free(o);
	assert_int_equal(gcfg.failed, 0);
	assert_int_equal(wppw_close(w, &(struct wpp_chunk_end){0}), 0);
	return status;
}

static void test_worker_drops_only_the_overflowing_thread(void **state)
{
	(void)state;
	char a[128], b[128];
	struct chunks want, got;
	size_t wlen, glen;

	tmp_name(a, sizeof(a), "sync");
	tmp_name(b, sizeof(b), "worker");
	assert_int_equal(record_overflow(a, 0), 0);
	assert_int_equal(record_overflow(b, 1), 1);
	read_grammars(a, &want);
	read_grammars(b, &got);
	assert_int_equal(want.n, 2);
	assert_int_equal(got.n, 1);
	assert_null(find(&got, BIG_TID, &glen));
	const uint8_t *gb = find(&got, SMALL_TID, &glen), *wb = find(&want, SMALL_TID, &wlen);
	assert_non_null(gb);
	assert_non_null(wb);
	assert_int_equal(glen, wlen);
	assert_memory_equal(gb, wb, wlen);
	free_chunks(&want);
	free_chunks(&got);
	unlink(a);
	unlink(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_worker_equals_sync),
	    cmocka_unit_test(test_worker_fed_packed_equals_sync),
	    cmocka_unit_test(test_worker_gives_up_cleanly),
	    cmocka_unit_test(test_worker_drops_only_the_overflowing_thread),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
