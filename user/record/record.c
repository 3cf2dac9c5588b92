/* SPDX-License-Identifier: MIT */
/*
 * record.c — `wpptrace record`: the command line, then one of the two
 * transports.  This file runs the shm one
 * (`wpptrace record --transport=shm -o run.wpp -- PROGRAM ARGS`);
 * record_bpf.c runs the BPF one (the default).
 *
 * Creates the shared region, hands its name to the program through the
 * environment, runs it, and drains the rings until every traced process
 * (forks and exec'd images included) is gone and every batch is written.
 * The program's stdio is untouched and its exit status becomes ours.
 */
#include "record/record.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/cpu_clock.h"
#include "common/log.h"
#include "record/record_child.h"
#include "record/record_info.h"
#include "record/record_live_counts.h"
#include "record/record_opts.h"
#include "record/record_bpf.h"
#include "record/record_ready.h"
#include "record/record_sink.h"
#include "kmod-free/shm_collector.h"
#include "common/wppfile.h"

/* One line per producer the collector cut off for breaking the protocol
 * (a traced process that wrote the shared region where it must not). */
static void report_cutoffs(struct wpp_shm_collector *col)
{
	const char *why;
	uint32_t pid;

	while (wpp_shm_collector_cutoff(col, &pid, &why))
		wpp_warn("record: producer %u misbehaved (%s): cut off", pid, why);
}

/* How the processes we reap ended: what tells a killed count build. */
static void reaped(void *arg, pid_t pid, int status)
{
	struct record_sink *rs = arg;
	if (rs->live_counts)
		record_live_counts_reaped(rs->live_counts, (uint32_t)pid, status);
}

/* A child's exit ends the collector's sleep: the program's last batches
 * are often drained before it is gone, and the recording then waited
 * for the wait's timeout (10 ms) to notice the exit — per process, each
 * step of a workload. */
static struct wpp_shm_collector *volatile exit_nudges;
static volatile sig_atomic_t child_exits;

static void child_exited(int sig)
{
	int saved = errno;
	(void)sig;
	child_exits++;
	if (exit_nudges)
		wpp_shm_collector_nudge(exit_nudges);
	errno = saved;
}

static void nudge_on_child_exit(struct wpp_shm_collector *col)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = child_exited;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	exit_nudges = col;
	sigaction(SIGCHLD, &sa, NULL);
}

#define REAP_NS (100 * 1000 * 1000ull)

/* Drain until the program and everything it started are gone; count
 * builds are read every snapshot interval (record_live_counts.h). */
static void record_loop(struct wpp_shm_collector *col, struct record_sink *rs,
			const struct wpp_shm_sink *ops, pid_t main, int *status)
{
	int main_reaped = 0, no_children = 0;
	sig_atomic_t reaped_exits = child_exits - 1; /* (reap on the first pass) */
	uint64_t reap_ns = 0;

	while (!no_children) {
		sig_atomic_t exits = child_exits;
		uint64_t now = monotonic_ns();
		/* Output broken: keep draining into nothing so the program runs
		 * to its end with its own output intact. */
		long n = wpp_shm_collector_drain(col, rs->failed ? &record_sink_drop : ops);
		report_cutoffs(col);
		if (n < 0) {
			rs->failed = 1;
			n = 1; /* drain again at once */
		}
		/* Only a child's exit changes what wait4 says, and SIGCHLD
		 * counts those (read before the drain: an exit after it is
		 * reaped by the next pass).  A wait4 on every pass was 2 % of
		 * lua's collector; every REAP_NS anyway, in case a signal
		 * went astray, costs nothing. */
		if (exits != reaped_exits || now - reap_ns >= REAP_NS) {
			reaped_exits = exits;
			reap_ns = now;
			no_children = child_reap_each(main, status, &main_reaped, reaped, rs);
		}
		if (rs->live_counts)
			record_live_counts_tick(rs->live_counts);
		/* Nothing more for now: the held batches go to the file
		 * before the collector sleeps, once they have waited long
		 * enough (the wait's 10 ms timeout brings us back). */
		if (n == 0 && record_sink_idle(rs) < 0)
			n = 1;
		/* (an exit since the reap: reap again rather than sleep) */
		if (n == 0 && !no_children && exits == child_exits)
			wpp_shm_collector_wait(col, 10);
	}
}

