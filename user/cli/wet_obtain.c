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
#include "analysis/wet/wet_xorder.h"
#include "analysis/wet/wet_file.h"
#include "analysis/wet/wet_page_set.h"
#include "cli/wet_store.h"
#include "decode/wet_values.h"

static int page_shared(void *ctx, uint64_t page)
{
	return wet_page_set_has(ctx, page);
}

/* A batch's interval (lo, hi] of CLOCK_MONOTONIC (wet_xorder.h): its words
 * were written after the thread's previous main batch was published and
 * before its own publish. */
struct batch_iv {
	uint64_t seq, lo, hi;
	int signal;
};

static int by_seq(const void *a, const void *b)
{
	const struct batch_iv *x = a, *y = b;
	return x->seq != y->seq ? (x->seq < y->seq ? -1 : 1) : 0;
}

/* The intervals of th's batches by seq, malloc'd; NULL when out of memory. */
static struct batch_iv *batch_ivs(const struct wpp_thread_trace *th)
{
	struct batch_iv *v = malloc((th->nbatches + 1) * sizeof(*v));
	uint64_t prev_main = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < th->nbatches; i++) {
		const struct wpp_batch_ref *r = &th->batches[i];
		v[i] =
		    (struct batch_iv){.seq = r->seq, .signal = (r->flags & WPP_BATCH_SIGNAL) != 0};
		v[i].hi = r->time_ns && !(r->flags & WPP_BATCH_SALVAGED) ? r->time_ns : UINT64_MAX;
	}
	qsort(v, th->nbatches, sizeof(*v), by_seq);
	for (size_t i = 0; i < th->nbatches; i++) {
		/* a signal batch may hold words of handlers run long before */
		v[i].lo = v[i].signal || v[i].hi == UINT64_MAX ? 0 : prev_main;
		if (v[i].lo > v[i].hi)
			v[i].lo = 0;
		if (!v[i].signal && v[i].hi != UINT64_MAX && v[i].hi > prev_main)
			prev_main = v[i].hi;
	}
	return v;
}

/* The interval of the batch seq; an unknown one is (0, max]. */
static struct batch_iv batch_of(const struct batch_iv *v, size_t n, uint64_t seq)
{
	struct batch_iv key = {.seq = seq}, *f = bsearch(&key, v, n, sizeof(*v), by_seq);

	return f ? *f : (struct batch_iv){seq, 0, UINT64_MAX, 1};
}

/* The stores of thread th (another thread of the built one's process):
 * their pages into pg, and into xo (when not NULL) with their batches'
 * intervals.  0; 1 when xo cannot take them all; -1 out of memory. */
static int collect_stores(struct session *s, const struct wpp_thread_trace *th,
			  struct wet_page_set *pg, struct wet_xorder *xo)
{
	struct wpp_decoder *d = wpp_decoder_open(th, s->mods, WPP_DECODE_EXPAND);
	struct batch_iv *ivs = batch_ivs(th);
	struct wpp_wet_item *items = NULL;
	size_t cap = 0;
	struct wpp_event ev;
	uint64_t ts = 0;
	int full = 0;

	if (!d || !ivs) {
		if (d)
			wpp_decoder_close(d);
		free(ivs);
		return -1;
	}
	while (wpp_decoder_next(d, &ev)) {
		if (ev.kind != WPP_EV_PATH)
			continue;
		ts++; /* as the builder counts: every path execution */
		if (ev.wet != WPP_WET_OK || !ev.fn->wet)
			continue;
		if (ev.nvalues > cap) {
			free(items);
			cap = ev.nvalues;
			items = malloc(cap * sizeof(*items));
			if (!items)
				wpp_die("out of memory");
		}
		wpp_wet_path_items(ev.fn, ev.path, items);
		struct batch_iv iv = batch_of(ivs, th->nbatches, ev.batch_seq);
		for (uint32_t i = 0; i < ev.nvalues; i++) {
			const struct wpp_meta_wet_stmt *st = items[i].stmt;
			uint64_t a = (uint64_t)ev.values[i];
			if (items[i].what != WPP_WET_REC_ADDR ||
			    (st->kind != WPP_WET_STORE && st->kind != WPP_WET_RMW) || !st->access)
				continue;
			for (uint64_t p = a / WET_SHADOW_PAGE;
			     p <= (a + st->access - 1) / WET_SHADOW_PAGE; p++)
				if (wet_page_set_add(pg, p) < 0)
					wpp_die("out of memory");
			struct wet_xstore x = {
			    .addr = a,
			    .lo = iv.lo,
			    .hi = iv.hi,
			    .ts = ts,
			    .size = st->access,
			    .tid = th->tid,
			    .fid = ev.fid,
			    .stmt = (uint32_t)(st - ev.fn->tu->wet->stmts),
			};
			if (xo && !full && wet_xorder_add(xo, &x) < 0)
				full = 1;
		}
	}
	free(items);
	free(ivs);
	wpp_decoder_close(d);
	return full;
}

