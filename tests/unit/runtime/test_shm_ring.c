/* SPDX-License-Identifier: MIT */
/*
 * test_shm_ring.c — the shared-memory ring protocol, producer and collector
 * in one process (built with ASan/UBSan):
 *  - many producer threads, tiny rings: wraparound, producers waiting on a
 *    full ring, every word delivered once, in order, per thread;
 *  - signal-level rings drained alongside level 0;
 *  - an unpublished, partially filled slot is salvaged (non-zero prefix,
 *    holes turned into PAD) when its thread is gone;
 *  - thread slots are recycled: more threads over time than table entries.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shm_collector.h"
#include "shm_producer.h"
#include "wpp/trace_abi.h"
#include "wpp/wpp_file.h"

#define MAXT 64

struct check {
	/* per producer (tag = index+1): next expected counter per level */
	uint64_t next[MAXT][WPP_SHM_LEVELS];
	uint64_t next_seq[MAXT][WPP_SHM_LEVELS];
	uint64_t words, batches, salvaged, pads;
	unsigned starts, exits, procs;
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
	(void)ctx, (void)p, (void)t;
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
				fprintf(stderr, "tag %u level %u seq %llu i %u n %u w %llx: got %llu want %llu\n", tag, h->level, (unsigned long long)h->seq, i, n, (unsigned long long)w[i],
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
};

static struct env *env_new(uint32_t words, uint32_t slots, uint32_t threads)
{
	struct env *e = calloc(1, sizeof(*e));
	struct wpp_shm_options o = {words, slots, 2, threads, 4, 16};
	struct wpp_shm_proc_info pi = {(uint32_t)getpid(), (uint32_t)getppid(), 0, 0, 0,
				       "/test", "test", 5};
	FILE *f = fopen("/proc/self/stat", "r");
	char buf[1024];
	char *p;

	assert_non_null(e);
	e->col = wpp_shm_collector_create(&o);
	assert_non_null(e->col);
	assert_int_equal(wpp_shm_attach(&e->cl, wpp_shm_collector_env(e->col)), 0);
	/* the collector checks start time against /proc to tell pid reuse */
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	p = strrchr(buf, ')');
	for (int field = 2; field < 22; field++)
		p = strchr(p + 1, ' ');
	pi.start_ticks = strtoull(p + 1, NULL, 10);
	assert_int_equal(wpp_shm_register_process(&e->cl, &pi), 0);
	e->sink = (struct wpp_shm_sink){&e->chk, on_process, on_module, on_thread, on_batch, on_gap};
	return e;
}

static void env_free(struct env *e)
{
	munmap(e->cl.h, e->cl.mapped);
	wpp_shm_collector_destroy(e->col);
	free(e);
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
	struct wpp_shm_thread *t = NULL;
	uint64_t counter = 0, seq = 0;

	while (!t) /* the table may be full until the collector recycles */
		if (!(t = wpp_shm_thread_open(&e->cl, (uint32_t)getpid(), tid)))
			usleep(100);
	for (uint32_t b = 0; b < pr->batches; b++) {
		for (uint32_t l = 0; l <= pr->level; l++) {
			struct wpp_batch_hdr *h = wpp_shm_ring_begin(&e->cl, t, (int)l);
			uint64_t *w = (uint64_t *)(h + 1);
			uint32_t n = 1 + (b * 7 + pr->tag) % e->cl.h->buffer_words;
			assert_non_null(h);
			/* a slot handed out is always clean */
			for (uint32_t i = 0; i < e->cl.h->buffer_words + WPP_SLACK_WORDS; i++)
				if (w[i])
					abort();
			h->seq = ++seq;
			h->level = l;
			for (uint32_t i = 0; i < n; i++)
				w[i] = (uint64_t)pr->tag << 40 | (l == 0 ? counter + i : b * 1000000u + i);
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

static void run_producers(struct env *e, unsigned n, uint32_t batches, uint32_t level,
			  int partial)
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

static void test_layout_rejects_bad_options(void **state)
{
	struct wpp_shm_options o = {8, 4, 2, 4, 4, 4};
	struct wpp_shm_header h;
	const char *msg;
	(void)state;
	assert_int_not_equal(wpp_shm_options_check(&o, &msg), 0);
	o.buffer_words = 64;
	o.ring_slots = 1;
	assert_int_not_equal(wpp_shm_options_check(&o, &msg), 0);
	o.ring_slots = 4;
	assert_int_equal(wpp_shm_options_check(&o, &msg), 0);
	wpp_shm_layout(&o, &h);
	assert_int_equal(wpp_shm_header_check(&h, h.region_size), 0);
	assert_int_not_equal(wpp_shm_header_check(&h, h.region_size - 1), 0);
	h.slots_off += 64; /* offsets are recomputed, not trusted */
	assert_int_not_equal(wpp_shm_header_check(&h, h.region_size), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_rejects_bad_options),
		cmocka_unit_test(test_concurrent_no_loss_in_order),
		cmocka_unit_test(test_signal_levels_drained),
		cmocka_unit_test(test_salvage_partial_slot),
		cmocka_unit_test(test_thread_slots_recycled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
