/* SPDX-License-Identifier: MIT */
/*
 * test_shm_ring.c — the shared-memory ring protocol, producer and collector
 * in one process (built with ASan/UBSan):
 *  - many producer threads, tiny rings: wraparound, producers waiting on a
 *    full ring, every word delivered once, in order, per thread;
 *  - signal-level rings drained alongside level 0;
 *  - an unpublished, partially filled slot is salvaged (non-zero prefix,
 *    holes turned into PAD) when its thread is gone;
 *  - thread slots are recycled: more threads over time than table entries;
 *  - the wake-up rules: a publish below half a ring rings no doorbell, a
 *    half-full ring or a partial batch does; and under stress (many
 *    threads, tiny rings, a slowed collector that sleeps with a long
 *    timeout) no wake-up is ever lost: the collector never times out while
 *    producers run and no producer's space wait ever times out;
 *  - hostile writers: only a sealed memfd named by its collector is
 *    attached; a producer gives up a ring whose tail is out of range; a
 *    producer whose head, batch length or process index breaks the
 *    protocol is cut off, reported once and told to stop, and the other
 *    processes' threads are drained to their end;
 *  - the tables' high-water marks: a collector and producer leave the
 *    pages of entries nobody used untouched, and a mark a writer lowered
 *    (or raised past the table) hides no entry for long and lets no loop
 *    run past its table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kmod-free/shm_collector.h"
#include "kmod-free/shm_producer.h"
#include "tests/unit/runtime/resident_pages.h"
#include "wpp/trace_abi.h"
#include "wpp/wpp_file.h"

#define MAXT 64

struct check {
	/* per producer (tag = index+1): next expected counter per level */
	uint64_t next[MAXT][WPP_SHM_LEVELS];
	uint64_t next_seq[MAXT][WPP_SHM_LEVELS];
	uint64_t words, batches, salvaged, pads;
	unsigned starts, exits, procs, modules;
	unsigned slow_every; /* sleep 20 us every slow_every batches (0: never) */
	int bad;
};

static int on_process(void *ctx, const struct wpp_shm_proc *p)
{
	struct check *c = ctx;
	c->procs++;
	if (p->pid != (uint32_t)getpid())
		c->bad = 1;
	return 0;
}
static int on_module(void *ctx, const struct wpp_shm_proc *p, const struct wpp_shm_tu *t)
{
	struct check *c = ctx;
	(void)p, (void)t;
	c->modules++;
	return 0;
}
static int on_thread(void *ctx, const struct wpp_shm_proc *p, uint32_t tid, int ev, uint64_t ns)
{
	struct check *c = ctx;
	(void)p, (void)tid, (void)ns;
	if (ev == WPP_THREAD_START)
		c->starts++;
	else
		c->exits++;
	return 0;
}
/* Producer words: tag << 40 (the fid field) | counter, counters consecutive per (tag, level). */
static int on_batch(void *ctx, const struct wpp_shm_proc *p, uint32_t tid,
		    const struct wpp_batch_hdr *h, const uint64_t *w, uint32_t n)
{
	struct check *c = ctx;
	(void)p, (void)tid;
	c->batches++;
	if (c->slow_every && c->batches % c->slow_every == 0)
		usleep(20);
	if (h->flags & WPP_BATCH_SALVAGED)
		c->salvaged++;
	for (uint32_t i = 0; i < n; i++) {
		if (w[i] == wpp_make_ctrl(WPP_CTRL_PAD, 0)) {
			c->pads++;
			continue;
		}
		uint32_t tag = (uint32_t)(w[i] >> 40);
		if (tag == 0 || tag > MAXT) {
			c->bad = 1;
			continue;
		}
		/* level 0 continues across batches; signal levels restart */
		if (h->level > 0 && i == 0)
			c->next[tag - 1][h->level] = w[i] & 0xffffffffu;
		if ((w[i] & 0xffffffffu) != c->next[tag - 1][h->level]) {
			if (!c->bad)
				fprintf(stderr,
					"tag %u level %u seq %llu i %u n %u w %llx: got %llu want "
					"%llu\n",
					tag, h->level, (unsigned long long)h->seq, i, n,
					(unsigned long long)w[i],
					(unsigned long long)(w[i] & 0xffffffffu),
					(unsigned long long)c->next[tag - 1][h->level]);
			c->bad = 1;
		}
		c->next[tag - 1][h->level] = (w[i] & 0xffffffffu) + 1;
		c->words++;
	}
	if (h->level < WPP_SHM_LEVELS && n) {
		uint32_t tag = (uint32_t)(w[0] >> 40);
		if (tag && tag <= MAXT) {
			/* seqs of one ring are increasing */
			if (h->seq <= c->next_seq[tag - 1][h->level] && h->seq) {
				fprintf(stderr, "seq %llu after %llu\n", (unsigned long long)h->seq,
					(unsigned long long)c->next_seq[tag - 1][h->level]);
				c->bad = 1;
			}
			c->next_seq[tag - 1][h->level] = h->seq;
		}
	}
	return 0;
}
static int on_gap(void *ctx, const struct wpp_shm_proc *p, uint32_t tid, uint64_t s, uint64_t l)
{
	(void)ctx, (void)p, (void)tid, (void)s, (void)l;
	return 0;
}

struct env {
	struct wpp_shm_collector *col;
	struct wpp_shm_client cl;
	struct check chk;
	struct wpp_shm_sink sink;
	volatile int stop;
	/* strict collector (wake-up tests): */
	volatile int producers_running;
	volatile int give_up;		/* a wake-up was lost: producers stop early */
	unsigned lost;			/* collector timeouts while producers ran */
	unsigned pause_every, pause_us; /* produce_full: pauses between bursts */
	volatile pid_t drain_tid;	/* the strict collector's thread */
};

