/* SPDX-License-Identifier: MIT */
/* top_count.c — counting builds under `wpptrace top` (see top_count.h). */
#include "record/top_count.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/count_snapshot.h"
#include "common/log.h"
#include "bpfcollect/procinfo.h"
#include "bpfcollect/registry.h"
#include "wpp/meta_format.h"
#include "common/array_grow.h"

#define MAX_PROCS 4096
#define MAX_TUS	  4096

struct top_proc {
	pid_t pid;
	uint64_t start; /* start time (clock ticks): a reused pid is another process */
	uint64_t counts;
	const struct top_tu **tus;
	unsigned ntus, tus_cap;
	struct count_snapshot prev;
	int untraced; /* has tracing TUs nobody watches */
};

/* A process -a looked at and does not watch here. */
enum seen_why { SEEN_OTHER, SEEN_UNREADABLE, SEEN_UNTRACED };
struct seen {
	pid_t pid;
	uint64_t start;
	enum seen_why why;
};

struct top_count {
	struct top_tus *tus;
	struct top_proc *v;
	int n, cap;
	struct seen *seen;
	size_t nseen, capseen;
	unsigned skipped_now, untraced_now; /* as the last discovery found them */
};

struct top_count *top_count_new(void)
{
	struct top_count *c = calloc(1, sizeof(*c));
	if (c && !(c->tus = top_tus_new())) {
		free(c);
		return NULL;
	}
	return c;
}

static void proc_free(struct top_proc *p)
{
	count_snapshot_free(&p->prev);
	free(p->tus);
}

void top_count_free(struct top_count *c)
{
	if (!c)
		return;
	for (int i = 0; i < c->n; i++)
		proc_free(&c->v[i]);
	free(c->v);
	free(c->seen);
	top_tus_free(c->tus);
	free(c);
}

int top_count_live(const struct top_count *c)
{
	return c->n;
}

struct load_ctx {
	struct top_count *c;
	struct top_proc *p;
	int failed;
};

static void keep_tu(const struct wpp_brec_register *r, void *arg)
{
	struct load_ctx *l = arg;
	struct top_proc *p = l->p;
	if (!r->entry_ok || p->ntus == MAX_TUS)
		return; /* no path: its metadata cannot be found */
	if (ARRAY_GROW(p->tus, p->tus_cap, (size_t)p->ntus + 1, 8)) {
		l->failed = 1;
		return;
	}
	struct top_tu tu = {.fid_base = r->fid_base,
			    .nfuncs = r->nfuncs,
			    .tu_hash = r->tu_hash,
			    .build_id_len = r->build_id_len,
			    .path = r->path};
	memcpy(tu.build_id, r->build_id, sizeof(tu.build_id));
	const struct top_tu *in = top_tus_intern(l->c->tus, &tu);
	if (in)
		p->tus[p->ntus++] = in;
	else
		l->failed = 1;
}

/* p's TUs and counters' address from its registry: 0 or -errno, -EAGAIN
 * while no TU has registered (a process in its loader: registry.h). */
static int load_registry(struct top_count *c, struct top_proc *p)
{
	struct registry_info info;
	struct load_ctx l = {c, p, 0};
	p->ntus = 0;
	int err = registry_read(p->pid, keep_tu, &l, &info);
	p->counts = err ? 0 : info.counts;
	if (!err && !info.registered)
		err = -EAGAIN;
	return err ? err : l.failed ? -ENOMEM : 0;
}

/* Does a TU of p trace (or have unusable metadata: its words, if any, are
 * read as a trace's)?  A runtime that keeps counters is watched here
 * whatever its TUs are (count TUs may register later, dlopen): reading an
 * empty list of counters costs one pread. */
static int traces(struct wpp_symbolizer *sym, const struct top_proc *p)
{
	for (unsigned i = 0; i < p->ntus; i++)
		if (!wpp_meta_mode_counts(top_tu_mode(sym, NULL, p->tus[i])))
			return 1;
	return 0;
}

