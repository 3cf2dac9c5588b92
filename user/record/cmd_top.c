/* SPDX-License-Identifier: MIT */
/*
 * cmd_top.c — `wpptrace top -p PID...`: the hottest paths of running
 * programs built with -fwpp-mode=count (-a: every such process of the
 * system, found as they start), refreshed every interval, like top(1).  Nothing is recorded and
 * nothing is stopped: each interval reads every process's path counters from its memory
 * (count_snapshot.h, the registry's way in) and shows the paths that ran most since the previous
 * read, with their function and source lines (the TU's metadata, through
 * the symbolizer).  Its own CPU time is printed at the end.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "count_snapshot.h"
#include "json_out.h"
#include "log.h"
#include "opt_error.h"
#include "path_regen.h"
#include "procinfo.h"
#include "registry.h"
#include "session.h"
#include "symbolizer.h"

#define MAX_PROCS 4096
#define MAX_TUS	  4096

struct top_proc {
	pid_t pid;
	uint64_t start; /* start time (clock ticks): a reused pid is another process */
	uint64_t counts;
	struct wpp_brec_register *tus;
	unsigned ntus;
	struct count_snapshot prev;
	int gone;
};

struct top_row {
	pid_t pid;
	const struct wpp_fn *fn; /* NULL: not resolvable */
	uint32_t fid;
	uint64_t id, count;
	uint32_t line_min, line_max;
};

static void keep_tu(const struct wpp_brec_register *r, void *arg)
{
	struct top_proc *p = arg;
	if (p->ntus < MAX_TUS)
		p->tus[p->ntus++] = *r;
}

static int load_registry(struct top_proc *p, int quiet)
{
	struct registry_info info;
	p->ntus = 0;
	int err = registry_read(p->pid, keep_tu, p, &info);
	if (quiet)
		;
	else if (err == -ENOENT)
		wpp_err("top: pid %d is not instrumented (no %s)", (int)p->pid, "__wpp_registry");
	else if (err == -ESRCH)
		wpp_err("top: no process %d", (int)p->pid);
	else if (err)
		wpp_err("top: pid %d: cannot read its registry (%s)", (int)p->pid, strerror(-err));
	else if (!info.counts)
		wpp_err(
		    "top: pid %d: its runtime keeps no path counters (older than counting mode)",
		    (int)p->pid);
	p->counts = info.counts;
	return err || !info.counts ? -1 : 0;
}

static const struct wpp_fn *resolve(struct wpp_symbolizer *sym, const struct top_proc *p,
				    uint32_t fid)
{
	for (unsigned i = 0; i < p->ntus; i++) {
		const struct wpp_brec_register *r = &p->tus[i];
		if (fid < r->fid_base || fid - r->fid_base >= r->nfuncs || !r->entry_ok)
			continue;
		const struct wpp_tu *tu =
		    wpp_sym_tu(sym, r->path, r->build_id, r->build_id_len, r->tu_hash);
		if (!tu || fid - r->fid_base >= tu->nfuncs)
			return NULL;
		return tu->by_local[fid - r->fid_base];
	}
	return NULL;
}

/* The source line span of the path's blocks (0, 0 if none). */
static void line_span(struct top_row *r)
{
	struct wpp_path path;
	uint32_t *blocks;
	r->line_min = r->line_max = 0;
	if (!r->fn || !(blocks = malloc(((size_t)r->fn->nblocks + 1) * sizeof(*blocks))))
		return;
	if (wpp_path_expand(r->fn, r->id, blocks, r->fn->nblocks + 1, &path) == 0)
		for (uint32_t i = 0; i < path.nblocks; i++) {
			const struct wpp_meta_line *l = wpp_fn_block_line(r->fn, path.blocks[i]);
			if (!l || !l->line)
				continue;
			if (!r->line_min || l->line < r->line_min)
				r->line_min = l->line;
			if (l->line > r->line_max)
				r->line_max = l->line;
		}
	free(blocks);
}