/* /proc/PID/stat's start time, as the collector checks it. */
static uint64_t start_ticks_of(pid_t pid)
{
	char path[64], buf[1024], *p;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	p = strrchr(buf, ')');
	for (int field = 2; field < 22; field++)
		p = strchr(p + 1, ' ');
	return strtoull(p + 1, NULL, 10);
}

static struct env *env_of(struct wpp_shm_options o)
{
	struct env *e = calloc(1, sizeof(*e));
	struct wpp_shm_proc_info pi = {
	    (uint32_t)getpid(), (uint32_t)getppid(), 0, 0, 0, "/test", "test", 5};

	assert_non_null(e);
	e->col = wpp_shm_collector_create(&o);
	assert_non_null(e->col);
	assert_int_equal(wpp_shm_attach(&e->cl, wpp_shm_collector_env(e->col)), 0);
	/* the collector checks start time against /proc to tell pid reuse */
	pi.start_ticks = start_ticks_of(getpid());
	assert_int_equal(wpp_shm_register_process(&e->cl, &pi), 0);
	e->sink = (struct wpp_shm_sink){&e->chk,  on_process, on_module, on_thread,
					on_batch, on_gap,     NULL};
	return e;
}

static struct env *env_new(uint32_t words, uint32_t slots, uint32_t threads)
{
	return env_of((struct wpp_shm_options){words, slots, 2, threads, 4, 16});
}

static void env_free(struct env *e)
{
	munmap(e->cl.h, e->cl.mapped);
	wpp_shm_collector_destroy(e->col);
	free(e);
}

/* A lost wake-up was seen (by the strict collector, or as a producer's
 * space wait running into its timeout): stop early, the test fails. */
static int stalled(struct env *e)
{
	return e->give_up || __atomic_load_n(&e->cl.h->space_wait_timeouts, __ATOMIC_RELAXED);
}

struct producer {
	struct env *e;
	uint32_t tag, batches, level;
	int leave_partial;
};

static void *produce(void *arg)
{
	struct producer *pr = arg;
	struct env *e = pr->e;
	uint32_t tid = (uint32_t)syscall(SYS_gettid);
	struct wpp_shm_lane lane, *t = NULL;
	uint64_t counter = 0, seq = 0;

	while (!t) /* the table may be full until the collector recycles */
		if (wpp_shm_thread_open(&e->cl, &lane, (uint32_t)getpid(), tid) == 0)
			t = &lane;
		else
			usleep(100);
	for (uint32_t b = 0; b < pr->batches && !stalled(e); b++) {
		for (uint32_t l = 0; l <= pr->level; l++) {
			struct wpp_batch_hdr *h = wpp_shm_ring_begin(&e->cl, t, (int)l);
			uint64_t *w = (uint64_t *)(h + 1);
			uint32_t n = 1 + (b * 7 + pr->tag) % e->cl.g.buffer_words;
			assert_non_null(h);
			/* a slot handed out is always clean */
			for (uint32_t i = 0; i < e->cl.g.buffer_words + WPP_SLACK_WORDS; i++)
				if (w[i])
					abort();
			h->seq = ++seq;
			h->level = l;
			for (uint32_t i = 0; i < n; i++)
				w[i] = (uint64_t)pr->tag << 40 |
				       (l == 0 ? counter + i : b * 1000000u + i);
			if (l == 0)
				counter += n;
			h->nwords = n;
			wpp_shm_ring_publish(&e->cl, t, (int)l);
		}
	}
	if (pr->leave_partial) {
		struct wpp_batch_hdr *h = wpp_shm_ring_begin(&e->cl, t, 0);
		uint64_t *w = (uint64_t *)(h + 1);
		h->seq = ++seq;
		w[0] = (uint64_t)pr->tag << 40 | counter;
		w[1] = 0; /* reserved, never written */
		w[2] = (uint64_t)pr->tag << 40 | (counter + 1);
	}
	wpp_shm_thread_close(t);
	return NULL;
}

static void *drain(void *arg)
{
	struct env *e = arg;
	while (!e->stop) {
		if (wpp_shm_collector_drain(e->col, &e->sink) == 0)
			wpp_shm_collector_wait(e->col, 5);
	}
	return NULL;
}