static int counts(struct wpp_symbolizer *sym, const struct top_proc *p)
{
	for (unsigned i = 0; i < p->ntus; i++)
		if (wpp_meta_mode_counts(top_tu_mode(sym, NULL, p->tus[i])))
			return 1;
	return 0;
}

static int add_proc(struct top_count *c, struct top_proc *p)
{
	if (ARRAY_GROW(c->v, c->cap, (size_t)c->n + 1, 16))
		return -1;
	c->v[c->n++] = *p;
	return 0;
}

int top_count_add_pid(struct top_count *c, struct wpp_symbolizer *sym, pid_t pid, int *tracing,
		      int *counting)
{
	struct top_proc p = {.pid = pid, .start = proc_start_time(pid)};
	int err = load_registry(c, &p);
	*tracing = *counting = 0;
	if (err == -ENOENT)
		wpp_err("top: pid %d is not instrumented (no %s)", (int)pid, "__wpp_registry");
	else if (err == -ESRCH)
		wpp_err("top: no process %d", (int)pid);
	else if (err == -EAGAIN)
		wpp_err("top: pid %d has not started its runtime yet (no TU registered)", (int)pid);
	else if (err)
		wpp_err("top: pid %d: cannot read its registry (%s)", (int)pid, strerror(-err));
	if (err) {
		proc_free(&p);
		return -1;
	}
	*tracing = traces(sym, &p);
	if (!p.counts) {
		if (!*tracing)
			wpp_err(
			    "top: pid %d: its runtime keeps no path counters (older than counting "
			    "mode) and it has no tracing code",
			    (int)pid);
		proc_free(&p);
		return *tracing ? 0 : -1;
	}
	if ((err = count_snapshot_read(pid, p.counts, &p.prev))) {
		wpp_err("top: pid %d: cannot read its path counters (%s)", (int)pid,
			strerror(-err));
		proc_free(&p);
		return -1;
	}
	if (add_proc(c, &p)) {
		wpp_err("top: out of memory");
		proc_free(&p);
		return -1;
	}
	*counting = counts(sym, &p);
	return 0;
}

static int known_proc(const struct top_count *c, pid_t pid, uint64_t start)
{
	for (int i = 0; i < c->n; i++)
		if (c->v[i].pid == pid && c->v[i].start == start)
			return 1;
	return 0;
}

static struct seen *known_seen(const struct top_count *c, pid_t pid, uint64_t start)
{
	for (size_t i = 0; i < c->nseen; i++)
		if (c->seen[i].pid == pid && c->seen[i].start == start)
			return &c->seen[i];
	return NULL;
}

static void remember(struct top_count *c, pid_t pid, uint64_t start, enum seen_why why)
{
	if (ARRAY_GROW(c->seen, c->capseen, c->nseen + 1, 256))
		return;
	c->seen[c->nseen++] = (struct seen){pid, start, why};
}

/* A process looked at for the first time: watched, or remembered. */
static void look_at(struct top_count *c, struct wpp_symbolizer *sym, pid_t pid, uint64_t start,
		    int tracing_watched)
{
	struct top_proc p = {.pid = pid, .start = start};
	int err = c->n < MAX_PROCS ? load_registry(c, &p) : -ENOSPC;
	if (err == -EAGAIN) { /* in its loader: looked at again next time */
		proc_free(&p);
		return;
	}
	p.untraced = !err && !tracing_watched && traces(sym, &p);
	/* Whatever its TUs are now: count TUs may register later (dlopen). */
	if (!err && p.counts && count_snapshot_read(pid, p.counts, &p.prev) == 0 &&
	    add_proc(c, &p) == 0)
		return;
	proc_free(&p);
	int unreadable = err == -EACCES || err == -EPERM;
	/* Counted in the header line as "skipped"; -v names them (as root,
	 * a process whose executable is hidden from it, such as some VMs'
	 * init). */
	if (unreadable)
		wpp_info("top: pid %d skipped: cannot read its memory or executable (%s)", (int)pid,
			 strerror(-err));
	remember(c, pid, start,
		 unreadable   ? SEEN_UNREADABLE
		 : p.untraced ? SEEN_UNTRACED
			      : SEEN_OTHER);
}

