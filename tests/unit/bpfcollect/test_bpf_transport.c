/* SPDX-License-Identifier: MIT */
/*
 * test_bpf_transport — the BPF transport end to end with real BPF: the
 * producer (usdt_producer.c) fires wpptrace:batch with words whose values
 * are a function of (thread, position), so the checker here knows what
 * every stream must contain without trusting the collector: each thread's
 * payloads must count up without a break, except exactly where a gap event
 * stands, and that gap must say exactly how many words/batches are missing.
 * With hold_words, batches come in runs closed by the flush callback: each
 * run one thread's, within hold_words, nothing else delivered inside one.
 * Needs root (CAP_BPF, CAP_PERFMON); skips with a message otherwise.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "bpfcollect/bpfcollect.h"
#include "wpp/trace_abi.h"

#ifndef PRODUCER_PATH
#error "PRODUCER_PATH must name the usdt_producer binary"
#endif

#define MAX_THREADS 64
#define MAX_PROCS 8

/* What the checker knows about one traced thread (by tid). */
struct tcheck {
	uint32_t pid, tid;
	int started, exited;
	uint32_t fid;          /* all words of a stream carry one fid */
	uint64_t next_seq;     /* the seq the next batch must have... */
	uint64_t next_payload; /* ...and the payload its first word must have */
	uint64_t pending_gap_batches, pending_gap_words, pending_gap_after;
	int gap_pending;
	uint32_t generation;
};

struct pcheck {
	uint32_t pid, ppid, flags, generation;
	int news, exits, exit_status;
	char exe[256];
};

struct checker {
	uint32_t nwords; /* words per batch the producer uses */
	struct tcheck t[MAX_THREADS];
	int nt;
	struct pcheck p[MAX_PROCS * 2];
	int np;
	uint64_t words, batches, gap_words, gap_batches, gaps;
	int errors;
	char first_error[256];
	int modules;
	uint64_t module_tu_hash;
	uint32_t module_nfuncs, module_fid_base;
	char module_path[256];
	/* hold_words runs: the open one (batches since the last flush) */
	uint32_t hold_words;
	uint32_t run_pid, run_tid, run_gen, run_batches;
	uint64_t run_words;
	uint64_t runs, max_run_batches;
};

static void fail_check(struct checker *k, const char *fmt, ...)
{
	if (k->errors++ == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(k->first_error, sizeof(k->first_error), fmt, ap);
		va_end(ap);
	}
}

