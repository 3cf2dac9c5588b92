/* SPDX-License-Identifier: MIT */
/*
 * test_record.c — end to end: `wpptrace record` runs rt_prog (a program that
 * calls the record ABI by hand) in each scenario, and the .wpp it writes is
 * read back with the .wpp reader and rebuilt into per-thread streams:
 * level-0 batches in seq order, signal batches spliced at (parent_seq,
 * parent_off).  Each rebuilt stream must equal the sequence rt_prog is known
 * to emit, computed here independently (expect()).  Run from the top of the
 * tree (make test does).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "wpp/trace_abi.h"
#include "wpp/wpp_file.h"
#include "common/wppfile.h"

#define WPPTRACE "bin/wpptrace"
#define PROG "build/tests/unit/runtime/rt_prog"
#define PROG_STATIC "build/tests/unit/runtime/rt_prog_static"
#define WORKDIR "tests/work/runtime"

struct vec {
	uint64_t *v;
	size_t n, cap;
};
static void push(struct vec *a, uint64_t w)
{
	if (a->n == a->cap) {
		a->cap = a->cap ? a->cap * 2 : 1024;
		a->v = realloc(a->v, a->cap * sizeof(*a->v));
		assert_non_null(a->v);
	}
	a->v[a->n++] = w;
}

struct batch {
	uint32_t pid, tid, gen, flags, parent_off;
	uint64_t seq, parent_seq;
	uint64_t *w;
	uint32_t n;
	int used;
};

struct run {
	int status;
	struct batch *b;
	size_t nb;
	struct wpp_chunk_process procs[1024];
	size_t nprocs;
	struct wpp_chunk_module mods[1024];
	size_t nmods;
	unsigned thread_start, thread_exit, ends, infos, gaps;
	/* THREAD chunks whose tid is not their pid: in a run of single-threaded
	 * processes, events written under another process's pid. */
	unsigned thread_events_off_main;
	struct wpp_chunk_end end;
	uint64_t fid_base; /* of rt_prog's TU, from its MODULE chunk */
	char first_type;
};

static void free_run(struct run *r)
{
	for (size_t i = 0; i < r->nb; i++)
		free(r->b[i].w);
	free(r->b);
}

/* Run wpptrace record on rt_prog and load the file. */
static void record(struct run *r, const char *prog, const char *opts, const char *args)
{
	char cmd[1024], out[256];
	struct wpp_reader *rd;
	struct wpp_chunk c;
	int first = 1;

	memset(r, 0, sizeof(*r));
	mkdir("tests/work", 0755);
	mkdir(WORKDIR, 0755);
	snprintf(out, sizeof(out), WORKDIR "/%d.wpp", (int)getpid());
	/* Raw batches: this test reads BATCH chunks itself (compressed ones are
	 * tests/e2e/keepup-compress.sh's, against raw recordings like these). */
	snprintf(cmd, sizeof(cmd), WPPTRACE " record -q --compress=none %s -o %s -- %s %s", opts,
		 out, prog, args);
	r->status = system(cmd);
	assert_true(WIFEXITED(r->status));
	r->status = WEXITSTATUS(r->status);
	rd = wppr_open(out);
	assert_non_null(rd);
	while (wppr_next(rd, &c) == 1) {
		if (first)
			r->first_type = (char)c.type;
		first = 0;
		switch (c.type) {
		case WPP_CHUNK_INFO:
			r->infos++;
			break;
		case WPP_CHUNK_PROCESS:
			assert_true(r->nprocs < 1024);
			memcpy(&r->procs[r->nprocs++], c.payload, sizeof(struct wpp_chunk_process));
			break;
		/* Chunk payloads are not aligned in the file: copy them out. */
		case WPP_CHUNK_MODULE: {
			struct wpp_chunk_module m;
			memcpy(&m, c.payload, sizeof(m));
			assert_true(r->nmods < 1024);
			r->mods[r->nmods++] = m;
			if (m.tu_hash == 0x1234abcdULL)
				r->fid_base = (uint64_t)m.fid_base << WPP_FID_SHIFT;
			break;
		}
		case WPP_CHUNK_THREAD: {
			struct wpp_chunk_thread t;
			memcpy(&t, c.payload, sizeof(t));
			r->thread_events_off_main += t.tid != t.pid;
			if (t.event == WPP_THREAD_START)
				r->thread_start++;
			else
				r->thread_exit++;
			break;
		}
		case WPP_CHUNK_BATCH: {
			struct wpp_chunk_batch h;
			struct batch *b;
			memcpy(&h, c.payload, sizeof(h));
			assert_int_equal(c.length, sizeof(h) + h.nwords * 8ull);
			r->b = realloc(r->b, (r->nb + 1) * sizeof(*r->b));
			b = &r->b[r->nb++];
			memset(b, 0, sizeof(*b));
			b->pid = h.pid, b->tid = h.tid, b->gen = h.generation;
			b->flags = h.flags, b->parent_off = h.parent_off;
			b->seq = h.seq, b->parent_seq = h.parent_seq;
			b->n = h.nwords;
			b->w = malloc(h.nwords * 8ull + 8);
			memcpy(b->w, (const char *)c.payload + sizeof(h), h.nwords * 8ull);
			break;
		}
		case WPP_CHUNK_GAP:
			r->gaps++;
			break;
		case WPP_CHUNK_END:
			r->ends++;
			memcpy(&r->end, c.payload, sizeof(r->end));
			break;
		default:
			/* analysis results (grammars, k-slab forests): not this test's */
			break;
		}
	}
	assert_null(wppr_status(rd)); /* ended cleanly with END */
	wppr_close(rd);
	unlink(out);
	assert_int_equal(r->first_type, WPP_CHUNK_INFO);
	assert_int_equal(r->ends, 1);
}