static void run_producers(struct env *e, unsigned n, uint32_t batches, uint32_t level, int partial)
{
	pthread_t th[MAXT], dr;
	struct producer pr[MAXT];

	assert_int_equal(pthread_create(&dr, NULL, drain, e), 0);
	for (unsigned i = 0; i < n; i++) {
		pr[i] = (struct producer){e, i + 1, batches, level, partial};
		assert_int_equal(pthread_create(&th[i], NULL, produce, &pr[i]), 0);
	}
	for (unsigned i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	/* all producers gone: the next passes finish their slots */
	for (int k = 0; k < 200 && e->chk.exits < n; k++)
		usleep(5000);
	e->stop = 1;
	pthread_join(dr, NULL);
	wpp_shm_collector_finish(e->col, &e->sink);
}

static uint64_t expected_words(unsigned n, uint32_t batches, uint32_t level, uint32_t cap)
{
	uint64_t total = 0;
	for (unsigned t = 1; t <= n; t++)
		for (uint32_t b = 0; b < batches; b++)
			total += (uint64_t)(level + 1) * (1 + (b * 7 + t) % cap);
	return total;
}

static void test_concurrent_no_loss_in_order(void **state)
{
	struct env *e = env_new(16, 2, 16);
	(void)state;
	run_producers(e, 8, 3000, 0, 0);
	assert_int_equal(e->cl.h->space_wait_timeouts, 0); /* no wake-up was lost */
	assert_false(e->chk.bad);
	assert_int_equal(e->chk.words, expected_words(8, 3000, 0, 16));
	assert_int_equal(e->chk.batches, 8 * 3000);
	assert_int_equal(e->chk.starts, 8);
	assert_int_equal(e->chk.exits, 8);
	assert_int_equal(e->chk.procs, 1);
	env_free(e);
}

static void test_signal_levels_drained(void **state)
{
	struct env *e = env_new(32, 3, 8);
	(void)state;
	run_producers(e, 4, 500, 2, 0);
	assert_false(e->chk.bad);
	assert_int_equal(e->chk.words, expected_words(4, 500, 2, 32));
	env_free(e);
}

static void test_salvage_partial_slot(void **state)
{
	struct env *e = env_new(64, 2, 8);
	(void)state;
	run_producers(e, 3, 10, 0, 1);
	assert_false(e->chk.bad);
	assert_int_equal(e->chk.salvaged, 3);
	assert_int_equal(e->chk.pads, 3); /* the hole became PAD */
	assert_int_equal(e->chk.words, expected_words(3, 10, 0, 64) + 3 * 2);
	env_free(e);
}

static void test_thread_slots_recycled(void **state)
{
	/* 40 threads over time through a 4-entry thread table */
	struct env *e = env_new(16, 2, 4);
	pthread_t dr;
	(void)state;
	assert_int_equal(pthread_create(&dr, NULL, drain, e), 0);
	for (unsigned round = 0; round < 10; round++) {
		pthread_t th[4];
		struct producer pr[4];
		for (unsigned i = 0; i < 4; i++) {
			pr[i] = (struct producer){e, round * 4 + i + 1, 20, 0, 0};
			assert_int_equal(pthread_create(&th[i], NULL, produce, &pr[i]), 0);
		}
		for (unsigned i = 0; i < 4; i++)
			pthread_join(th[i], NULL);
	}
	for (int k = 0; k < 400 && e->chk.exits < 40; k++)
		usleep(5000);
	e->stop = 1;
	pthread_join(dr, NULL);
	wpp_shm_collector_finish(e->col, &e->sink);
	assert_false(e->chk.bad);
	assert_int_equal(e->chk.starts, 40);
	assert_int_equal(e->chk.exits, 40);
	assert_int_equal(e->chk.words, expected_words(40, 20, 0, 16));
	env_free(e);
}

/* ---- wake-up rules ---- */

/* Long enough that a collector woken only by its timeout is unmistakable;
 * the real recorder uses 10 ms. */
#define STRICT_TIMEOUT_MS 1000

/* A collector that counts every wait that ran into its timeout while the
 * producers were running: with the wake-up rules intact that never happens
 * (every producer either rings, or keeps publishing until it must ring, or
 * ends with a partial batch, which rings). */
static void *drain_strict(void *arg)
{
	struct env *e = arg;
	e->drain_tid = (pid_t)syscall(SYS_gettid);
	while (!e->stop) {
		if (wpp_shm_collector_drain(e->col, &e->sink) != 0)
			continue;
		if (!wpp_shm_collector_wait(e->col, STRICT_TIMEOUT_MS) && e->producers_running &&
		    !e->stop) {
			e->lost++;
			e->give_up = 1;
		}
	}
	return NULL;
}

/* Full batches (they ring only at half a ring), a pause now and then so
 * the collector goes to sleep between bursts, and a last partial batch
 * flagged FINAL (it must ring). */
static void *produce_full(void *arg)
{
	struct producer *pr = arg;
	struct env *e = pr->e;
	uint32_t tid = (uint32_t)syscall(SYS_gettid), cap = e->cl.g.buffer_words;
	struct wpp_shm_lane lane, *t = NULL;
	uint64_t counter = 0, seq = 0;

	while (!t)
		if (wpp_shm_thread_open(&e->cl, &lane, (uint32_t)getpid(), tid) == 0)
			t = &lane;
		else
			usleep(100);
	for (uint32_t b = 0; b <= pr->batches && !stalled(e); b++) {
		struct wpp_batch_hdr *h = wpp_shm_ring_begin(&e->cl, t, 0);
		uint64_t *w = (uint64_t *)(h + 1);
		uint32_t n = b == pr->batches ? 3 : cap;
		assert_non_null(h);
		h->seq = ++seq;
		if (b == pr->batches)
			h->flags = WPP_BATCH_FINAL;
		for (uint32_t i = 0; i < n; i++)
			w[i] = (uint64_t)pr->tag << 40 | (counter + i);
		counter += n;
		h->nwords = n;
		wpp_shm_ring_publish(&e->cl, t, 0);
		if ((b + pr->tag) % e->pause_every == 0)
			usleep(e->pause_us + (b * 31 + pr->tag) % e->pause_us);
	}
	wpp_shm_thread_close(t);
	return NULL;
}

/* Runs n producers (fn over pr[i] = {e, i + 1, batches}) under the strict
 * collector thread until all have returned, then stops and finishes it. */
static void run_under_strict_collector(struct env *e, struct producer *pr, unsigned n,
				       unsigned batches, void *(*fn)(void *))
{
	struct wpp_shm_header *h = wpp_shm_collector_header(e->col);
	pthread_t th[16], dr;

	assert_true(n <= 16);
	e->producers_running = 1;
	assert_int_equal(pthread_create(&dr, NULL, drain_strict, e), 0);
	for (unsigned i = 0; i < n; i++) {
		pr[i] = (struct producer){e, i + 1, batches, 0, 0};
		assert_int_equal(pthread_create(&th[i], NULL, fn, &pr[i]), 0);
	}
	for (unsigned i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	e->producers_running = 0;
	e->stop = 1;
	/* the strict collector may sleep a whole timeout now: ring it */
	__atomic_fetch_add(&h->doorbell, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &h->doorbell, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
	pthread_join(dr, NULL);
	wpp_shm_collector_finish(e->col, &e->sink);
}

/* N threads x BATCHES full batches + a final partial one each, through
 * 4-slot rings of 16 words, under the strict collector. */
static void stress(unsigned slow_every, unsigned pause_every, unsigned pause_us)
{
	enum { N = 12, BATCHES = 2500 };
	struct env *e = env_new(16, 4, 16);
	struct producer pr[N];
	struct wpp_shm_header *h = wpp_shm_collector_header(e->col);

	e->chk.slow_every = slow_every;
	e->pause_every = pause_every;
	e->pause_us = pause_us;
	run_under_strict_collector(e, pr, N, BATCHES, produce_full);
	print_message("stress: %llu batches, %llu doorbell wakes, %llu space waits, "
		      "%llu space-wait timeouts, %u collector timeouts\n",
		      (unsigned long long)e->chk.batches, (unsigned long long)h->doorbell_wakes,
		      (unsigned long long)h->space_waits,
		      (unsigned long long)h->space_wait_timeouts, e->lost);
	assert_int_equal(e->lost, 0);
	assert_int_equal(h->space_wait_timeouts, 0);
	/* both wake-ups were exercised: the slowed collector fills rings, the
	 * bursty producers find it asleep */
	if (slow_every)
		assert_true(h->space_waits > 1000);
	else
		assert_true(h->doorbell_wakes > 1000);
	assert_false(e->chk.bad);
	assert_int_equal(e->chk.batches, N * (BATCHES + 1));
	assert_int_equal(e->chk.words, (uint64_t)N * (BATCHES * 16 + 3));
	/* the doorbell is rung at most once per collector sleep, and only at
	 * half a ring (2 of 4 slots) or for a final batch */
	assert_true(h->doorbell_wakes <= e->chk.batches / 2 + N);
	env_free(e);
}

/* A collector slower than its producers (a 20 us stall every 8 batches):
 * rings run full, producers wait for space (hysteresis wake-ups). */
static void test_no_lost_wakeups_slow_collector(void **state)
{
	(void)state;
	stress(8, 61, 500);
}

/* Producers in short bursts with pauses: the collector drains, sleeps, and
 * must be rung (doorbell wake-ups racing its going to sleep). */
static void test_no_lost_wakeups_bursty_producers(void **state)
{
	(void)state;
	stress(0, 3, 100);
}

/* Has the collector consumed `want` batches within ms milliseconds? */
static int consumed_within(struct env *e, uint64_t want, int ms)
{
	for (int k = 0; k < ms && __atomic_load_n(&e->chk.batches, __ATOMIC_SEQ_CST) < want; k++)
		usleep(1000);
	return __atomic_load_n(&e->chk.batches, __ATOMIC_SEQ_CST) >= want;
}

static void publish_one(struct env *e, struct wpp_shm_lane *t, uint64_t *counter, uint32_t n)
{
	static uint64_t seq;
	struct wpp_batch_hdr *h = wpp_shm_ring_begin(&e->cl, t, 0);
	uint64_t *w = (uint64_t *)(h + 1);
	assert_non_null(h);
	h->seq = ++seq;
	for (uint32_t i = 0; i < n; i++)
		w[i] = (uint64_t)1 << 40 | (*counter + i);
	*counter += n;
	h->nwords = n;
	wpp_shm_ring_publish(&e->cl, t, 0);
}

/* Thread tid of this process is blocked (state S in its stat). */
static int thread_blocked(pid_t tid)
{
	char path[64], buf[512], *p;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	if (f)
		fclose(f);
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'S';
}

/* The strict collector is asleep on the doorbell: it said so
 * (collector_sleeping) and its thread is blocked, which in its loop only
 * the futex wait does.  Polled, not assumed after a time: a busy machine
 * may take long to get there (bounded at 5 min, then a failure). */
static void wait_collector_asleep(struct env *e)
{
	for (int k = 0; k < 300000; k++) {
		if (e->drain_tid &&
		    __atomic_load_n(&e->cl.h->collector_sleeping, __ATOMIC_SEQ_CST) &&
		    thread_blocked(e->drain_tid))
			return;
		usleep(1000);
	}
	fail_msg("the collector never went to sleep on the doorbell");
}

static void test_doorbell_rule(void **state)
{
	struct env *e = env_new(16, 4, 4);
	struct wpp_shm_lane lane, *t = &lane;
	pthread_t dr;
	uint64_t counter = 0;
	(void)state;

	assert_int_equal(
	    wpp_shm_thread_open(&e->cl, t, (uint32_t)getpid(), (uint32_t)syscall(SYS_gettid)), 0);
	assert_non_null(t);
	e->producers_running = 1;
	assert_int_equal(pthread_create(&dr, NULL, drain_strict, e), 0);
	wait_collector_asleep(e);
	/* one full batch: 1 of 4 slots, no ring; the collector sleeps on */
	publish_one(e, t, &counter, 16);
	assert_false(consumed_within(e, 1, 100));
	/* the second makes the ring half full: ring */
	publish_one(e, t, &counter, 16);
	assert_true(consumed_within(e, 2, 500));
	wait_collector_asleep(e);
	/* a partial batch (a flush) rings even with the ring nearly empty */
	publish_one(e, t, &counter, 5);
	assert_true(consumed_within(e, 3, 500));
	wpp_shm_thread_close(t);
	e->producers_running = 0;
	e->stop = 1;
	__atomic_fetch_add(&e->cl.h->doorbell, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &e->cl.h->doorbell, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
	pthread_join(dr, NULL);
	wpp_shm_collector_finish(e->col, &e->sink);
	assert_false(e->chk.bad);
	assert_int_equal(e->lost, 0);
	assert_int_equal(e->chk.words, 16 + 16 + 5);
	env_free(e);
}

/* Ping-pong: publish exactly up to the doorbell threshold, then wait (spin)
 * until the ring is below it again, then after a random 0-60 us the next
 * pair: publishes land anywhere in the collector's drain-and-sleep cycle,
 * in particular just after a pass that found nothing, before its
 * pre-sleep scan: the window where a publish that saw the collector awake
 * (so rang no bell) must still be found by that scan.  A ring left at the
 * threshold is a lost wake-up (the strict collector would sleep its full
 * timeout; we give up at half of it). */
static uint64_t mono_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000;
}

static void *produce_pingpong(void *arg)
{
	struct producer *pr = arg;
	struct env *e = pr->e;
	uint32_t tid = (uint32_t)syscall(SYS_gettid), cap = e->cl.g.buffer_words;
	uint32_t fill = wpp_shm_doorbell_fill(e->cl.g.ring_slots);
	struct wpp_shm_lane lane, *t = NULL;
	uint64_t counter = 0, seq = 0;

	while (!t)
		if (wpp_shm_thread_open(&e->cl, &lane, (uint32_t)getpid(), tid) == 0)
			t = &lane;
		else
			usleep(100);
	for (uint32_t b = 0; b < pr->batches && !stalled(e); b++) {
		for (uint32_t k = 0; k < fill; k++) {
			struct wpp_batch_hdr *h = wpp_shm_ring_begin(&e->cl, t, 0);
			uint64_t *w = (uint64_t *)(h + 1);
			assert_non_null(h);
			h->seq = ++seq;
			for (uint32_t i = 0; i < cap; i++)
				w[i] = (uint64_t)pr->tag << 40 | (counter + i);
			counter += cap;
			h->nwords = cap;
			wpp_shm_ring_publish(&e->cl, t, 0);
		}
		/* the rule: a ring holding doorbell_fill unconsumed slots is never
		 * left lying (fewer may wait for the collector's timeout) */
		uint64_t t0 = mono_us();
		while (t->t->rings[0].head -
			   __atomic_load_n(&t->t->rings[0].tail, __ATOMIC_SEQ_CST) >=
		       fill) {
			if (mono_us() - t0 > STRICT_TIMEOUT_MS * 1000 / 2) {
				__atomic_fetch_add(&e->lost, 1, __ATOMIC_SEQ_CST);
				e->give_up = 1;
				break;
			}
		}
		/* then a random 0-60 us, so the next pair lands anywhere in the
		 * collector's pass-and-sleep cycle */
		t0 = mono_us();
		while (mono_us() - t0 < (b * 7919u) % 61)
			;
	}
	wpp_shm_thread_close(t);
	return NULL;
}

static void test_no_lost_wakeups_pingpong(void **state)
{
	enum { N = 1, ROUNDS = 6000 }; /* one spinning producer, one collector: 2 cores */
	struct env *e = env_new(16, 4, 8);
	struct producer pr[N];
	struct wpp_shm_header *h = wpp_shm_collector_header(e->col);
	(void)state;

	run_under_strict_collector(e, pr, N, ROUNDS, produce_pingpong);
	print_message("pingpong: %llu batches, %llu doorbell wakes, %u lost\n",
		      (unsigned long long)e->chk.batches, (unsigned long long)h->doorbell_wakes,
		      e->lost);
	assert_int_equal(e->lost, 0);
	assert_false(e->chk.bad);
	assert_int_equal(e->chk.batches, N * ROUNDS * 2);
	env_free(e);
}

/*
 * A producer that moves its ring's head out of range is cut off: reported
 * once with its pid, its thread ended (EXIT), its rings' tails set beyond
 * any head so its next ring_begin gives up at once, and it is never
 * pending work for the collector's wait.  Another process's thread in the
 * same region is drained as before, to the end.
 */
static void test_bad_head_cuts_off_producer(void **state)
{
	struct env *e = env_new(16, 4, 4);
	struct wpp_shm_client bad_cl;
	struct wpp_shm_lane good, bad;
	uint64_t good_counter = 0, bad_counter = 0;
	pid_t child = fork();
	uint32_t cut_pid = 0;
	const char *why = NULL;
	(void)state;

	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	assert_true(child > 0);
	/* The hostile "process": a live pid (the child) registered by a client
	 * of its own, so the collector sees two processes. */
	struct wpp_shm_proc_info pi = {
	    (uint32_t)child, (uint32_t)getpid(), 0, 0, start_ticks_of(child), "/bad", "bad", 4};
	assert_int_equal(wpp_shm_attach(&bad_cl, wpp_shm_collector_env(e->col)), 0);
	assert_int_equal(wpp_shm_register_process(&bad_cl, &pi), 0);
	assert_int_equal(
	    wpp_shm_thread_open(&e->cl, &good, (uint32_t)getpid(), (uint32_t)syscall(SYS_gettid)),
	    0);
	assert_int_equal(wpp_shm_thread_open(&bad_cl, &bad, (uint32_t)child, (uint32_t)child), 0);
	publish_one(e, &good, &good_counter, 16);
	publish_one(e, &bad, &bad_counter, 16);
	assert_int_equal(wpp_shm_collector_drain(e->col, &e->sink), 2);
	assert_int_equal(e->chk.starts, 2);
	assert_int_equal(wpp_shm_collector_cutoff(e->col, &cut_pid, &why), 0);

	__atomic_store_n(&bad.t->rings[0].head, bad.t->rings[0].tail + 1000, __ATOMIC_RELEASE);
	assert_true(wpp_shm_collector_drain(e->col, &e->sink) >= 0);
	assert_int_equal(wpp_shm_collector_cutoff(e->col, &cut_pid, &why), 1);
	assert_int_equal(cut_pid, (uint32_t)child);
	assert_non_null(why);
	assert_int_equal(wpp_shm_collector_cutoff(e->col, &cut_pid, &why), 0); /* once */
	assert_int_equal(e->chk.exits, 1);
	assert_null(wpp_shm_ring_begin(&bad_cl, &bad, 0));	 /* told to stop */
	assert_int_equal(wpp_shm_collector_wait(e->col, 20), 0); /* not pending */

	/* the honest thread goes on, and ends normally */
	publish_one(e, &good, &good_counter, 16);
	publish_one(e, &good, &good_counter, 7);
	assert_int_equal(wpp_shm_collector_drain(e->col, &e->sink), 2);
	wpp_shm_thread_close(&good);
	wpp_shm_collector_finish(e->col, &e->sink);
	assert_int_equal(e->chk.exits, 2);
	assert_int_equal(e->chk.batches, 4); /* (both count from 0: chk.bad says nothing) */
	struct wpp_shm_totals tot;
	wpp_shm_collector_totals(e->col, &tot);
	assert_int_equal(tot.misbehaved, 1);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	munmap(bad_cl.h, bad_cl.mapped);
	env_free(e);
}

/* A batch longer than a slot, and a thread naming no process, cut off. */
static void test_bad_batch_and_index_cut_off(void **state)
{
	struct env *e = env_new(16, 4, 4);
	struct wpp_shm_lane a;
	uint64_t counter = 0;
	uint32_t pid;
	const char *why;
	(void)state;

	assert_int_equal(wpp_shm_thread_open(&e->cl, &a, (uint32_t)getpid(), 1), 0);
	a.t->proc_index = 1u << 30; /* before the collector first sees it */
	publish_one(e, &a, &counter, 16);
	assert_true(wpp_shm_collector_drain(e->col, &e->sink) >= 0);
	assert_int_equal(wpp_shm_collector_cutoff(e->col, &pid, &why), 1);
	assert_string_equal(why, "thread names no process");
	assert_int_equal(e->chk.batches, 0);

	struct env *f = env_new(16, 4, 4);
	struct wpp_shm_lane b;
	assert_int_equal(wpp_shm_thread_open(&f->cl, &b, (uint32_t)getpid(), 2), 0);
	struct wpp_batch_hdr *h = wpp_shm_ring_begin(&f->cl, &b, 0);
	assert_non_null(h);
	h->seq = 1;
	h->nwords = 16 + WPP_SLACK_WORDS + 1;
	wpp_shm_ring_publish(&f->cl, &b, 0);
	assert_true(wpp_shm_collector_drain(f->col, &f->sink) >= 0);
	assert_int_equal(wpp_shm_collector_cutoff(f->col, &pid, &why), 1);
	assert_string_equal(why, "batch longer than its slot");
	assert_int_equal(f->chk.batches, 0);
	assert_int_equal(f->chk.exits, 1);
	env_free(e);
	env_free(f);
}

/* The producer gives a ring up when its tail is one no collector writes. */
static void test_producer_bounds_tail(void **state)
{
	struct env *e = env_new(16, 4, 4);
	struct wpp_shm_lane a;
	(void)state;

	assert_int_equal(wpp_shm_thread_open(&e->cl, &a, (uint32_t)getpid(), 3), 0);
	__atomic_store_n(&a.t->rings[0].tail, 5, __ATOMIC_RELEASE); /* ahead of head 0 */
	assert_null(wpp_shm_ring_begin(&e->cl, &a, 0));
	__atomic_store_n(&a.t->rings[1].tail, 0, __ATOMIC_RELEASE);
	a.head[1] = 9; /* more than a ring (2 slots) ahead of tail */
	assert_null(wpp_shm_ring_begin(&e->cl, &a, 1));
	assert_non_null(wpp_shm_ring_begin(&e->cl, &a, 2)); /* the others still work */
	env_free(e);
}

/* Only a sealed memfd named /proc/<its collector's pid>/fd/<n> is mapped. */
static void test_attach_refuses_foreign_regions(void **state)
{
	struct wpp_shm_options o = {16, 4, 2, 4, 4, 4};
	struct wpp_shm_header h;
	struct wpp_shm_client cl;
	char path[64], file[] = "/tmp/wpp-test-region-XXXXXX";
	const char *msg;
	(void)state;

	assert_int_equal(wpp_shm_options_check(&o, &msg), 0);
	wpp_shm_layout(&o, &h);
	h.collector_pid = (uint32_t)getpid();

	/* a regular file with a perfect header */
	int fd = mkstemp(file);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)h.region_size), 0);
	assert_int_equal(pwrite(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)getpid(), fd);
	assert_int_equal(wpp_shm_attach(&cl, file), -EPROTO);
	assert_int_equal(wpp_shm_attach(&cl, path), -EPROTO);
	close(fd);
	unlink(file);

	/* a sealed memfd: named right, named another way, naming another pid */
	fd = memfd_create("test", MFD_ALLOW_SEALING);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)h.region_size), 0);
	assert_int_equal(pwrite(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), 0);
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)getpid(), fd);
	assert_int_equal(wpp_shm_attach(&cl, path), 0);
	munmap(cl.h, cl.mapped);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	assert_int_equal(wpp_shm_attach(&cl, path), -EPROTO);
	h.collector_pid = 1;
	assert_int_equal(pwrite(fd, &h, sizeof(h), 0), (ssize_t)sizeof(h));
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)getpid(), fd);
	assert_int_equal(wpp_shm_attach(&cl, path), -EPROTO);
	close(fd);
}