static struct tcheck *thread_of(struct checker *k, uint32_t pid, uint32_t tid, uint32_t gen)
{
	for (int i = k->nt - 1; i >= 0; i--)
		if (k->t[i].tid == tid && k->t[i].pid == pid && k->t[i].generation == gen)
			return &k->t[i];
	if (k->nt == MAX_THREADS)
		return NULL;
	struct tcheck *t = &k->t[k->nt++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tid = tid;
	t->generation = gen;
	return t;
}

static void on_process(void *ctx, const struct bc_process *ev)
{
	struct checker *k = ctx;
	struct pcheck *p = NULL;
	for (int i = k->np - 1; i >= 0 && !p; i--)
		if (k->p[i].pid == ev->proc.pid)
			p = &k->p[i]; /* the latest image of that pid */
	if (ev->event == BC_PROCESS_NEW) {
		if (k->np == MAX_PROCS * 2)
			return;
		p = &k->p[k->np++];
		memset(p, 0, sizeof(*p));
		p->pid = ev->proc.pid;
		p->ppid = ev->proc.ppid;
		p->flags = ev->proc.flags;
		p->generation = ev->proc.generation;
		p->news = 1;
		snprintf(p->exe, sizeof(p->exe), "%s", ev->exe);
		if (ev->proc.exe_len != strlen(ev->exe) + 1)
			fail_check(k, "exe_len %u for \"%s\"", ev->proc.exe_len, ev->exe);
	} else if (p) {
		p->exits++;
		p->exit_status = ev->exit_status;
	} else {
		fail_check(k, "exit of unannounced pid %u", ev->proc.pid);
	}
}

/* Anything but a batch or a flush: no run may be open (a run is handed on
 * before anything else about its thread, and nothing interleaves). */
static void no_open_run(struct checker *k, const char *what)
{
	if (k->run_batches)
		fail_check(k, "%s inside a run of tid %u", what, k->run_tid);
}

static void on_flush(void *ctx)
{
	struct checker *k = ctx;
	if (!k->hold_words)
		fail_check(k, "flush without hold_words");
	if (!k->run_batches)
		fail_check(k, "flush of an empty run");
	k->runs++;
	if (k->run_batches > k->max_run_batches)
		k->max_run_batches = k->run_batches;
	k->run_batches = 0;
	k->run_words = 0;
}

static void on_thread(void *ctx, const struct wpp_chunk_thread *ev)
{
	struct checker *k = ctx;
	no_open_run(k, "a thread event");
	struct tcheck *t = thread_of(k, ev->pid, ev->tid, ev->generation);
	if (!t)
		return;
	if (ev->event == WPP_THREAD_START) {
		if (t->started++)
			fail_check(k, "tid %u started twice", ev->tid);
	} else {
		if (!t->started)
			fail_check(k, "tid %u exited before starting", ev->tid);
		if (t->gap_pending)
			t->gap_pending = 0; /* a tail gap: nothing follows it */
		t->exited++;
	}
}

static void on_gap(void *ctx, const struct wpp_chunk_gap *g)
{
	struct checker *k = ctx;
	no_open_run(k, "a gap");
	k->gaps++;
	k->gap_words += g->lost_words;
	k->gap_batches += g->lost_batches;
	for (int i = k->nt - 1; i >= 0; i--) {
		struct tcheck *t = &k->t[i];
		if (t->tid != g->tid || t->pid != g->pid || t->exited)
			continue;
		if (t->gap_pending)
			fail_check(k, "two gaps in a row on tid %u", g->tid);
		t->gap_pending = 1;
		t->pending_gap_batches = g->lost_batches;
		t->pending_gap_words = g->lost_words;
		t->pending_gap_after = g->after_seq;
		/* The gap must sit right after the last delivered batch. */
		if (g->after_seq != t->next_seq - 1)
			fail_check(k, "tid %u: gap after seq %llu, expected after %llu", g->tid,
				   (unsigned long long)g->after_seq, (unsigned long long)(t->next_seq - 1));
		return;
	}
	fail_check(k, "gap for unknown tid %u", g->tid);
}

static void on_batch(void *ctx, const struct wpp_chunk_batch *b, const uint64_t *words)
{
	struct checker *k = ctx;
	struct tcheck *t = thread_of(k, b->pid, b->tid, b->generation);
	if (!t)
		return;
	k->batches++;
	k->words += b->nwords;
	if (!t->started)
		fail_check(k, "batch of tid %u before its start", b->tid);
	if (t->exited)
		fail_check(k, "batch of tid %u after its exit", b->tid);
	if (k->hold_words) {
		if (k->run_batches &&
		    (b->pid != k->run_pid || b->tid != k->run_tid || b->generation != k->run_gen))
			fail_check(k, "a run holds tid %u and tid %u", k->run_tid, b->tid);
		k->run_pid = b->pid;
		k->run_tid = b->tid;
		k->run_gen = b->generation;
		k->run_batches++;
		k->run_words += b->nwords;
		if (k->run_words > k->hold_words && k->run_batches > 1)
			fail_check(k, "a run of %llu words (hold_words %u)",
				   (unsigned long long)k->run_words, k->hold_words);
	}
	if (b->nwords != k->nwords) {
		fail_check(k, "batch of %u words, expected %u", b->nwords, k->nwords);
		return;
	}
	if (t->fid == 0 && b->seq == 0 && !t->gap_pending)
		t->fid = wpp_word_fid(words[0]);
	uint64_t skipped = b->seq - t->next_seq;
	if (t->gap_pending) {
		if (skipped != t->pending_gap_batches || skipped * k->nwords != t->pending_gap_words)
			fail_check(k, "tid %u: gap of %llu batches/%llu words but %llu batches missing",
				   b->tid, (unsigned long long)t->pending_gap_batches,
				   (unsigned long long)t->pending_gap_words, (unsigned long long)skipped);
		t->gap_pending = 0;
		t->next_payload += skipped * k->nwords;
		if (!t->fid)
			t->fid = wpp_word_fid(words[0]);
	} else if (skipped) {
		fail_check(k, "tid %u: seq %llu after %llu without a gap", b->tid, (unsigned long long)b->seq,
			   (unsigned long long)t->next_seq);
		return;
	}
	for (uint32_t i = 0; i < b->nwords; i++) {
		if (wpp_word_fid(words[i]) != t->fid || wpp_word_payload(words[i]) != t->next_payload + i) {
			fail_check(k, "tid %u seq %llu word %u: %#llx, expected fid %u payload %llu", b->tid,
				   (unsigned long long)b->seq, i, (unsigned long long)words[i], t->fid,
				   (unsigned long long)(t->next_payload + i));
			break;
		}
	}
	t->next_payload += b->nwords;
	t->next_seq = b->seq + 1;
}

static void on_module(void *ctx, const struct wpp_chunk_module *m, const char *path)
{
	struct checker *k = ctx;
	k->modules++;
	k->module_tu_hash = m->tu_hash;
	k->module_nfuncs = m->nfuncs;
	k->module_fid_base = m->fid_base;
	snprintf(k->module_path, sizeof(k->module_path), "%s", path);
}

/* Run the producer under the collector.  start_late: drain only after the
 * producer has exited (a consumer that cannot keep up at all). */
static int run(struct checker *k, struct bc_options *opt, char *const argv[], int start_late,
	       struct bc_counters *out)
{
	struct bc_callbacks cb = { k, on_process, on_thread, on_module, on_batch, on_gap, on_flush };
	opt->filter_pids = true;
	k->hold_words = opt->hold_words;
	struct bc_collector *c = bc_open(opt, &cb);
	if (!c)
		return -1;
	int go[2];
	assert_int_equal(pipe(go), 0);
	pid_t child = fork();
	if (child == 0) {
		char b;
		close(go[1]);
		if (read(go[0], &b, 1) != 1)
			_exit(126);
		execv(PRODUCER_PATH, argv);
		_exit(127);
	}
	close(go[0]);
	assert_int_equal(bc_trace_pid(c, child, false), 0);
	assert_int_equal(bc_attach_object(c, PRODUCER_PATH), 0);
	if (!start_late)
		assert_int_equal(bc_start(c), 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	close(go[1]);
	int status;
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	if (start_late)
		assert_int_equal(bc_start(c), 0);
	for (int i = 0; i < 200 && !bc_all_exited(c); i++)
		usleep(10000);
	assert_true(bc_all_exited(c));
	bc_finish(c, out);
	bc_close(c);
	no_open_run(k, "the end");
	return 0;
}

static int have_bpf(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		fprintf(stderr, "test_bpf_transport: needs root (CAP_BPF, CAP_PERFMON)\n");
		return -1;
	}
	return 0;
}

static void check_accounting(struct checker *k, const struct bc_counters *n, uint64_t emitted_batches)
{
	if (k->errors)
		fail_msg("%d check failures, first: %s", k->errors, k->first_error);
	/* Independent totals: what the producer emitted, what BPF counted
	 * lost, what arrived, what the gaps said. */
	assert_int_equal(k->batches + k->gap_batches, emitted_batches);
	assert_int_equal(k->words + k->gap_words, emitted_batches * k->nwords);
	assert_int_equal(n->lost_batches, k->gap_batches);
	assert_int_equal(n->lost_words, k->gap_words);
	assert_int_equal(n->batches, k->batches);
	assert_int_equal(n->gaps, k->gaps);
	for (int i = 0; i < k->nt; i++) {
		assert_int_equal(k->t[i].started, 1);
		assert_int_equal(k->t[i].exited, 1);
	}
}

/* Many threads, multi-record batches, rings big enough: nothing lost,
 * every word in order. */
static void test_many_threads_lossless(void **state)
{
	(void)state;
	static struct checker k = { .nwords = 1000 };
	struct bc_options opt = { .ring_bytes = 16u << 20, .drain_threads = 2 };
	char *argv[] = { "usdt_producer", "flood", "16", "100", "1000", NULL };
	struct bc_counters n;
	assert_int_equal(run(&k, &opt, argv, 0, &n), 0);
	check_accounting(&k, &n, 16 * 100);
	assert_int_equal(n.lost_batches, 0);
	assert_int_equal(k.nt, 17); /* 16 producers + the main thread */
	assert_int_equal(k.modules, 1);
	assert_int_equal(k.module_tu_hash, 0x5eed);
	assert_int_equal(k.module_nfuncs, 3);
	assert_int_equal(k.module_fid_base, 1);
	char *real = realpath(PRODUCER_PATH, NULL);
	assert_string_equal(k.module_path, real);
	free(real);
}

/* A tiny ring and a consumer that starts only after the producer is gone:
 * most batches are lost; every loss must be reported, exactly, in place. */
static void test_overload_exact_gaps(void **state)
{
	(void)state;
	static struct checker k = { .nwords = 100 };
	struct bc_options opt = { .ring_bytes = 16384, .record_words = 64, .drop_when_full = true };
	char *argv[] = { "usdt_producer", "flood", "4", "200", "100", NULL };
	struct bc_counters n;
	assert_int_equal(run(&k, &opt, argv, 1, &n), 0);
	check_accounting(&k, &n, 4 * 200);
	assert_true(n.lost_batches > 0);
	assert_true(k.batches > 0);
	assert_int_equal(n.lost_reserve, n.lost_batches);
	assert_int_equal(n.pauses, 0);
}

/* The same tiny ring under back-pressure, with a consumer slowed down so
 * the producers outrun it: they are paused instead, nothing is lost, every
 * word arrives in order, and every stop was answered by a continue. */
static void test_pause_lossless(void **state)
{
	(void)state;
	static struct checker k = { .nwords = 100 };
	struct bc_options opt = { .ring_bytes = 16384, .record_words = 64, .drain_delay_us = 2000 };
	char *argv[] = { "usdt_producer", "flood", "4", "200", "100", NULL };
	struct bc_counters n;
	assert_int_equal(run(&k, &opt, argv, 0, &n), 0);
	check_accounting(&k, &n, 4 * 200);
	assert_int_equal(n.lost_batches, 0);
	assert_int_equal(k.gap_batches, 0);
	assert_true(n.pauses > 0);
	assert_int_equal(n.pause_failures, 0);
	assert_true(n.continues > 0);
	assert_true(n.continues <= n.pauses);
}

/* The many-threads flood with batches held per thread (what record does
 * when it compresses): the same words, in order, in runs of one thread of
 * at most 4 batches, several batches a run. */
static void test_hold_runs_lossless(void **state)
{
	(void)state;
	static struct checker k = { .nwords = 1000 };
	struct bc_options opt = { .ring_bytes = 16u << 20, .drain_threads = 2, .hold_words = 4000 };
	char *argv[] = { "usdt_producer", "flood", "16", "100", "1000", NULL };
	struct bc_counters n;
	assert_int_equal(run(&k, &opt, argv, 0, &n), 0);
	check_accounting(&k, &n, 16 * 100);
	assert_int_equal(n.lost_batches, 0);
	assert_true(k.runs > 0);
	assert_true(k.max_run_batches >= 2 && k.max_run_batches <= 4);
}

/* Drops with batches held: every gap still exact and in place (a run is
 * handed on before its stream's gap). */
static void test_hold_exact_gaps(void **state)
{
	(void)state;
	static struct checker k = { .nwords = 100 };
	struct bc_options opt = { .ring_bytes = 16384, .record_words = 64, .drop_when_full = true,
				  .hold_words = 1000 };
	char *argv[] = { "usdt_producer", "flood", "4", "200", "100", NULL };
	struct bc_counters n;
	assert_int_equal(run(&k, &opt, argv, 1, &n), 0);
	check_accounting(&k, &n, 4 * 200);
	assert_true(n.lost_batches > 0);
	assert_true(k.batches > 0);
}

/* fork, exec and exit open and close processes and streams. */
static void test_fork_exec_exit(void **state)
{
	(void)state;
	static struct checker k = { .nwords = 50 };
	struct bc_options opt = { 0 };
	char *argv[] = { "usdt_producer", "family", "20", "50", NULL };
	struct bc_counters n;
	assert_int_equal(run(&k, &opt, argv, 0, &n), 0);
	check_accounting(&k, &n, 20 * 3);
	assert_int_equal(k.np, 3);
	struct pcheck *root = &k.p[0], *forked = &k.p[1], *execed = &k.p[2];
	assert_int_equal(root->flags, 0);
	assert_int_equal(root->generation, 0);
	assert_int_equal(forked->flags, WPP_PROC_FORKED);
	assert_int_equal(forked->ppid, root->pid);
	assert_int_equal(forked->generation, 0);
	assert_int_equal(execed->pid, forked->pid);
	assert_int_equal(execed->flags, WPP_PROC_EXECED);
	assert_int_equal(execed->generation, 1);
	if (!strstr(execed->exe, "usdt_producer"))
		print_message("exec'd image reported as '%s'\n", execed->exe);
	assert_non_null(strstr(execed->exe, "usdt_producer"));
	assert_int_equal(root->exits, 1);
	assert_int_equal(execed->exits, 1);
	assert_int_equal(execed->exit_status, 7 << 8);
	/* Streams: root main, child before exec, child after exec. */
	assert_int_equal(k.nt, 3);
	assert_int_equal(k.modules, 2);
}

static void test_bad_ring_size(void **state)
{
	(void)state;
	struct bc_options opt = { .ring_bytes = 12345 };
	struct bc_callbacks cb = { 0 };
	assert_null(bc_open(&opt, &cb));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_threads_lossless),
		cmocka_unit_test(test_overload_exact_gaps),
		cmocka_unit_test(test_pause_lossless),
		cmocka_unit_test(test_fork_exec_exit),
		cmocka_unit_test(test_hold_runs_lossless),
		cmocka_unit_test(test_hold_exact_gaps),
		cmocka_unit_test(test_bad_ring_size),
	};
	return cmocka_run_group_tests(tests, have_bpf, NULL);
}
