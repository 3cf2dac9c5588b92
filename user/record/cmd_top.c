/* SPDX-License-Identifier: MIT */
/*
 * cmd_top.c — `wpptrace top -p PID... | -a`: the hottest paths of running
 * instrumented programs, refreshed every interval, like top(1).  Nothing
 * is recorded and nothing is stopped.  Two sources give the same rows:
 * counting builds' counters read from memory (top_count.h) and tracing
 * builds' path words counted as they come over BPF (top_trace.h); a
 * process mixing both kinds of TU shows both.  Rows are per process or,
 * with --merge, per binary (top_rows.h).  Its own CPU time is printed at
 * the end.
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "common/log.h"
#include "common/options.h"
#include "record/record_ready.h"
#include "decode/session.h"
#include "symbolizer/symbolizer.h"
#include "record/top_count.h"
#include "record/top_rows.h"
#include "record/top_trace.h"

#define MAX_PIDS 64

struct top_opts {
	double interval;
	long iterations, rows;
	int json, merge, all, ready_fd;
	pid_t pids[MAX_PIDS];
	int npids;
};

/* SIGINT/SIGTERM (or `q`) end the watch during the current interval's
 * sleep: the end line (its own CPU) is still printed, the probes are
 * detached and the exit status is 0. */
static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void catch_stop_signals(void)
{
	struct sigaction sa = {.sa_handler = on_stop_signal}; /* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* On a terminal top runs in the foreground of, `q` ends it as a stop
 * signal does: the terminal reads keys unechoed until top ends.  A
 * background top (whose tcsetattr would stop it) leaves it alone. */
static struct termios saved_tty;
static int keys_on;

static void keys_start(void)
{
	struct termios t;
	if (!isatty(STDIN_FILENO) || tcgetpgrp(STDIN_FILENO) != getpgrp() ||
	    tcgetattr(STDIN_FILENO, &saved_tty))
		return;
	t = saved_tty;
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 0;
	t.c_cc[VTIME] = 0;
	keys_on = tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0;
}

static void keys_stop(void)
{
	if (keys_on)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved_tty);
	keys_on = 0;
}

/* Returns early when a stop signal or `q` came. */
static void sleep_for(double s)
{
	double end = now_seconds() + s, left;
	while (!stop_requested && (left = end - now_seconds()) > 0) {
		struct pollfd pf = {.fd = STDIN_FILENO, .events = POLLIN};
		char key;
		if (poll(&pf, keys_on ? 1 : 0, (int)(left * 1000) + 1) <= 0)
			continue;
		if (read(STDIN_FILENO, &key, 1) != 1)
			keys_stop(); /* hung up: no more keys */
		else if (key == 'q' || key == 'Q')
			stop_requested = 1;
	}
}

static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	       ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

static const struct opt_command top_cmd = {
    .name = "top",
    .usage = "top -p PID [-p PID...] | -a  [options]",
    .about = "Every -d seconds, the paths that ran most in the interval in\n"
	     "running programs built with wppcc (-a: every such process, also those that\n"
	     "start later): count, share, pid, function, path id and source lines.\n"
	     "Counting builds (-fwpp-mode=count) are read from memory; tracing builds'\n"
	     "path words are counted as they arrive over BPF (root), nothing written; a\n"
	     "full ring drops words, counted as lost in the header.  Nothing is stopped,\n"
	     "and at the end the probes are detached.  Its own CPU time is printed on\n"
	     "stderr at the end.\n"};

/* -p PID (repeatable; a pid named twice is watched once) */
static int add_pid(const struct opt *self, const char *arg)
{
	struct top_opts *o = self->ctx;
	long v;
	int seen = 0;

	if (parse_count_opt("top", "pid", arg, &v))
		return -1;
	if (v <= 0 || v > INT32_MAX) {
		wpp_err("top: -p takes a process id, not '%s'", arg);
		return -1;
	}
	for (int i = 0; i < o->npids; i++)
		seen |= o->pids[i] == (pid_t)v;
	if (seen)
		return 0;
	if (o->npids == MAX_PIDS) {
		wpp_err("top: -p takes up to %d process ids", MAX_PIDS);
		return -1;
	}
	o->pids[o->npids++] = (pid_t)v;
	return 0;
}