/* ---- the tables' high-water marks (shm_proto.h) ---- */

/* The default table sizes, small slots. */
static struct env *env_default_tables(void)
{
	return env_of((struct wpp_shm_options){16, 4, 2, WPP_SHM_DEF_THREADS, WPP_SHM_DEF_PROCS,
					       WPP_SHM_DEF_TUS});
}

/* Pages of the region's [from, to) that exist in its memfd: mincore on a
 * shared mapping tells the file's pages, which anyone's first touch
 * allocates, the collector's reads included. */
static uint64_t touched_pages(struct env *e, uint64_t from, uint64_t to)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE), start = from & ~(page - 1);
	return resident_pages((char *)wpp_shm_collector_header(e->col) + start, to - start);
}

/* One module registered, and a thread of ours that opens lane a and
 * publishes one batch of 16 words into it. */
static void one_module_one_batch(struct env *e, struct wpp_shm_lane *a, uint64_t *counter)
{
	const struct wpp_shm_tu_info tu = {0, 1, 42, 0, 0, NULL, 0, "/test.c"};

	assert_int_equal(wpp_shm_register_tu(&e->cl, &tu), 0);
	assert_int_equal(
	    wpp_shm_thread_open(&e->cl, a, (uint32_t)getpid(), (uint32_t)syscall(SYS_gettid)), 0);
	publish_one(e, a, counter, 16);
}