static int by_count(const void *x, const void *y)
{
	const struct top_row *a = x, *b = y;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->fid != b->fid)
		return a->fid < b->fid ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

struct top_opts {
	double interval;
	long iterations, rows;
	int json;
	int all; /* -a: an interval with no process is still an interval */
};

static void print_interval(const struct top_opts *o, long k, struct top_row *rows, size_t n,
			   uint64_t total, unsigned live)
{
	size_t shown = o->rows && (size_t)o->rows < n ? (size_t)o->rows : n; /* 0: all */
	if (o->json) {
		printf("{\"interval\":%ld,\"seconds\":%.3f,\"processes\":%u,\"total\":%" PRIu64
		       ",\"paths\":[",
		       k, o->interval, live, total);
		for (size_t i = 0; i < shown; i++) {
			const struct top_row *r = &rows[i];
			printf("%s{\"pid\":%d,\"function\":", i ? "," : "", (int)r->pid);
			json_str(stdout, r->fn ? r->fn->name : "?");
			printf(",\"fid\":%" PRIu32 ",\"path\":%" PRIu64 ",\"count\":%" PRIu64
			       ",\"share\":%.4f,\"file\":",
			       r->fid, r->id, r->count,
			       total ? (double)r->count / (double)total : 0);
			json_str(stdout, r->fn && r->fn->file ? r->fn->file : "");
			printf(",\"line_min\":%" PRIu32 ",\"line_max\":%" PRIu32 "}", r->line_min,
			       r->line_max);
		}
		printf("]}\n");
	} else {
		printf("top: interval %ld (%.2f s): %" PRIu64 " path executions in %u process%s\n",
		       k, o->interval, total, live, live == 1 ? "" : "es");
		printf("%12s %6s %8s %-28s %10s %s\n", "count", "%", "pid", "function", "path",
		       "lines");
		for (size_t i = 0; i < shown; i++) {
			const struct top_row *r = &rows[i];
			char lines[32] = "?";
			if (r->line_min)
				snprintf(lines, sizeof(lines), "%" PRIu32 "-%" PRIu32, r->line_min,
					 r->line_max);
			printf("%12" PRIu64 " %6.2f %8d %-28.28s %10" PRIu64 " %s\n", r->count,
			       total ? 100.0 * (double)r->count / (double)total : 0.0, (int)r->pid,
			       r->fn ? r->fn->name : "?", r->id, lines);
		}
		printf("\n");
	}
	fflush(stdout);
}

/* One interval: every live process's delta, merged into rows. */
static int one_interval(const struct top_opts *o, long k, struct top_proc *ps, int np,
			struct wpp_symbolizer *sym)
{
	struct top_row *rows = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	unsigned live = 0;

	for (int i = 0; i < np; i++) {
		struct top_proc *p = &ps[i];
		struct count_snapshot now, d;
		if (p->gone)
			continue;
		int err = count_snapshot_read(p->pid, p->counts, &now);
		if (err) {
			/* its last counts were drained into a stream (if recorded) */
			fprintf(stderr, "wpptrace: top: pid %d %s\n", (int)p->pid,
				err == -ESRCH ? "exited" : "can no longer be read");
			p->gone = 1;
			continue;
		}
		live++;
		if (count_snapshot_delta(&p->prev, &now, &d)) {
			count_snapshot_free(&now);
			free(rows);
			return -1;
		}
		count_snapshot_free(&p->prev);
		p->prev = now;
		if (n + d.n > cap) {
			cap = (n + d.n) * 2 + 16;
			struct top_row *g = realloc(rows, cap * sizeof(*rows));
			if (!g) {
				count_snapshot_free(&d);
				free(rows);
				return -1;
			}
			rows = g;
		}
		int reloaded = 0;
		for (size_t j = 0; j < d.n; j++) {
			const struct wpp_fn *fn = resolve(sym, p, d.s[j].fid);
			if (!fn && !reloaded) { /* a TU registered since (dlopen) */
				reloaded = 1;
				if (load_registry(p, 1) == 0)
					fn = resolve(sym, p, d.s[j].fid);
			}
			rows[n++] =
			    (struct top_row){p->pid, fn, d.s[j].fid, d.s[j].id, d.s[j].count, 0, 0};
			total += d.s[j].count;
		}
		count_snapshot_free(&d);
	}
	if (!live && !o->all) {
		free(rows);
		return 1;
	}
	if (n)
		qsort(rows, n, sizeof(*rows), by_count);
	for (size_t i = 0; i < n && i < (size_t)o->rows; i++)
		line_span(&rows[i]);
	print_interval(o, k, rows, n, total, live);
	free(rows);
	return 0;
}