/* Splice: the words of b, with the signal batches that interrupted it after
 * word `off` inserted there (in seq order, recursively). */
static void expand(struct run *r, struct batch *b, struct vec *out)
{
	for (uint32_t off = 0; off <= b->n; off++) {
		for (;;) {
			struct batch *next = NULL;
			for (size_t i = 0; i < r->nb; i++) {
				struct batch *s = &r->b[i];
				if (!s->used && (s->flags & WPP_BATCH_SIGNAL) && s->pid == b->pid &&
				    s->tid == b->tid && s->gen == b->gen && s->parent_seq == b->seq &&
				    s->parent_off == off && (!next || s->seq < next->seq))
					next = s;
			}
			if (!next)
				break;
			next->used = 1;
			expand(r, next, out);
		}
		if (off < b->n && b->w[off] != wpp_make_ctrl(WPP_CTRL_PAD, 0) && b->w[off] != 0)
			push(out, b->w[off]);
	}
}

/* The stream of one thread of one process image. */
static void stream(struct run *r, uint32_t pid, uint32_t gen, uint32_t tid, struct vec *out)
{
	uint64_t last = 0;
	memset(out, 0, sizeof(*out));
	for (;;) {
		struct batch *next = NULL;
		for (size_t i = 0; i < r->nb; i++) {
			struct batch *b = &r->b[i];
			if (!b->used && !(b->flags & WPP_BATCH_SIGNAL) && b->pid == pid &&
			    b->tid == tid && b->gen == gen && (!next || b->seq < next->seq))
				next = b;
		}
		if (!next)
			break;
		assert_true(next->seq > last);
		last = next->seq;
		next->used = 1;
		expand(r, next, out);
	}
}

/* What rt_prog's run(role, tag, from, n) emits: an independent model. */
static void expect(struct vec *e, uint64_t base, unsigned role, unsigned tag, uint32_t from,
		   uint32_t n)
{
	for (uint32_t i = from; i < from + n; i++) {
		uint64_t w = base + ((uint64_t)role << 40) + ((uint64_t)tag << 32 | i);
		push(e, w);
		if (i % 97 == 5)
			push(e, w ^ 1);
	}
}