/* One process, one module, one thread: of the module and thread tables
 * only the page of their first entry is touched (two where a table begins
 * on its neighbour's last page), however long the tables are.  Reading
 * every entry, as the collector did, allocated all ~200 pages of the
 * default tables.  (The process table is read whole by every producer
 * that registers: an exec'd image looks for its old one.) */
static void test_unused_entries_untouched(void **state)
{
	struct env *e = env_default_tables();
	const struct wpp_shm_geometry *g = &e->cl.g;
	struct wpp_shm_lane a;
	uint64_t counter = 0;
	(void)state;

	one_module_one_batch(e, &a, &counter);
	assert_int_equal(wpp_shm_collector_drain(e->col, &e->sink), 1);
	assert_int_equal(wpp_shm_collector_wait(e->col, 1), 0);
	wpp_shm_thread_close(&a);
	wpp_shm_collector_finish(e->col, &e->sink);
	assert_int_equal(e->chk.procs, 1);
	assert_int_equal(e->chk.modules, 1);
	assert_int_equal(e->chk.starts, 1);
	assert_int_equal(e->chk.exits, 1);
	assert_int_equal(e->chk.batches, 1);
	assert_true(touched_pages(e, g->tus_off, g->threads_off) <= 2);
	assert_true(touched_pages(e, g->threads_off, g->slots_off) <= 2);
	env_free(e);
}