static int record_shm(struct record_opts *o_)
{
	struct record_opts o = *o_;
	struct wpp_shm_collector *col;
	struct record_sink rs;
	struct wpp_shm_sink ops;
	struct wpp_shm_totals tot;
	pid_t pid;
	int status = 0, err, rc;

	col = wpp_shm_collector_create(&o.shm);
	if (!col) {
		wpp_err("record: cannot create the shared memory region: %s", strerror(errno));
		return 1;
	}
	char lines[512];
	snprintf(lines, sizeof(lines),
		 "transport=shm\nbuffer_words=%u\nring_slots=%u\nsig_ring_slots=%u\n"
		 "max_threads=%u\nmax_procs=%u\n",
		 o.shm.buffer_words, o.shm.ring_slots, o.shm.sig_ring_slots, o.shm.max_threads,
		 o.shm.max_procs);
	if (record_sink_open(&rs, &o, lines) < 0) {
		wpp_shm_collector_destroy(col);
		return 1;
	}
	ops = record_sink_ops(&rs);
	/* A count build killed before its end drains nothing: its periodic
	 * snapshots are what is left of its counts. */
	if (!(rs.live_counts =
		  record_live_counts_new(&rs, (uint64_t)(o.snapshot_interval_s * 1e9)))) {
		wpp_err("out of memory");
		record_sink_abort(&rs, &o);
		wpp_shm_collector_destroy(col);
		return 1;
	}
	if (setenv(WPP_SHM_ENV, wpp_shm_collector_env(col), 1) < 0) {
		record_live_counts_free(rs.live_counts);
		record_sink_abort(&rs, &o);
		wpp_shm_collector_destroy(col);
		return 1;
	}
	child_prepare();
	nudge_on_child_exit(col);
	err = child_spawn(o.argv, &pid);
	unsetenv(WPP_SHM_ENV);
	if (err) {
		wpp_err("record: cannot run '%s': %s", o.argv[0], strerror(-err));
		record_live_counts_free(rs.live_counts);
		record_sink_abort(&rs, &o);
		wpp_shm_collector_destroy(col);
		return 127;
	}
	/* The program runs: the trace takes its name now (out_file.h), so a
	 * killed recording leaves what it wrote there.  A failure is said
	 * here and makes the end fail; the bytes go on into the temporary. */
	wppw_publish(rs.w);
	record_ready(o.ready_fd, "the program runs with the shared memory set up");
	record_loop(col, &rs, &ops, pid, &status);
	if (!rs.failed && wpp_shm_collector_finish(col, &ops) < 0)
		rs.failed = 1;
	if (rs.failed)
		wpp_shm_collector_finish(col, &record_sink_drop);
	/* Every batch is in: the last snapshots of the killed ones. */
	if (!rs.failed && record_live_counts_write(rs.live_counts, &rs, o.quiet) < 0)
		rs.failed = 1;
	record_live_counts_free(rs.live_counts);
	rs.live_counts = NULL;
	report_cutoffs(col);
	wpp_shm_collector_totals(col, &tot);
	/* Back-pressure and wake-ups, as the producers counted them: how
	 * often a program waited for ring space is what it paid the
	 * collector (docs/shm-transport.md). */
	char extra[288], waits[192], entries[64] = "";
	if (tot.entry_waits)
		snprintf(entries, sizeof(entries), ", for a free table entry %llu times",
			 (unsigned long long)tot.entry_waits);
	snprintf(waits, sizeof(waits),
		 ", producers waited for ring space %llu times (%llu timed out)%s, "
		 "rang the doorbell %llu times",
		 (unsigned long long)tot.space_waits, (unsigned long long)tot.space_wait_timeouts,
		 entries, (unsigned long long)tot.doorbell_wakes);
	record_usage_text(extra, sizeof(extra), waits);
	rs.failed = record_sink_close(&rs, &o, extra);
	if (tot.table_full)
		wpp_warn("record: %llu processes/threads/modules did not fit the tables "
			 "(raise --max-threads/--max-procs)",
			 (unsigned long long)tot.table_full);
	if (tot.misbehaved)
		wpp_warn("record: %llu producers were cut off for writing the shared region "
			 "out of protocol; their records end there",
			 (unsigned long long)tot.misbehaved);
	signal(SIGCHLD, SIG_DFL);
	exit_nudges = NULL;
	wpp_shm_collector_destroy(col);
	rc = child_exit_code(status);
	return rs.failed && rc == 0 ? 1 : rc;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	char exe[4096];
	int rc = record_parse_args(argc, argv, &o);

	if (rc)
		return rc > 0 ? 0 : 2;
	/* A program that cannot run is said before anything is set up or
	 * created (the exec itself may still fail; the output is only put in
	 * place once the program runs). */
	if (o.argv && (rc = child_resolve(o.argv[0], exe, sizeof(exe))) != 0) {
		wpp_err("record: cannot run '%s': %s", o.argv[0], strerror(-rc));
		return 127;
	}
	return o.transport == RECORD_SHM ? record_shm(&o) : record_bpf(&o);
}