static int set_interval(const struct opt *self, const char *arg)
{
	double *interval = self->ctx;
	char *end;

	*interval = strtod(arg, &end);
	if (*end || !(*interval >= 0.01 && *interval <= 86400)) {
		wpp_err("top: -d takes seconds (0.01 to 86400), not '%s'", arg);
		return -1;
	}
	return 0;
}

static int set_ready_fd(const struct opt *self, const char *arg)
{
	return record_ready_parse("top", arg, self->ctx);
}

/* 0 = run, 1 = usage error (said), -1 = the help was printed. */
static int parse(int argc, char **argv, struct top_opts *o)
{
	int rc, first;
	struct opt table[] = {
	    OPT_CALL_('p', "pid", "PID", "watch this process (repeatable)", add_pid, o, 0),
	    OPT_FLAG_('a', "all", "every instrumented process, also those that start later",
		      &o->all),
	    OPT_CALL_('d', "delay", "SECS", "seconds between refreshes (0.01 to 86400; default 1)",
		      set_interval, &o->interval, 0),
	    OPT_COUNT_('n', "iterations", "N",
		       "stop after N intervals (default: until the processes exit;\n"
		       "-a: until q, SIGINT or SIGTERM)",
		       &o->iterations, 0, LONG_MAX, 0),
	    OPT_COUNT_('t', "top", "N", "rows per interval; 0: all", &o->rows, 0, LONG_MAX,
		       OPT_SHOW_DEFAULT),
	    OPT_FLAG_(0, "merge", "rows summed per binary (build-id), with the number of processes",
		      &o->merge),
	    OPT_WORD_('f', "format", "text, or json: one line per interval", &o->json,
		      opt_text_json, OPT_SHOW_DEFAULT),
	    OPT_CALL_(0, "ready-fd", "N", "\"ready\" on fd N once watching has begun", set_ready_fd,
		      &o->ready_fd, 0),
	    OPT_END_,
	};

	if ((rc = opts_parse(&top_cmd, table, argc, argv, &first)) != 0)
		return rc > 0 ? -1 : 1;
	if (first != argc) {
		wpp_err("top: unexpected argument '%s' (try wpptrace help top)", argv[first]);
		return 1;
	}
	if (o->npids && o->all) {
		wpp_err("top: -p and -a do not go together (try wpptrace help top)");
		return 1;
	}
	if (!o->npids && !o->all) {
		wpp_err("top: expected -p PID or -a (try wpptrace help top)");
		return 1;
	}
	return 0;
}

/* The processes named by -p, each in the reader of its kind; the tracing
 * ones need BPF.  0, or -1 after one line. */
static int watch_pids(const struct top_opts *o, struct top_count *count, struct wpp_symbolizer *sym,
		      struct top_trace **trace)
{
	pid_t tracing[MAX_PIDS];
	int ntracing = 0;
	for (int i = 0; i < o->npids; i++) {
		int traces, counts;
		if (top_count_add_pid(count, sym, o->pids[i], &traces, &counts))
			return -1;
		if (!traces)
			continue;
		if (!top_trace_allowed()) {
			if (!counts) {
				wpp_err("top: pid %d runs a tracing build: watching it needs the "
					"BPF transport (root, or CAP_BPF and CAP_PERFMON)",
					(int)o->pids[i]);
				return -1;
			}
			wpp_warn("top: pid %d: its tracing code is not watched (needs root, or "
				 "CAP_BPF and CAP_PERFMON); its counting code is",
				 (int)o->pids[i]);
			continue;
		}
		tracing[ntracing++] = o->pids[i];
	}
	if (ntracing && !(*trace = top_trace_open(0, tracing, ntracing)))
		return -1;
	return 0;
}