/* A writer that lowers the marks before the collector reads them hides
 * the entries claimed meanwhile only until the collector's periodic look
 * at the region's touched pages (100 ms); marks raised past the tables
 * are bounded by them (ASan would see a loop running past its arrays). */
static void test_lowered_marks_hide_nothing(void **state)
{
	struct env *e = env_default_tables();
	struct wpp_shm_header *h = wpp_shm_collector_header(e->col);
	struct wpp_shm_lane a;
	uint64_t counter = 0;
	(void)state;

	one_module_one_batch(e, &a, &counter);
	h->procs_high = h->tus_high = h->threads_high = 0;
	assert_int_equal(wpp_shm_collector_drain(e->col, &e->sink), 0); /* hidden */
	assert_int_equal(e->chk.modules, 0);
	usleep(150 * 1000);
	assert_int_equal(wpp_shm_collector_drain(e->col, &e->sink), 1); /* found */
	assert_int_equal(e->chk.procs, 1);
	assert_int_equal(e->chk.modules, 1);
	assert_int_equal(e->chk.starts, 1);

	h->procs_high = h->tus_high = h->threads_high = UINT32_MAX;
	publish_one(e, &a, &counter, 16);
	assert_int_equal(wpp_shm_collector_drain(e->col, &e->sink), 1);
	wpp_shm_thread_close(&a);
	wpp_shm_collector_finish(e->col, &e->sink);
	assert_int_equal(e->chk.exits, 1);
	assert_int_equal(e->chk.batches, 2);
	assert_false(e->chk.bad);
	env_free(e);
}