static void assert_same(const struct vec *got, const struct vec *want)
{
	size_t i;
	for (i = 0; i < got->n && i < want->n; i++)
		if (got->v[i] != want->v[i])
			break;
	if (i != got->n || i != want->n)
		fail_msg("streams differ at word %zu (got %zu words, want %zu): %#llx vs %#llx", i,
			 got->n, want->n, i < got->n ? (unsigned long long)got->v[i] : 0ull,
			 i < want->n ? (unsigned long long)want->v[i] : 0ull);
}

static void all_used(struct run *r)
{
	for (size_t i = 0; i < r->nb; i++)
		if (!r->b[i].used)
			fail_msg("batch seq %llu of tid %u was not placed",
				 (unsigned long long)r->b[i].seq, r->b[i].tid);
}

/* seqs per (pid, gen, tid) are exactly 1..N: nothing lost, nothing twice. */
static void seqs_dense(struct run *r)
{
	for (size_t i = 0; i < r->nb; i++) {
		uint64_t max = 0, count = 0;
		for (size_t j = 0; j < r->nb; j++)
			if (r->b[j].pid == r->b[i].pid && r->b[j].tid == r->b[i].tid &&
			    r->b[j].gen == r->b[i].gen) {
				count++;
				if (r->b[j].seq > max)
					max = r->b[j].seq;
				if (j != i && r->b[j].seq == r->b[i].seq)
					fail_msg("seq %llu twice", (unsigned long long)r->b[i].seq);
			}
		assert_int_equal(max, count);
	}
}

/* The main thread of a process has tid == pid. */
static uint32_t main_tid(uint32_t pid) { return pid; }

static unsigned count_flag(struct run *r, uint32_t flag)
{
	unsigned n = 0;
	for (size_t i = 0; i < r->nb; i++)
		n += !!(r->b[i].flags & flag);
	return n;
}

static void check_single(const char *prog, const char *opts, uint32_t n)
{
	struct run r;
	struct vec got, want = {0};
	char args[64];

	snprintf(args, sizeof(args), "basic %u", n);
	record(&r, prog, opts, args);
	assert_int_equal(r.status, 0);
	assert_int_equal(r.nprocs, 1);
	assert_int_not_equal(r.fid_base, 0);
	seqs_dense(&r);
	stream(&r, r.procs[0].pid, 0, main_tid(r.procs[0].pid), &got);
	expect(&want, r.fid_base, 0, 0, 1, n);
	assert_same(&got, &want);
	all_used(&r);
	assert_int_equal(r.end.words, want.n);
	free(got.v), free(want.v), free_run(&r);
}

static void test_basic(void **s)
{
	(void)s;
	check_single(PROG, "", 100000);
	check_single(PROG, "--buffer-words 64 --ring-slots 2", 20000); /* many waits */
	check_single(PROG, "", 1);
}

static void test_static_runtime(void **s)
{
	(void)s;
	check_single(PROG_STATIC, "--buffer-words 100", 5000);
}

static void test_threads(void **s)
{
	struct run r;
	struct vec got, want = {0};
	uint32_t pid;
	unsigned seen = 0;
	(void)s;

	record(&r, PROG, "--buffer-words 256 --ring-slots 2", "threads 30000 8");
	assert_int_equal(r.status, 0);
	pid = r.procs[0].pid;
	seqs_dense(&r);
	stream(&r, pid, 0, pid, &got);
	expect(&want, r.fid_base, 0, 0, 1, 10);
	expect(&want, r.fid_base, 0, 0, 11, 10);
	assert_same(&got, &want);
	free(got.v), free(want.v);
	for (size_t i = 0; i < r.nb; i++) {
		if (r.b[i].used || r.b[i].tid == pid)
			continue;
		uint32_t tid = r.b[i].tid;
		stream(&r, pid, 0, tid, &got);
		assert_true(got.n > 0);
		unsigned tag = (unsigned)((got.v[0] >> 32) & 0xff);
		memset(&want, 0, sizeof(want));
		expect(&want, r.fid_base, 1, tag, 1, 30000);
		assert_same(&got, &want);
		free(got.v), free(want.v);
		seen |= 1u << tag;
	}
	assert_int_equal(seen, 0x1fe); /* tags 1..8, each exactly one thread */
	assert_int_equal(r.thread_start, 9);
	assert_int_equal(r.thread_exit, 9);
	all_used(&r);
	free_run(&r);
}