double wet_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Other threads' stores kept for ordering: one per 64 bytes of the
 * shadow budget (56 bytes each, their sort indices 8), 16 M by default.
 * Past it, or when another thread lost words (stores nobody can see),
 * their loads' writers are unknown page by page as before. */
#define XORDER_BYTES_PER_STORE 64u

/* The other threads' stores for thread th's build: into *xo when their
 * order can be used, and their pages into pg.  0, or -1 out of memory. */
static int other_threads(const struct wet_obtain *q, struct session *s,
			 const struct wpp_thread_trace *th, size_t shadow, struct wet_page_set *pg,
			 struct wet_xorder **xo)
{
	int gaps = 0, progress = isatty(2);
	size_t done = 0;

	*xo = NULL;
	for (size_t i = 0; i < s->trace->nthreads; i++) {
		const struct wpp_thread_trace *o2 = &s->trace->threads[i];
		if (o2 != th && o2->pid == th->pid && o2->generation == th->generation)
			gaps |= o2->ngaps != 0;
	}
	/* its three shadows share one more budget of the builder's size */
	if (!gaps && !(*xo = wet_xorder_new(shadow / 3, shadow / XORDER_BYTES_PER_STORE)))
		return -1;
	for (size_t i = 0; i < s->trace->nthreads; i++) {
		const struct wpp_thread_trace *o2 = &s->trace->threads[i];
		if (o2 == th || o2->pid != th->pid || o2->generation != th->generation)
			continue;
		if (progress)
			fprintf(stderr, "\r%s: other threads' stores: %zu threads read", q->name,
				done);
		int rc = collect_stores(s, o2, pg, *xo);
		done++;
		if (rc < 0)
			return -1;
		if (rc > 0) { /* too many: unknown by page */
			wet_xorder_free(*xo);
			*xo = NULL;
		}
	}
	if (progress && done)
		fprintf(stderr, "\r%s: other threads' stores: %zu threads read\n", q->name, done);
	if (*xo && wet_xorder_seal(*xo) < 0)
		return -1;
	return 0;
}

/* The WET of thread th, or NULL after an error line. */
static struct wet_thread *build(const struct wet_obtain *q, struct session *s,
				const struct wpp_thread_trace *th)
{
	struct wet_page_set pg = {0};
	struct wet_build_opts o = {0};
	struct wet_xorder *xo = NULL;
	double t0 = wet_now(), last = t0;
	int progress = isatty(2);
	size_t shadow = q->shadow_mb > 0 ? (size_t)q->shadow_mb << 20 : (size_t)1 << 30;

	if (other_threads(q, s, th, shadow, &pg, &xo) < 0) {
		wet_xorder_free(xo);
		wet_page_set_free(&pg);
		wpp_err("%s: out of memory", q->name);
		return NULL;
	}
	o.shadow_bytes = shadow;
	if (xo)
		o.xorder = xo;
	else if (pg.n) {
		o.shared_page = page_shared;
		o.ctx = &pg;
	}
	struct batch_iv *ivs = xo ? batch_ivs(th) : NULL;
	struct wet_build *b = wet_build_new(&o, th->pid, th->tid, th->generation);
	struct wpp_decoder *d =
	    b && (!xo || ivs) ? wpp_decoder_open(th, s->mods, WPP_DECODE_EXPAND) : NULL;
	struct wpp_event ev;
	uint64_t seq = UINT64_MAX;
	int rc = 0;
	if (!d) {
		wet_build_free(b);
		wet_xorder_free(xo);
		free(ivs);
		wet_page_set_free(&pg);
		wpp_err("%s: out of memory", q->name);
		return NULL;
	}
	while (rc == 0 && wpp_decoder_next(d, &ev)) {
		if (xo && ev.kind == WPP_EV_PATH && ev.batch_seq != seq) {
			struct batch_iv iv = batch_of(ivs, th->nbatches, ev.batch_seq);
			seq = ev.batch_seq;
			rc = wet_build_batch(b, iv.lo, iv.hi, iv.signal);
			if (rc)
				break;
		}
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
	wet_xorder_free(xo);
	free(ivs);
	wet_page_set_free(&pg);
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
	int rc = wet_store_load(s, th,
				q->build_cmd ? WET_FILE_VERIFY
				: q->lazy    ? WET_FILE_LAZY
					     : WET_FILE_PARSE,
				&t, err, sizeof(err));
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