/* A thread claimed at a free entry the pass's thread loop has already
 * gone by (claims take the lowest free one), publishing, and then its
 * process exec'ing, all while the loop drains a later entry: the process
 * may not be retired in that pass (its thread would name a freed entry
 * next pass and be cut off, its batch lost).  The sink's batch callback
 * for the later entry plays the worker and the exec. */
struct behind_the_loop {
	struct env *e;
	struct wpp_shm_lane *worker;
	struct wpp_shm_client *new_image;
	uint64_t counter;
	int done;
};
static struct behind_the_loop *behind;
static int batch_then_claim_behind(void *ctx, const struct wpp_shm_proc *p, uint32_t tid,
				   const struct wpp_batch_hdr *h, const uint64_t *w, uint32_t n)
{
	int r = on_batch(ctx, p, tid, h, w, n);
	struct wpp_shm_proc_info pi = {
	    (uint32_t)getpid(), (uint32_t)getppid(), 0, 0, 0, "/test2", "test2", 6};

	if (!behind || behind->done)
		return r;
	behind->done = 1;
	assert_int_equal(wpp_shm_thread_open(&behind->e->cl, behind->worker, (uint32_t)getpid(),
					     (uint32_t)getpid() + 1),
			 0);
	assert_int_equal(behind->worker->index, 0);
	publish_one(behind->e, behind->worker, &behind->counter, 16);
	/* the exec: the new image marks the old entry EXITING */
	pi.start_ticks = start_ticks_of(getpid());
	assert_int_equal(wpp_shm_attach(behind->new_image, wpp_shm_collector_env(behind->e->col)),
			 0);
	assert_int_equal(wpp_shm_register_process(behind->new_image, &pi), 0);
	return r;
}
static void test_thread_claimed_behind_the_loop_before_exec(void **state)
{
	struct env *e = env_new(16, 4, 4);
	struct wpp_shm_lane gone, main_thread, worker;
	struct wpp_shm_client new_image;
	struct behind_the_loop b = {e, &worker, &new_image, 0, 0};
	uint64_t counter = 0;
	uint32_t pid;
	const char *why;
	(void)state;

	/* entry 0: a thread that ends (its tid does not exist), 1: main */
	assert_int_equal(wpp_shm_thread_open(&e->cl, &gone, (uint32_t)getpid(), 999999), 0);
	assert_int_equal(wpp_shm_thread_open(&e->cl, &main_thread, (uint32_t)getpid(),
					     (uint32_t)syscall(SYS_gettid)),
			 0);
	publish_one(e, &main_thread, &counter, 16);
	assert_int_equal(wpp_shm_collector_drain(e->col, &e->sink), 1);
	wpp_shm_thread_close(&gone);
	assert_true(wpp_shm_collector_drain(e->col, &e->sink) >= 0);
	assert_int_equal(__atomic_load_n(&gone.t->state, __ATOMIC_SEQ_CST), WPP_SHM_FREE);

	behind = &b;
	e->sink.batch = batch_then_claim_behind;
	publish_one(e, &main_thread, &counter, 16);
	assert_true(wpp_shm_collector_drain(e->col, &e->sink) >= 0);
	behind = NULL;
	assert_true(b.done);
	assert_true(wpp_shm_collector_drain(e->col, &e->sink) >= 0);
	assert_int_equal(wpp_shm_collector_cutoff(e->col, &pid, &why), 0);
	wpp_shm_collector_finish(e->col, &e->sink);
	assert_int_equal(e->chk.batches, 3); /* main's two and the worker's */
	assert_int_equal(e->chk.starts, 3);
	assert_int_equal(e->chk.exits, 3);
	munmap(new_image.h, new_image.mapped);
	env_free(e);
}