/*
 * Each writer's stream is one block of counters, writer i's being
 * i*n+1 .. (i+1)*n of role `role`: check the stream of (pid, tid) is a whole
 * block and mark it in seen[] (which must not be marked yet).
 */
static void check_block(struct run *r, uint32_t pid, uint32_t tid, unsigned role, uint32_t n,
			unsigned char *seen, unsigned writers)
{
	struct vec got, want = {0};

	stream(r, pid, 0, tid, &got);
	assert_true(got.n > 0);
	uint32_t first = (uint32_t)got.v[0];
	assert_true(first >= 1 && (first - 1) % n == 0);
	uint32_t i = (first - 1) / n;
	assert_true(i < writers);
	assert_false(seen[i]);
	seen[i] = 1;
	expect(&want, r->fid_base, role, 0, first, n);
	assert_same(&got, &want);
	free(got.v), free(want.v);
}

/* After its waves, a churn mode's main thread writes role 0 counters
 * 1..10; seqs must be dense everywhere. */
static void check_churn_main(struct run *r, uint32_t pid)
{
	struct vec got, want = {0};

	seqs_dense(r);
	stream(r, pid, 0, pid, &got);
	expect(&want, r->fid_base, 0, 0, 1, 10);
	assert_same(&got, &want);
	free(got.v), free(want.v);
}

static void check_all_seen(const unsigned char *seen, unsigned writers, const char *who)
{
	for (unsigned i = 0; i < writers; i++)
		if (!seen[i])
			fail_msg("%s %u's words are missing", who, i);
}

/* More threads over the run than --max-threads, never more at once: the
 * collector frees the entries of finished threads only on its passes, and
 * a thread that found the table full of them used to run untraced (only a
 * "did not fit" warning said so).  Now it waits for the collector: every
 * thread's words must be in the file. */
static void test_thread_churn(void **s)
{
	enum { N = 5, WAVES = 300, PER = 7 }; /* with the main thread: 8 at once */
	unsigned char seen[WAVES * PER] = {0};
	struct run r;
	uint32_t pid;
	(void)s;

	record(&r, PROG, "--transport=shm --max-threads 8", "churn 5 300 7");
	assert_int_equal(r.status, 0);
	assert_int_equal(r.nprocs, 1);
	assert_int_equal(r.gaps, 0);
	assert_int_equal(r.thread_start, WAVES * PER + 1);
	assert_int_equal(r.thread_exit, WAVES * PER + 1);
	pid = r.procs[0].pid;
	check_churn_main(&r, pid);
	for (size_t i = 0; i < r.nb; i++)
		if (!r.b[i].used)
			check_block(&r, pid, r.b[i].tid, 1, N, seen, WAVES * PER);
	check_all_seen(seen, WAVES * PER, "thread");
	all_used(&r);
	free_run(&r);
}

/* Waves of forked children that write a block each and exit at once. */
static void check_process_churn(const char *opts, unsigned waves, unsigned per)
{
	enum { N = 5 };
	unsigned writers = waves * per;
	unsigned char *seen = calloc(writers, 1);
	struct run r;
	char args[64];
	uint32_t pid;

	assert_non_null(seen);
	snprintf(args, sizeof(args), "forkchurn %u %u %u", N, waves, per);
	record(&r, PROG, opts, args);
	assert_int_equal(r.status, 0);
	assert_int_equal(r.nprocs, writers + 1);
	assert_int_equal(r.gaps, 0);
	/* one thread per process, each START and EXIT under its own pid */
	assert_int_equal(r.thread_start, writers + 1);
	assert_int_equal(r.thread_exit, writers + 1);
	assert_int_equal(r.thread_events_off_main, 0);
	pid = r.procs[0].pid;
	check_churn_main(&r, pid);
	for (size_t p = 1; p < r.nprocs; p++) {
		assert_int_equal(r.procs[p].ppid, pid);
		check_block(&r, r.procs[p].pid, r.procs[p].pid, 4, N, seen, writers);
	}
	check_all_seen(seen, writers, "child");
	all_used(&r);
	free_run(&r);
	free(seen);
}