void top_count_discover(struct top_count *c, struct wpp_symbolizer *sym, int tracing_watched)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	unsigned skipped = 0, untraced = 0;
	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end;
		long v = strtol(e->d_name, &end, 10);
		if (*end || v <= 0 || v == (long)getpid())
			continue;
		pid_t pid = (pid_t)v;
		uint64_t start = proc_start_time(pid);
		if (!start || known_proc(c, pid, start))
			continue;
		const struct seen *s = known_seen(c, pid, start);
		if (!s) {
			look_at(c, sym, pid, start, tracing_watched);
			s = known_seen(c, pid, start);
		}
		skipped += s && s->why == SEEN_UNREADABLE;
		untraced += s && s->why == SEEN_UNTRACED;
	}
	closedir(d);
	c->skipped_now = skipped;
	c->untraced_now = untraced;
}

/* The function of fid in p, its TU in *tu (NULL: none holds fid). */
static const struct wpp_fn *resolve(struct wpp_symbolizer *sym, struct top_tu_cache *cache,
				    const struct top_proc *p, uint32_t fid,
				    const struct top_tu **tu)
{
	for (unsigned i = 0; i < p->ntus; i++)
		if (fid >= p->tus[i]->fid_base && fid - p->tus[i]->fid_base < p->tus[i]->nfuncs) {
			*tu = p->tus[i];
			return top_tu_fn(sym, cache, p->tus[i], fid);
		}
	*tu = NULL;
	return NULL;
}

/* p's paths since the previous read into rows: 0, 1 (p is gone: said),
 * -1 without memory. */
static int read_proc(struct top_count *c, struct wpp_symbolizer *sym, struct top_proc *p,
		     struct top_rows *rows)
{
	struct count_snapshot now, d;
	int err = count_snapshot_read(p->pid, p->counts, &now);
	if (err) {
		/* its last counts were drained into a stream (if recorded) */
		fprintf(stderr, "wpptrace: top: pid %d %s\n", (int)p->pid,
			err == -ESRCH ? "exited" : "can no longer be read");
		return 1;
	}
	if (top_rows_saw(rows, p->pid) || count_snapshot_delta(&p->prev, &now, &d)) {
		count_snapshot_free(&now);
		return -1;
	}
	count_snapshot_free(&p->prev);
	p->prev = now;
	int reloaded = 0;
	struct top_tu_cache cache = {0}; /* the samples come sorted by fid */
	for (size_t j = 0; j < d.n; j++) {
		const struct top_tu *tu;
		const struct wpp_fn *fn = resolve(sym, &cache, p, d.s[j].fid, &tu);
		if (!tu && !reloaded) { /* a TU registered since (dlopen) */
			reloaded = 1;
			if (load_registry(c, p) == 0)
				fn = resolve(sym, &cache, p, d.s[j].fid, &tu);
		}
		uint64_t id = d.s[j].id;
		/* a TPP function's counter: the path it stands for; its cold
		 * counter and loop pieces are no path to show */
		if (fn && fn->tpp && wpp_tpp_counter_path(fn, id, &id) != WPP_TPP_COUNTER_PATH)
			continue;
		struct top_row row = {.pid = p->pid,
				      .nprocs = 1,
				      .tu = tu,
				      .fn = fn,
				      .fid = d.s[j].fid,
				      .id = id,
				      .count = d.s[j].count};
		if (top_rows_add(rows, &row)) {
			count_snapshot_free(&d);
			return -1;
		}
	}
	count_snapshot_free(&d);
	return 0;
}

int top_count_interval(struct top_count *c, struct wpp_symbolizer *sym, struct top_rows *rows,
		       unsigned *skipped, unsigned *untraced)
{
	*skipped = c->skipped_now;
	*untraced = c->untraced_now;
	for (int i = 0; i < c->n;) {
		int r = read_proc(c, sym, &c->v[i], rows);
		if (r < 0)
			return -1;
		if (r > 0) {
			proc_free(&c->v[i]);
			c->v[i] = c->v[--c->n];
			continue;
		}
		*untraced += c->v[i].untraced;
		i++;
	}
	return 0;
}