struct top_set {
	struct top_proc *v;
	int n, cap;
	struct top_proc *seen; /* -a: processes looked at and not counting */
	size_t nseen, capseen;
};

static int known(const struct top_proc *v, size_t n, pid_t pid, uint64_t start)
{
	for (size_t i = 0; i < n; i++)
		if (v[i].pid == pid && v[i].start == start)
			return 1;
	return 0;
}

/* -a: every process not looked at yet (a pid and start time) whose
 * runtime keeps path counters joins, its counts so far as the baseline;
 * the others are remembered so they are not looked at again. */
static void discover(struct top_set *s)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end;
		long v = strtol(e->d_name, &end, 10);
		if (*end || v <= 0 || v == (long)getpid())
			continue;
		pid_t pid = (pid_t)v;
		uint64_t start = proc_start_time(pid);
		if (!start || known(s->v, (size_t)s->n, pid, start) ||
		    known(s->seen, s->nseen, pid, start))
			continue;
		struct top_proc p = {.pid = pid, .start = start};
		if ((p.tus = calloc(MAX_TUS, sizeof(*p.tus))) && s->n < MAX_PROCS &&
		    load_registry(&p, 1) == 0 && count_snapshot_read(pid, p.counts, &p.prev) == 0) {
			if (s->n == s->cap) {
				int cap = s->cap ? 2 * s->cap : 16;
				struct top_proc *g = realloc(s->v, (size_t)cap * sizeof(*g));
				if (!g) {
					count_snapshot_free(&p.prev);
					free(p.tus);
					continue;
				}
				s->v = g, s->cap = cap;
			}
			s->v[s->n++] = p;
			continue;
		}
		free(p.tus);
		if (s->nseen == s->capseen) {
			size_t cap = s->capseen ? 2 * s->capseen : 256;
			struct top_proc *g = realloc(s->seen, cap * sizeof(*g));
			if (!g)
				continue;
			s->seen = g, s->capseen = cap;
		}
		s->seen[s->nseen++] = (struct top_proc){.pid = pid, .start = start};
	}
	closedir(d);
}

/* SIGINT/SIGTERM end the watch after the current interval's sleep: the
 * end line (its own CPU) is still printed and the exit status is 0. */
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

/* Returns early when a stop signal came. */
static void sleep_for(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR && !stop_requested)
		;
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int known_pid(const struct top_set *set, pid_t pid)
{
	for (int i = 0; i < set->n; i++)
		if (set->v[i].pid == pid)
			return 1;
	return 0;
}

static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
	       ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
}