/* More processes over the run than --max-procs, never more at once: a
 * registration waits for the collector to free a finished process's entry
 * (as test_thread_churn for threads). */
static void test_process_churn(void **s)
{
	(void)s;
	check_process_churn("--transport=shm --max-procs 4", 15, 3);
}

/* A thousand children in waves of 50: the collector retired a process
 * first seen late in a pass (its module announced it after the thread
 * loop) before counting its thread, so that thread's START or EXIT came
 * out under the pid of the next process to take the entry. */
static void test_fork_storm(void **s)
{
	(void)s;
	check_process_churn("--transport=shm", 20, 50);
}

static void check_signals(const char *opts)
{
	struct run r;
	struct vec got, want = {0};
	uint32_t n = 333;

	record(&r, PROG, opts, "signals 333");
	assert_int_equal(r.status, 0);
	/* handlers really recorded apart: 20 outer + 20 nested at least */
	assert_true(count_flag(&r, WPP_BATCH_SIGNAL) >= 40);
	seqs_dense(&r);
	stream(&r, r.procs[0].pid, 0, r.procs[0].pid, &got);
	for (uint32_t k = 0; k < 20; k++) {
		expect(&want, r.fid_base, 0, 0, 1 + k * n, n);
		expect(&want, r.fid_base, 2, 0, 1, 30);
		expect(&want, r.fid_base, 3, 0, 1, 50);
		expect(&want, r.fid_base, 2, 0, 31, 30);
	}
	assert_same(&got, &want);
	all_used(&r);
	free(got.v), free(want.v), free_run(&r);
}

static void test_signals_nested(void **s)
{
	(void)s;
	check_signals("");
	check_signals("--buffer-words 16 --ring-slots 2"); /* handlers span batches */
}

static void test_longjmp_out_of_handler(void **s)
{
	struct run r;
	struct vec got, want = {0};
	(void)s;

	record(&r, PROG, "--buffer-words 128", "longjmp 100");
	assert_int_equal(r.status, 0);
	assert_true(count_flag(&r, WPP_BATCH_SIGNAL) >= 50);
	assert_int_equal(r.gaps, 0);
	seqs_dense(&r);
	stream(&r, r.procs[0].pid, 0, r.procs[0].pid, &got);
	for (uint32_t k = 0; k < 50; k++) {
		expect(&want, r.fid_base, 0, 0, 1 + k * 100, 100);
		expect(&want, r.fid_base, 2, 1, 1, 10);
		expect(&want, r.fid_base, 6, 0, 1 + k * 7, 7);
	}
	assert_same(&got, &want);
	all_used(&r);
	free(got.v), free(want.v), free_run(&r);
}

static void test_fork(void **s)
{
	struct run r;
	struct vec got, want = {0};
	const struct wpp_chunk_process *parent, *child;
	(void)s;

	record(&r, PROG, "--buffer-words 500", "fork 5000");
	assert_int_equal(r.status, 0);
	assert_int_equal(r.nprocs, 2);
	parent = &r.procs[0];
	child = &r.procs[1];
	assert_true(child->flags & WPP_PROC_FORKED);
	assert_int_equal(child->ppid, parent->pid);
	assert_int_equal(child->parent_tid, parent->pid);
	assert_int_equal(r.nmods, 2); /* the child re-announces the inherited TU */
	seqs_dense(&r);
	stream(&r, parent->pid, 0, parent->pid, &got);
	expect(&want, r.fid_base, 0, 0, 1, 5000);
	expect(&want, r.fid_base, 0, 0, 5001, 5000);
	assert_same(&got, &want);
	free(got.v), free(want.v);
	memset(&want, 0, sizeof(want));
	stream(&r, child->pid, 0, child->pid, &got);
	expect(&want, r.fid_base, 4, 0, 1, 5000);
	assert_same(&got, &want);
	all_used(&r);
	free(got.v), free(want.v), free_run(&r);
}

