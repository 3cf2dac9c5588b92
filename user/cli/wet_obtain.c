/* SPDX-License-Identifier: MIT */
/*
 * wet_obtain.c — a thread's WET for the `wpptrace wet` commands
 * (wet_obtain.h): read from the recording, or built from the decoder's
 * events and stored.
 */
#include "cli/wet_obtain.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/commands.h"
#include "common/log.h"
#include "symbolizer/meta_wet_model.h"
#include "analysis/wet/wet_shadow.h"
#include "cli/wet_store.h"
#include "decode/wet_values.h"

/* Pages other threads of the process store to (their loads' writers
 * cannot be ordered against this thread's: unknown). */
struct pages {
	uint64_t *v; /* page + 1, 0 empty */
	size_t cap, n;
};

static int pages_has(const struct pages *p, uint64_t page)
{
	if (!p->cap)
		return 0;
	for (size_t j = (page * UINT64_C(0x9e3779b97f4a7c15)) & (p->cap - 1); p->v[j];
	     j = (j + 1) & (p->cap - 1))
		if (p->v[j] == page + 1)
			return 1;
	return 0;
}

static void pages_add(struct pages *p, uint64_t page)
{
	if (pages_has(p, page))
		return;
	if ((p->n + 1) * 2 > p->cap) {
		struct pages np = {.cap = p->cap ? 2 * p->cap : 1024};
		np.v = calloc(np.cap, sizeof(*np.v));
		if (!np.v)
			wpp_die("out of memory");
		for (size_t j = 0; j < p->cap; j++)
			if (p->v[j])
				pages_add(&np, p->v[j] - 1);
		free(p->v);
		*p = np;
	}
	size_t j = (page * UINT64_C(0x9e3779b97f4a7c15)) & (p->cap - 1);
	while (p->v[j])
		j = (j + 1) & (p->cap - 1);
	p->v[j] = page + 1;
	p->n++;
}

static int page_shared(void *ctx, uint64_t page)
{
	return pages_has(ctx, page);
}

static int collect_stores(struct session *s, const struct wpp_thread_trace *th, struct pages *pg)
{
	struct wpp_decoder *d = wpp_decoder_open(th, s->mods, WPP_DECODE_EXPAND);
	struct wpp_wet_item *items = NULL;
	size_t cap = 0;
	struct wpp_event ev;

	if (!d)
		return -1;
	while (wpp_decoder_next(d, &ev)) {
		if (ev.kind != WPP_EV_PATH || ev.wet != WPP_WET_OK || !ev.fn->wet)
			continue;
		if (ev.nvalues > cap) {
			free(items);
			cap = ev.nvalues;
			items = malloc(cap * sizeof(*items));
			if (!items)
				wpp_die("out of memory");
		}
		wpp_wet_path_items(ev.fn, ev.path, items);
		for (uint32_t i = 0; i < ev.nvalues; i++) {
			const struct wpp_meta_wet_stmt *st = items[i].stmt;
			uint64_t a = (uint64_t)ev.values[i];
			if (items[i].what != WPP_WET_REC_ADDR ||
			    (st->kind != WPP_WET_STORE && st->kind != WPP_WET_RMW) || !st->access)
				continue;
			for (uint64_t p = a / WET_SHADOW_PAGE;
			     p <= (a + st->access - 1) / WET_SHADOW_PAGE; p++)
				pages_add(pg, p);
		}
	}
	free(items);
	wpp_decoder_close(d);
	return 0;
}