/* A module and a thread of another process claimed with the marks kept
 * low (by a writer, or a mark its claimer could not raise), a batch
 * published, and the process gone before the collector's periodic look
 * at the touched pages: the pass that retires the process finds them
 * first (before, the thread was cut off naming a freed process and the
 * module entry stayed live, never reported). */
static void test_hidden_entries_found_before_retirement(void **state)
{
	struct env *e = env_new(16, 4, 4);
	struct wpp_shm_header *h = wpp_shm_collector_header(e->col);
	const struct wpp_shm_tu_info tu = {0, 1, 42, 0, 0, NULL, 0, "/child.c"};
	struct wpp_shm_client other;
	struct wpp_shm_lane t;
	uint64_t counter = 0;
	uint32_t pid;
	const char *why;
	pid_t child;
	(void)state;

	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	struct wpp_shm_proc_info pi = {(uint32_t)child, (uint32_t)getpid(), 0, 0, 0, "/c", "c", 2};
	pi.start_ticks = start_ticks_of(child);
	assert_int_equal(wpp_shm_attach(&other, wpp_shm_collector_env(e->col)), 0);
	assert_int_equal(wpp_shm_register_process(&other, &pi), 0);
	assert_true(wpp_shm_collector_drain(e->col, &e->sink) >= 0);
	assert_int_equal(wpp_shm_register_tu(&other, &tu), 0);
	assert_int_equal(wpp_shm_thread_open(&other, &t, (uint32_t)child, (uint32_t)child), 0);
	h->tus_high = 0;
	h->threads_high = 0;
	publish_one(e, &t, &counter, 16);
	wpp_shm_thread_close(&t);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	usleep(20 * 1000); /* past the pidfds' poll interval */
	for (int pass = 0; pass < 3; pass++)
		assert_true(wpp_shm_collector_drain(e->col, &e->sink) >= 0);
	assert_int_equal(wpp_shm_collector_cutoff(e->col, &pid, &why), 0);
	assert_int_equal(e->chk.modules, 1);
	assert_int_equal(e->chk.batches, 1);
	assert_int_equal(e->chk.starts, 1);
	assert_int_equal(e->chk.exits, 1);
	assert_int_equal(__atomic_load_n(&wpp_shm_tu_at(h, &e->cl.g, 0)->state, __ATOMIC_SEQ_CST),
			 WPP_SHM_FREE);
	wpp_shm_collector_finish(e->col, &e->sink);
	munmap(other.h, other.mapped);
	env_free(e);
}

static void test_layout_rejects_bad_options(void **state)
{
	struct wpp_shm_options o = {8, 4, 2, 4, 4, 4};
	struct wpp_shm_header h;
	struct wpp_shm_geometry g;
	const char *msg;
	(void)state;
	assert_int_not_equal(wpp_shm_options_check(&o, &msg), 0);
	o.buffer_words = 64;
	o.ring_slots = 1;
	assert_int_not_equal(wpp_shm_options_check(&o, &msg), 0);
	o.ring_slots = 4;
	assert_int_equal(wpp_shm_options_check(&o, &msg), 0);
	wpp_shm_layout(&o, &h);
	assert_int_equal(wpp_shm_header_check(&h, h.region_size, &g), 0);
	assert_int_equal(g.region_size, h.region_size);
	assert_int_not_equal(wpp_shm_header_check(&h, h.region_size - 1, &g), 0);
	h.slots_off += 64; /* offsets are recomputed, not trusted */
	assert_int_not_equal(wpp_shm_header_check(&h, h.region_size, &g), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_thread_claimed_behind_the_loop_before_exec),
	    cmocka_unit_test(test_hidden_entries_found_before_retirement),
	    cmocka_unit_test(test_layout_rejects_bad_options),
	    cmocka_unit_test(test_attach_refuses_foreign_regions),
	    cmocka_unit_test(test_producer_bounds_tail),
	    cmocka_unit_test(test_bad_head_cuts_off_producer),
	    cmocka_unit_test(test_bad_batch_and_index_cut_off),
	    cmocka_unit_test(test_concurrent_no_loss_in_order),
	    cmocka_unit_test(test_signal_levels_drained),
	    cmocka_unit_test(test_salvage_partial_slot),
	    cmocka_unit_test(test_thread_slots_recycled),
	    cmocka_unit_test(test_doorbell_rule),
	    cmocka_unit_test(test_no_lost_wakeups_slow_collector),
	    cmocka_unit_test(test_no_lost_wakeups_bursty_producers),
	    cmocka_unit_test(test_no_lost_wakeups_pingpong),
	    cmocka_unit_test(test_unused_entries_untouched),
	    cmocka_unit_test(test_lowered_marks_hide_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