/* -a: tracing builds through BPF when allowed (one line if not). */
static int watch_all(struct top_trace **trace)
{
	if (!top_trace_allowed()) {
		wpp_warn("top: tracing builds are not watched without root (or CAP_BPF and "
			 "CAP_PERFMON): counting builds only");
		return 0;
	}
	return (*trace = top_trace_open(1, NULL, 0)) ? 0 : -1;
}

/* One interval: 0 printed, 1 nothing left to watch (-p), -1 no memory. */
static int one_interval(const struct top_opts *o, long k, struct top_count *count,
			struct top_trace *trace, struct wpp_symbolizer *sym)
{
	struct top_rows rows = {0};
	struct top_header h = {.interval = k, .seconds = o->interval, .tracing = trace != NULL};

	if (top_count_interval(count, sym, &rows, &h.skipped, &h.untraced) ||
	    (trace && top_trace_interval(trace, sym, &rows, &h.lost))) {
		top_rows_free(&rows);
		return -1;
	}
	int gone = !top_count_live(count) && (!trace || top_trace_all_exited(trace));
	if (!o->all && gone && !rows.npids) {
		top_rows_free(&rows);
		return 1;
	}
	h.processes = top_rows_processes(&rows);
	if (o->merge)
		top_rows_merge(&rows);
	top_rows_sort(&rows, (size_t)o->rows);
	top_rows_print(&rows, &h, (size_t)o->rows, o->json, o->merge);
	top_rows_free(&rows);
	return !o->all && gone ? 1 : 0;
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = {.interval = 1.0, .rows = 20, .ready_fd = -1};
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc < 0 ? WPP_EXIT_OK : WPP_EXIT_USAGE;

	struct wpp_symbolizer *sym = wpp_sym_new();
	struct top_count *count = top_count_new();
	struct top_trace *trace = NULL;
	if (!sym || !count) {
		wpp_err("top: out of memory");
		rc = WPP_EXIT_ERROR;
		goto out;
	}
	if (o.all ? watch_all(&trace) : watch_pids(&o, count, sym, &trace)) {
		rc = WPP_EXIT_ERROR;
		goto out;
	}
	if (o.all) /* the first look at every process: not an interval's cost */
		top_count_discover(count, sym, trace != NULL);
	if (wpp_verbosity >= 2)
		wpp_info("top: watching%s", trace ? " (tracing builds through BPF)" : "");
	record_ready_say(o.ready_fd);
	o.ready_fd = -1;
	double cpu0 = cpu_seconds(), t0 = now_seconds();
	catch_stop_signals();
	keys_start();
	for (long k = 1; (!o.iterations || k <= o.iterations) && !stop_requested; k++) {
		sleep_for(o.interval);
		if (stop_requested)
			break;
		int r = one_interval(&o, k, count, trace, sym);
		if (r < 0) {
			wpp_err("top: out of memory");
			rc = WPP_EXIT_ERROR;
			break;
		}
		if (r > 0)
			break; /* every process is gone */
		if (o.all)
			top_count_discover(
			    count, sym, trace != NULL); /* new ones count from the next interval */
	}
	keys_stop();
	double cpu = cpu_seconds() - cpu0, wall = now_seconds() - t0;
	fprintf(stderr, "wpptrace: top: own CPU %.1f ms in %.1f s (%.2f%% of one CPU)\n", 1e3 * cpu,
		wall, wall > 0 ? 100.0 * cpu / wall : 0.0);
out:
	if (o.ready_fd >= 0)
		close(o.ready_fd); /* failed before watching: the reader sees end of file */
	top_trace_close(trace);
	top_count_free(count);
	wpp_sym_free(sym);
	return rc;
}