static void test_exec(void **s)
{
	struct run r;
	struct vec got, want = {0};
	(void)s;

	record(&r, PROG, "--buffer-words 300", "exec 2000");
	assert_int_equal(r.status, 0);
	assert_int_equal(r.nprocs, 2);
	assert_int_equal(r.procs[0].pid, r.procs[1].pid);
	assert_int_equal(r.procs[1].generation, 1);
	assert_true(r.procs[1].flags & WPP_PROC_EXECED);
	seqs_dense(&r);
	stream(&r, r.procs[0].pid, 0, r.procs[0].pid, &got);
	expect(&want, r.fid_base, 0, 0, 1, 2000);
	assert_same(&got, &want);
	free(got.v), free(want.v);
	memset(&want, 0, sizeof(want));
	stream(&r, r.procs[0].pid, 1, r.procs[0].pid, &got);
	expect(&want, r.fid_base, 5, 0, 1, 2000);
	assert_same(&got, &want);
	all_used(&r);
	free(got.v), free(want.v), free_run(&r);
}

static void test_sigkill_salvaged(void **s)
{
	struct run r;
	struct vec got, want = {0};
	int salvaged = 0;
	(void)s;

	record(&r, PROG, "--buffer-words 1000", "kill 12345");
	assert_int_equal(r.status, 128 + 9);
	seqs_dense(&r);
	for (size_t i = 0; i < r.nb; i++)
		salvaged += !!(r.b[i].flags & WPP_BATCH_SALVAGED);
	assert_int_equal(salvaged, 1);
	stream(&r, r.procs[0].pid, 0, r.procs[0].pid, &got);
	expect(&want, r.fid_base, 0, 0, 1, 12345);
	assert_same(&got, &want);
	assert_int_equal(r.thread_exit, 1);
	free(got.v), free(want.v), free_run(&r);
}

static void test_exit_status_and_errors(void **s)
{
	struct run r;
	int st;
	(void)s;

	record(&r, PROG, "", "exit 10");
	assert_int_equal(r.status, 3);
	free_run(&r);
	st = system(WPPTRACE " record -o " WORKDIR "/x.wpp -- ./no/such/program 2>/dev/null");
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) != 0);
	st = system(WPPTRACE " record -o /no/such/dir/x.wpp -- true 2>/dev/null");
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) != 0);
	st = system(WPPTRACE " record -p 999999999 -d 1 -o " WORKDIR "/x.wpp 2>/dev/null");
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) != 0);
}

/* Without a collector: probe mode (and the discard sink) must run every
 * scenario to completion with the program's own exit status. */
static void test_probe_and_disabled_modes(void **s)
{
	static const char *modes[] = {"basic 50000", "threads 20000 4", "signals 500",
				      "longjmp 100", "fork 3000", "exec 3000", "exit 10"};
	char cmd[256];
	(void)s;
	for (unsigned i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		int want = strncmp(modes[i], "exit", 4) == 0 ? 3 : 0;
		snprintf(cmd, sizeof(cmd), "env -u WPP_SHM " PROG " %s", modes[i]);
		int st = system(cmd);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), want);
		snprintf(cmd, sizeof(cmd), "env -u WPP_SHM WPP_DISABLE=1 " PROG " %s", modes[i]);
		st = system(cmd);
		assert_true(WIFEXITED(st));
		assert_int_equal(WEXITSTATUS(st), want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_static_runtime),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_thread_churn),
		cmocka_unit_test(test_process_churn),
		cmocka_unit_test(test_fork_storm),
		cmocka_unit_test(test_signals_nested),
		cmocka_unit_test(test_longjmp_out_of_handler),
		cmocka_unit_test(test_fork),
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_sigkill_salvaged),
		cmocka_unit_test(test_exit_status_and_errors),
		cmocka_unit_test(test_probe_and_disabled_modes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
