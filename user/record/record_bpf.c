/* SPDX-License-Identifier: MIT */
/*
 * record_bpf.c — `wpptrace record` over BPF (see record_bpf.h).
 *
 * A program: forked and held before exec while the probes are attached to
 * its executable and the libwpprt it will load, so nothing it records is
 * missed; then released and drained until it and everything it started
 * are gone (we are the subreaper).  -p: the processes are attached mid-run
 * (their TUs come from the runtime's registry).  -a: every object carrying
 * wpptrace probes that any process maps now, or execs later.
 */
#include "record/record_bpf.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/cpu_clock.h"
#include "common/log.h"
#include "record/record_attach.h"
#include "record/record_bpf_sink.h"
#include "record/record_child.h"
#include "record/record_counters.h"
#include "record/record_info.h"
#include "record/record_live_counts.h"
#include "record/record_ready.h"
#include "runtime/wpp_registry.h"

#define TICK_MS	    50
#define PROGRESS_NS 1000000000ull

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* -p / -a: Ctrl-C, kill and hangup end the recording cleanly. */
static void catch_stop_signals(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* A tick of the wait for the end (ms long), cut short when the program
 * record started exits (pidfd, -1: none), so that a short program's
 * recording does not end a tick after it. */
static void tick(int pidfd, unsigned ms)
{
	struct pollfd p = {pidfd, POLLIN, 0};
	if (pidfd < 0 || poll(&p, 1, (int)ms) < 0)
		sleep_ms(ms);
}

/* Loss is said while it happens, not only at the end. */
static void report_progress(struct bc_collector *c, uint64_t *reported)
{
	struct bc_counters k;
	bc_counters(c, &k);
	if (k.lost_batches > *reported) {
		wpp_warn("lost %" PRIu64 " events in %" PRIu64
			 " batches so far (ring full: %" PRIu64 "; see --ring-size)",
			 k.lost_words, k.lost_batches, k.lost_reserve);
		*reported = k.lost_batches;
	}
}

/* A batch larger than the ring is lost whole, every time, with either
 * --ring-full policy (bc_ring_fits_batch).  A program record starts cannot
 * get here: record_opts.c refuses such a ring before starting it, its batch
 * size being record's choice.  -p and -a processes chose theirs when they
 * started, so it is known only from what was lost: when the lost batches
 * were on average too large for an empty ring, some never could fit; say
 * so, rather than leave an empty recording to look like a program built
 * without wppcc.  record_words: as given (0 = the default). */
static void report_oversized_batches(const struct record_opts *o, uint32_t record_words,
				     const struct bc_counters *k)
{
	char ring[32], least[48];

	if (!k->lost_reserve || !k->lost_batches)
		return;
	uint64_t avg = k->lost_words / k->lost_batches;
	if (bc_ring_fits_batch(o->bpf.ring_bytes, o->bpf.record_words, avg) != 0)
		return;
	uint32_t min = bc_ring_min_bytes(record_words, avg);
	if (min)
		snprintf(least, sizeof(least), "; use --ring-size %s or more",
			 record_size_text(min, ring, sizeof(ring)));
	else
		least[0] = 0;
	wpp_warn("record: %s%" PRIu64 " batches were dropped: the ring (%s per CPU) cannot hold "
		 "one batch (%" PRIu64 " bytes on average, plus record headers)%s",
		 /* what was taken at detach (-p) was never published */
		 k->batches > k->taken_batches ? "" : "all ", k->lost_batches,
		 record_size_text(o->bpf.ring_bytes, ring, sizeof(ring)), avg * 8, least);
}

static int transport_lines(const struct record_opts *o, char *buf, size_t size)
{
	int n = snprintf(
	    buf, size,
	    "transport=bpf\nring_bytes=%u\nrecord_words=%u\ndrain_threads=%u\nmax_threads=%u\n"
	    "ring_full=%s\n",
	    o->bpf.ring_bytes, o->bpf.record_words, o->bpf.drain_threads, o->bpf.max_threads,
	    o->bpf.drop_when_full ? "drop" : "pause");
	/* The batch size of the program started here (--buffer-words or
	 * BC_RECORD_BATCH_WORDS). */
	if (o->shm.buffer_words && n >= 0 && (size_t)n < size)
		n += snprintf(buf + n, size - (size_t)n, "buffer_words=%u\n", o->shm.buffer_words);
	return n;
}

/* The program record runs: forked and held before exec, the first thing
 * record does, while this process is small.  A fork copies the page
 * tables of everything mapped (the rings' too: the kernel maps their
 * pages at mmap) and marks the heap copy-on-write, and the child's exec
 * tears its copy down again; done after bc_open that cost ~3 ms of the
 * start-up.  0 or an exit status, after one line. */
struct held_program {
	char exe[PATH_MAX]; /* what execvp will run */
	pid_t pid;	    /* 0: none */
	struct child_hold hold;
};

static int spawn_program(const struct record_opts *o, struct held_program *hp)
{
	int err = child_resolve(o->argv[0], hp->exe, sizeof(hp->exe));
	if (!err) {
		/* The program's runtime batch size (rt_transport.c). */
		if (o->shm.buffer_words) {
			char words[16];
			snprintf(words, sizeof(words), "%u", o->shm.buffer_words);
			setenv(WPP_BUFFER_WORDS_ENV, words, 1);
		}
		/* dual builds run their instrumented copies from the start */
		setenv(WPP_TRACE_ON_ENV, "1", 1);
		err = child_spawn_held(o->argv, &hp->pid, &hp->hold);
	}
	if (err) {
		wpp_err("record: cannot run '%s': %s", o->argv[0], strerror(-err));
		return 127;
	}
	return 0;
}

/* A held program that will not run (record failed before releasing it). */
static int give_up(struct held_program *hp, int rc)
{
	if (hp->pid > 0)
		child_abandon(hp->pid, &hp->hold);
	hp->pid = 0;
	return rc;
}

/* Attach to the held program, release it.  0 or an exit status. */
static int start_program(struct bc_collector *c, struct record_counters *counters,
			 struct held_program *hp, const char *name)
{
	/* Programs built by wppcc load the runtime next to us; attaching it
	 * up front also covers what the program execs (a wrapper, a shell). */
	record_attach_own_runtime(c);
	if (bc_attach_program(c, hp->exe) == -ENOENT && wpp_verbosity >= 2)
		wpp_warn("record: %s carries no wpptrace probes and does not link libwpprt "
			 "(built without wppcc?); tracing whatever it runs",
			 hp->exe);
	/* Signals go to the program from here on (before, one ends record,
	 * and the held program with it). */
	child_prepare();
	if (bc_trace_pid(c, hp->pid, false) != 0 || bc_start(c) != 0)
		return give_up(hp, 1);
	record_counters_rearm(counters);
	int err = child_release(hp->pid, &hp->hold);
	if (err) {
		hp->pid = 0;
		wpp_err("record: cannot run '%s': %s", name, strerror(-err));
		return 127;
	}
	return 0;
}

/* Until the traced processes are gone, -d runs out or a stop signal.
 * True when the program record started and everything it started have
 * ended and been reaped. */
static bool wait_for_end(struct bc_collector *c, const struct record_opts *o, pid_t child,
			 struct record_live_counts *live, int *status)
{
	uint64_t start = monotonic_ns(), last_progress = start, reported = 0;
	uint64_t limit = o->duration_s > 0 ? (uint64_t)(o->duration_s * 1e9) : 0;
	int main_reaped = 0;
	int pidfd = child > 0 ? (int)syscall(SYS_pidfd_open, child, 0) : -1;
	/* no longer than a snapshot interval (--snapshot-interval) */
	unsigned ms = o->snapshot_interval_s * 1e3 < TICK_MS
			  ? (unsigned)(o->snapshot_interval_s * 1e3)
			  : TICK_MS;

	bool gone = false;
	for (;;) {
		if (child > 0) {
			if ((gone = child_reap(child, status, &main_reaped)))
				break;
			/* Reaped, it stays readable: what it started is waited
			 * for tick by tick. */
			if (main_reaped && pidfd >= 0) {
				close(pidfd);
				pidfd = -1;
			}
		} else if (stop_requested || (o->npids && bc_all_exited(c))) {
			break;
		}
		uint64_t now = monotonic_ns();
		if (limit && now - start >= limit)
			break;
		if (now - last_progress >= PROGRESS_NS) {
			report_progress(c, &reported);
			last_progress = now;
		}
		if (live)
			record_live_counts_tick(live);
		tick(pidfd, ms);
	}
	if (pidfd >= 0)
		close(pidfd);
	return gone;
}

int record_bpf(const struct record_opts *o_)
{
	struct record_opts o = *o_;
	struct record_sink rs;
	struct bc_counters k;
	struct record_dual *dual = NULL; /* -p/-a: dual builds switched on */
	pid_t child = 0;
	int status = 0, rc = 0;

	o.bpf.filter_pids = !o.all;
	o.bpf.attach_on_exec = true;
	/* What -p/-a threads recorded since their last batch goes into the
	 * file at detach (bpfcollect/detach_take.h). */
	o.bpf.take_at_detach = true;
	/* Compressed, a thread's batches are stored as one chunk of up to
	 * a group's words (record_sink.h), as the shm collector's are. */
	o.bpf.hold_words = o.compress ? RECORD_GROUP_WORDS : 0;
	/* A program started here gets the large batch (BC_RECORD_BATCH_WORDS)
	 * unless --buffer-words or the environment's WPP_BUFFER_WORDS says
	 * otherwise; -p/-a processes chose theirs when they started. */
	const char *env_words = getenv(WPP_BUFFER_WORDS_ENV);
	if (o.argv && !o.shm.buffer_words && !(env_words && *env_words))
		o.shm.buffer_words = BC_RECORD_BATCH_WORDS;
	/* A program started here: tables for 8192 threads at once.  Each
	 * 65536-entry hash map costs 1.7 ms of CPU to create (its buckets are
	 * allocated whole) and a record made two; -p/-a, which may meet a
	 * whole machine's threads, keep 65536.  --max-threads says otherwise. */
	if (o.argv && !o.bpf.max_threads)
		o.bpf.max_threads = BC_PROGRAM_MAX_THREADS;
	struct held_program hp = {.pid = 0};
	if (o.argv && (rc = spawn_program(&o, &hp)) != 0)
		return rc;
	struct bc_callbacks cb = record_bpf_sink(&rs);
	struct bc_collector *c = bc_open(&o.bpf, &cb);
	if (!c)
		return give_up(&hp, 1);
	/* The library filled in its defaults; record what was really used. */
	bc_effective_options(c, &o.bpf);
	char lines[512];
	transport_lines(&o, lines, sizeof(lines));
	if (record_sink_open(&rs, &o, lines) < 0) {
		bc_close(c);
		return give_up(&hp, 1);
	}
	/* Counting builds still running at the end (-p/-a) leave their counts
	 * in memory; they are read after detach.  Any of them killed meanwhile
	 * (a program started here too: its end drains nothing then) leaves
	 * the counts of its last periodic snapshot. */
	if (!(rs.live_counts =
		  record_live_counts_new(&rs, (uint64_t)(o.snapshot_interval_s * 1e9)))) {
		wpp_err("out of memory");
		bc_close(c);
		record_sink_abort(&rs, &o);
		return give_up(&hp, 1);
	}
	struct record_counters *counters = NULL;
	if (o.counters.nevents) {
		/* Before anything is attached: the counters attach with the probes. */
		counters = calloc(1, sizeof(*counters));
		if (!counters || record_counters_start(counters, c, &o.counters, &rs) < 0) {
			if (!counters)
				wpp_err("out of memory");
			if (counters)
				record_counters_close(counters);
			free(counters);
			bc_close(c);
			record_sink_abort(&rs, &o);
			return give_up(&hp, 1);
		}
	}
	if (o.argv) {
		rc = start_program(c, counters, &hp, o.argv[0]);
		child = hp.pid;
	} else {
		catch_stop_signals();
		rc = record_attach_running(c, o.all, o.pids, o.npids, &dual) ? 1 : 0;
	}
	if (rc) {
		record_live_counts_free(rs.live_counts);
		if (counters)
			record_counters_close(counters);
		free(counters);
		bc_close(c);
		record_sink_abort(&rs, &o);
		return rc;
	}
	/* Tracing runs: the trace takes its name now (record.c says why). */
	wppw_publish(rs.w);
	record_ready(o.ready_fd, o.argv	 ? "the program runs with the probes attached"
				 : o.all ? "the probes are attached system-wide"
					 : "the probes are attached to the processes");
	/* Nothing traced is left: the probes' links need not be closed
	 * before the file is written, nor before record exits. */
	if (wait_for_end(c, &o, child, rs.live_counts, &status))
		bc_traced_gone(c);
	/* Dual builds plain again before the probes go, not after: a copy
	 * still recording could fill and publish a batch between the detach
	 * and the take of its unpublished words (bc_finish), a batch no probe
	 * delivers any more (its seq then shows as a gap).  Switched first, it
	 * writes nothing more and its open buffer is taken whole. */
	record_dual_restore(dual);
	bc_finish(c, &k);
	/* Probes detached, rings drained: what the threads hold now reached
	 * no stream and will reach none (record_live_counts.h). */
	if (rs.live_counts && record_live_counts_write(rs.live_counts, &rs, o.quiet) < 0)
		rs.failed = 1;
	record_live_counts_free(rs.live_counts);
	rs.live_counts = NULL;
	if (counters)
		record_counters_finish(counters, o.quiet);
	/* Losses no stream reports are kept in the file too, for `info`
	 * (bc_report_loss says them on stderr): a salvage nobody can size,
	 * the batches of threads the thread table had no room for. */
	char line[160];
	int len = 0;
	if (k.salvage_unreadable)
		len += snprintf(line, sizeof(line), "salvage.unreadable=%llu\n",
				(unsigned long long)k.salvage_unreadable);
	if (k.lost_untracked)
		len += snprintf(line + len, sizeof(line) - (size_t)len,
				"lost.no_thread_slot=%llu words in %llu batches\n",
				(unsigned long long)k.lost_untracked_words,
				(unsigned long long)k.lost_untracked);
	if (len && !rs.failed && wppw_chunk(rs.w, WPP_CHUNK_INFO, line, (uint32_t)len) < 0)
		rs.failed = 1;
	char extra[384], more[256] = "";
	size_t used = 0;
	/* How often back-pressure stopped the traced processes. */
	if (k.pauses)
		used +=
		    (size_t)snprintf(more, sizeof(more), ", producers paused %llu times, %.2f s",
				     (unsigned long long)k.pauses, (double)k.paused_ns / 1e9);
	/* Words threads left unpublished when they ended (killed, exec or
	 * _exit from a handler), copied by the exit/exec programs. */
	if (k.salvaged_batches && used < sizeof(more))
		used += (size_t)snprintf(
		    more + used, sizeof(more) - used,
		    ", %llu events in %llu batches salvaged from threads that ended unflushed",
		    (unsigned long long)k.salvaged_words, (unsigned long long)k.salvaged_batches);
	/* Live threads' words since their last batch, read at detach. */
	if (k.taken_batches && used < sizeof(more))
		snprintf(more + used, sizeof(more) - used,
			 ", %llu words of %llu live %s read at detach",
			 (unsigned long long)k.taken_words, (unsigned long long)k.taken_batches,
			 k.taken_batches == 1 ? "thread" : "threads");
	record_usage_text(extra, sizeof(extra), more);
	rs.failed = record_sink_close(&rs, &o, extra);
	bc_report_loss(&k);
	report_oversized_batches(&o, o_->bpf.record_words, &k);
	if (counters)
		record_counters_close(counters);
	free(counters);
	bc_close(c);
	rc = child > 0 ? child_exit_code(status) : 0;
	return rs.failed && rc == 0 ? 1 : rc;
}