int cmd_top(int argc, char **argv)
{
	static const struct option opts[] = {{"pid", required_argument, NULL, 'p'},
					     {"all", no_argument, NULL, 'a'},
					     {"delay", required_argument, NULL, 'd'},
					     {"iterations", required_argument, NULL, 'n'},
					     {"top", required_argument, NULL, 't'},
					     {"format", required_argument, NULL, 'f'},
					     {NULL, 0, NULL, 0}};
	struct top_opts o = {1.0, 0, 20, 0, 0};
	struct top_set set = {0};
	int c, all = 0, rc = WPP_EXIT_OK;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:ad:n:t:f:", opts, NULL)) != -1) {
		long v;
		char *end;
		switch (c) {
		case 'p':
			if (parse_count_opt("top", "pid", optarg, &v))
				goto usage;
			if (v <= 0 || v > INT32_MAX) {
				wpp_err("top: -p takes a process id, not '%s'", optarg);
				goto usage;
			}
			if (known_pid(&set, (pid_t)v))
				break; /* named twice: watched once */
			if (set.n == 64) {
				wpp_err("top: -p takes up to 64 process ids");
				goto usage;
			}
			if (set.n == set.cap) {
				set.cap = 64;
				if (!(set.v = calloc((size_t)set.cap, sizeof(*set.v)))) {
					wpp_err("top: out of memory");
					return WPP_EXIT_ERROR;
				}
			}
			set.v[set.n++] = (struct top_proc){.pid = (pid_t)v};
			break;
		case 'a':
			all = o.all = 1;
			break;
		case 'd':
			o.interval = strtod(optarg, &end);
			if (*end || !(o.interval >= 0.01 && o.interval <= 86400)) {
				wpp_err("top: -d takes seconds (0.01 to 86400), not '%s'", optarg);
				goto usage;
			}
			break;
		case 'n':
		case 't':
			if (parse_count_opt("top", c == 'n' ? "iterations" : "top", optarg,
					    c == 'n' ? &o.iterations : &o.rows))
				goto usage;
			break;
		case 'f':
			if (strcmp(optarg, "json") && strcmp(optarg, "text")) {
				wpp_err("top: --format takes text or json, not '%s'", optarg);
				goto usage;
			}
			o.json = !strcmp(optarg, "json");
			break;
		default:
			free(set.v);
			return bad_option("top", c, argv, opts);
		}
	}
	if (optind != argc) {
		wpp_err("top: unexpected argument '%s' (try wpptrace help top)", argv[optind]);
		goto usage;
	}
	if (set.n && all) {
		wpp_err("top: -p and -a do not go together (try wpptrace help top)");
		goto usage;
	}
	if (!set.n && !all) {
		wpp_err("top: expected -p PID or -a (try wpptrace help top)");
		goto usage;
	}
	for (int i = 0; i < set.n; i++) {
		struct top_proc *p = &set.v[i];
		p->start = proc_start_time(p->pid);
		p->tus = calloc(MAX_TUS, sizeof(*p->tus));
		if (!p->tus || load_registry(p, 0) ||
		    count_snapshot_read(p->pid, p->counts, &p->prev)) {
			if (p->tus && p->counts)
				wpp_err("top: pid %d: cannot read its path counters", (int)p->pid);
			set.n = i + 1;
			rc = WPP_EXIT_ERROR;
			goto out;
		}
	}
	struct wpp_symbolizer *sym = wpp_sym_new();
	long k;
	if (all)
		discover(&set); /* the first look at every process: not an interval's cost */
	double cpu0 = cpu_seconds(), t0 = now_seconds();
	catch_stop_signals();
	for (k = 1; (!o.iterations || k <= o.iterations) && !stop_requested; k++) {
		sleep_for(o.interval);
		if (stop_requested)
			break;
		int r = one_interval(&o, k, set.v, set.n, sym);
		if (r < 0) {
			wpp_err("top: out of memory");
			rc = WPP_EXIT_ERROR;
			break;
		}
		if (r > 0 && !all)
			break; /* every process is gone */
		if (all)
			discover(&set); /* new ones count from the next interval */
	}
	double cpu = cpu_seconds() - cpu0, wall = now_seconds() - t0;
	fprintf(stderr, "wpptrace: top: own CPU %.1f ms in %.1f s (%.2f%% of one CPU)\n", 1e3 * cpu,
		wall, wall > 0 ? 100.0 * cpu / wall : 0.0);
	wpp_sym_free(sym);
out:
	for (int i = 0; i < set.n; i++) {
		count_snapshot_free(&set.v[i].prev);
		free(set.v[i].tus);
	}
	free(set.v);
	free(set.seen);
	return rc;
usage:
	free(set.v);
	return WPP_EXIT_USAGE;
}