double wet_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The WET of thread th, or NULL after an error line. */
static struct wet_thread *build(const struct wet_obtain *q, struct session *s,
				const struct wpp_thread_trace *th)
{
	struct pages pg = {0};
	struct wet_build_opts o = {0};
	double t0 = wet_now(), last = t0;
	int progress = isatty(2);

	for (size_t i = 0; i < s->trace->nthreads; i++) {
		const struct wpp_thread_trace *o2 = &s->trace->threads[i];
		if (o2 != th && o2->pid == th->pid && o2->generation == th->generation &&
		    collect_stores(s, o2, &pg) < 0) {
			free(pg.v);
			return NULL;
		}
	}
	if (q->shadow_mb > 0)
		o.shadow_bytes = (size_t)q->shadow_mb << 20;
	if (pg.n) {
		o.shared_page = page_shared;
		o.ctx = &pg;
	}
	struct wet_build *b = wet_build_new(&o, th->pid, th->tid, th->generation);
	struct wpp_decoder *d = b ? wpp_decoder_open(th, s->mods, WPP_DECODE_EXPAND) : NULL;
	struct wpp_event ev;
	int rc = 0;
	if (!d) {
		wet_build_free(b);
		free(pg.v);
		wpp_err("%s: out of memory", q->name);
		return NULL;
	}
	while (rc == 0 && wpp_decoder_next(d, &ev)) {
		if (ev.kind == WPP_EV_PATH)
			rc = wet_build_path(b, ev.fid, ev.fn, ev.value, ev.path,
					    ev.wet == WPP_WET_OK ? ev.values : NULL,
					    ev.signal_depth);
		else if (ev.kind != WPP_EV_BLOCK)
			rc = wet_build_gap(b);
		if (progress && (wet_build_timestamps(b) & 0xffff) == 0 && wet_now() - last >= 1) {
			last = wet_now();
			fprintf(stderr,
				"\r%s: building the WET: %" PRIu64 " path executions, %.0f s",
				q->name, wet_build_timestamps(b), last - t0);
		}
	}
	if (progress && last != t0)
		fputc('\n', stderr);
	wpp_decoder_close(d);
	struct wet_thread *t = rc == 0 ? wet_build_finish(b) : NULL;
	if (rc)
		wet_build_free(b);
	free(pg.v);
	if (!t)
		wpp_err("%s: building the WET failed (out of memory)", q->name);
	return t;
}

/* A file a query may append its WET to: one its mode lets the owner write
 * (root too: a file made read-only stays as it is) and we may write. */
static int writable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && (st.st_mode & S_IWUSR) && access(path, W_OK) == 0;
}

struct wet_thread *wet_obtain(const struct wet_obtain *q, struct session *s, const char *path,
			      const struct wpp_thread_trace *th, double *secs,
			      enum wet_origin *stored)
{
	struct wet_thread *t = NULL;
	char err[256];
	/* Queries read streams unverified (a damaged code is a read error
	 * when reached); `wet build` checks what is stored. */
	int rc = wet_store_load(s, th, q->build_cmd, &t, err, sizeof(err));
	double t0 = wet_now();

	*secs = 0;
	*stored = rc == 1 ? WET_READ : WET_BUILT;
	if (rc == 1)
		return t;
	/* rc 2: an older format, built again and stored below like none */
	if (rc < 0) {
		wpp_err("%s: the WET stored for thread %" PRIu32
			" in %s is unusable (%s); building "
			"it again",
			q->name, th->tid, path, err);
		s->exit_status = WPP_EXIT_ERROR;
	}
	t = build(q, s, th);
	*secs = wet_now() - t0;
	if (!t)
		return NULL;
	/* Never after damage: chunks behind it would be unreadable, and each
	 * query would append another WET. */
	if (q->build_cmd && s->exit_status)
		*stored = WET_BUILT_DAMAGED; /* the damage was reported already */
	else if (q->build_cmd || (!s->exit_status && s->trace->has_end && writable(path))) {
		if (wet_store_save(s, path, t, err, sizeof(err)) == 0)
			*stored = WET_STORED;
		else if (q->build_cmd) {
			wpp_err("%s: storing the WET: %s", q->name, err);
			s->exit_status = WPP_EXIT_ERROR;
		}
	}
	return t;
}
