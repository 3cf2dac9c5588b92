/* SPDX-License-Identifier: MIT */
/*
 * top_trace.c — tracing builds under `wpptrace top` (see top_trace.h).
 *
 * The collector's callbacks (its drain thread) feed the tally and keep,
 * per process image, the TUs its MODULE events named (a fork child
 * starts with its parent's, as the decoder gives them); the interval
 * (top's main thread) takes the counts, names each one's TU under the
 * lock, and resolves functions outside it, so the drain thread never
 * waits for an ELF file to be read.  Images that ended are dropped once
 * their last counts were taken.
 */
#include "record/top_trace.h"

#include <linux/capability.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bpfcollect/bpfcollect.h"
#include "collect/path_tally.h"
#include "record/record_attach.h"
#include "wpp/meta_format.h"
#include "common/array_grow.h"

/* One process image: its TUs, its own last (they win over inherited). */
struct top_image {
	uint32_t serial; /* the tally's image tag; images[] is sorted by it */
	uint32_t pid, generation;
	int ended;
	const struct top_tu **tus;
	size_t ntus, cap;
};

struct top_trace {
	struct bc_collector *c;
	struct record_dual *dual; /* dual builds switched on, off again at close */
	pthread_mutex_t lock;	  /* everything below, between callbacks and intervals */
	struct path_tally *tally;
	struct top_tus *tus;
	struct top_image **images;
	size_t nimages, cap;
	uint32_t next_serial;
	uint64_t lost_before; /* lost words already reported */
};

int top_trace_allowed(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d) != 0)
		return geteuid() == 0;
#define HAS(cap) ((d[(cap) / 32].effective >> ((cap) % 32)) & 1u)
	return HAS(CAP_SYS_ADMIN) || (HAS(CAP_BPF) && HAS(CAP_PERFMON));
#undef HAS
}

/* ---- images (lock held) ---- */

static struct top_image *live_image(struct top_trace *t, uint32_t pid, uint32_t generation)
{
	for (size_t i = t->nimages; i-- > 0;)
		if (t->images[i]->pid == pid && t->images[i]->generation == generation &&
		    !t->images[i]->ended)
			return t->images[i];
	return NULL;
}

static struct top_image *newest_live(struct top_trace *t, uint32_t pid)
{
	for (size_t i = t->nimages; i-- > 0;)
		if (t->images[i]->pid == pid && !t->images[i]->ended)
			return t->images[i];
	return NULL;
}

static void end_images(struct top_trace *t, uint32_t pid)
{
	for (size_t i = 0; i < t->nimages; i++)
		if (t->images[i]->pid == pid)
			t->images[i]->ended = 1;
}

static int add_tu(struct top_image *im, const struct top_tu *tu)
{
	if (ARRAY_GROW(im->tus, im->cap, im->ntus + 1, 8))
		return -1;
	im->tus[im->ntus++] = tu;
	return 0;
}

static struct top_image *new_image(struct top_trace *t, uint32_t pid, uint32_t generation)
{
	if (ARRAY_GROW(t->images, t->cap, t->nimages + 1, 32))
		return NULL;
	struct top_image *im = calloc(1, sizeof(*im));
	if (!im)
		return NULL;
	im->serial = t->next_serial++;
	im->pid = pid;
	im->generation = generation;
	t->images[t->nimages++] = im;
	return im;
}

static struct top_image *image_of(struct top_trace *t, uint32_t pid, uint32_t generation)
{
	struct top_image *im = live_image(t, pid, generation);
	return im ? im : new_image(t, pid, generation);
}

static void image_free(struct top_image *im)
{
	free(im->tus);
	free(im);
}

/* ---- the collector's callbacks (its lock held, ours taken) ---- */

static void on_process(void *ctx, const struct bc_process *ev)
{
	struct top_trace *t = ctx;
	pthread_mutex_lock(&t->lock);
	if (ev->event == BC_PROCESS_NEW) {
		/* After an exec the pid runs a new image; a pid seen again
		 * without one is another process. */
		struct top_image *parent =
		    (ev->proc.flags & WPP_PROC_FORKED) ? newest_live(t, ev->proc.ppid) : NULL;
		end_images(t, ev->proc.pid);
		struct top_image *im = new_image(t, ev->proc.pid, ev->proc.generation);
		for (size_t i = 0; im && parent && i < parent->ntus; i++)
			if (add_tu(im, parent->tus[i]))
				break;
	} else if (ev->event == BC_PROCESS_EXIT) {
		end_images(t, ev->proc.pid);
	}
	pthread_mutex_unlock(&t->lock);
}

static void on_thread(void *ctx, const struct wpp_chunk_thread *th)
{
	struct top_trace *t = ctx;
	if (th->event != WPP_THREAD_EXIT)
		return;
	pthread_mutex_lock(&t->lock);
	path_tally_thread_exit(t->tally, th->pid, th->tid, th->generation);
	pthread_mutex_unlock(&t->lock);
}

static void on_module(void *ctx, const struct wpp_chunk_module *m, const char *path)
{
	struct top_trace *t = ctx;
	struct top_tu tu = {.fid_base = m->fid_base,
			    .nfuncs = m->nfuncs,
			    .tu_hash = m->tu_hash,
			    .build_id_len = m->build_id_len,
			    .path = path};
	memcpy(tu.build_id, m->build_id, sizeof(tu.build_id));
	pthread_mutex_lock(&t->lock);
	struct top_image *im = image_of(t, m->pid, m->generation);
	const struct top_tu *in = top_tus_intern(t->tus, &tu);
	if (im && in)
		add_tu(im, in);
	pthread_mutex_unlock(&t->lock);
}

static void on_batch(void *ctx, const struct wpp_chunk_batch *b, const uint64_t *words)
{
	struct top_trace *t = ctx;
	pthread_mutex_lock(&t->lock);
	struct top_image *im = image_of(t, b->pid, b->generation);
	if (im) /* without memory the batch goes uncounted, as a lost one would */
		path_tally_batch(t->tally, b, words, im->serial);
	pthread_mutex_unlock(&t->lock);
}

static void on_gap(void *ctx, const struct wpp_chunk_gap *g)
{
	struct top_trace *t = ctx;
	pthread_mutex_lock(&t->lock);
	path_tally_gap(t->tally, g->pid, g->tid);
	pthread_mutex_unlock(&t->lock);
}

/* ---- top's side ---- */

struct top_trace *top_trace_open(int all, const pid_t *pids, int npids)
{
	struct top_trace *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	pthread_mutex_init(&t->lock, NULL);
	t->tally = path_tally_new();
	t->tus = top_tus_new();
	struct bc_options o = {.filter_pids = !all,
			       .attach_on_exec = true,
			       .drop_when_full = true,
			       .drain_threads = 1};
	struct bc_callbacks cb = {.ctx = t,
				  .process = on_process,
				  .thread = on_thread,
				  .module = on_module,
				  .batch = on_batch,
				  .gap = on_gap};
	if (!t->tally || !t->tus || !(t->c = bc_open(&o, &cb))) {
		top_trace_close(t);
		return NULL;
	}
	if (record_attach_running(t->c, all, pids, npids, &t->dual)) {
		bc_close(t->c); /* as record does when attaching fails */
		t->c = NULL;
		top_trace_close(t);
		return NULL;
	}
	return t;
}

static struct top_image *by_serial(struct top_trace *t, uint32_t serial)
{
	size_t lo = 0, hi = t->nimages;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->images[mid]->serial < serial)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nimages && t->images[lo]->serial == serial ? t->images[lo] : NULL;
}

/* The TU of image im holding fid: its own, the newest first. */
static const struct top_tu *tu_of(const struct top_image *im, uint32_t fid)
{
	for (size_t i = im->ntus; i-- > 0;)
		if (fid >= im->tus[i]->fid_base && fid - im->tus[i]->fid_base < im->tus[i]->nfuncs)
			return im->tus[i];
	return NULL;
}

/* A taken count with what names it. */
struct named {
	pid_t pid;
	const struct top_tu *tu;
	struct path_tally_entry e;
};

/* Under the lock: take the counts and name their TUs, note the processes,
 * drop the images that ended. */
static int take(struct top_trace *t, struct top_rows *rows, struct named **out, size_t *n)
{
	struct path_tally_entry *e;
	int rc = 0;
	*out = NULL;
	pthread_mutex_lock(&t->lock);
	if (path_tally_take(t->tally, &e, n) == 0) {
		if (*n && !(*out = malloc(*n * sizeof(**out))))
			rc = -1;
		for (size_t i = 0; !rc && i < *n; i++) {
			const struct top_image *im = by_serial(t, e[i].image);
			(*out)[i] = (struct named){im ? (pid_t)im->pid : 0,
						   im ? tu_of(im, e[i].fid) : NULL, e[i]};
		}
		free(e);
	} else {
		rc = -1;
	}
	size_t kept = 0;
	for (size_t i = 0; i < t->nimages; i++) {
		struct top_image *im = t->images[i];
		if (!rc && top_rows_saw(rows, (pid_t)im->pid))
			rc = -1;
		if (im->ended)
			image_free(im);
		else
			t->images[kept++] = im;
	}
	t->nimages = kept;
	pthread_mutex_unlock(&t->lock);
	if (rc) {
		free(*out);
		*out = NULL;
	}
	return rc;
}

int top_trace_interval(struct top_trace *t, struct wpp_symbolizer *sym, struct top_rows *rows,
		       uint64_t *lost)
{
	struct bc_counters k;
	struct named *v;
	size_t n;

	bc_counters(t->c, &k);
	*lost = k.lost_words - t->lost_before;
	t->lost_before = k.lost_words;
	if (take(t, rows, &v, &n))
		return -1;
	int rc = 0;
	struct top_tu_cache cache = {0}; /* the counts come sorted by image and fid */
	for (size_t i = 0; i < n && !rc; i++) {
		int mode = v[i].tu ? top_tu_mode(sym, &cache, v[i].tu) : 0;
		if (wpp_meta_mode_counts(mode) || mode == WPP_MODE_BLOCKS)
			continue; /* counts are read from memory; blocks are no paths */
		struct top_row row = {.pid = v[i].pid,
				      .nprocs = 1,
				      .tu = v[i].tu,
				      .fn = v[i].tu ? top_tu_fn(sym, &cache, v[i].tu, v[i].e.fid)
						    : NULL,
				      .fid = v[i].e.fid,
				      .id = v[i].e.id,
				      .count = v[i].e.count};
		rc = top_rows_add(rows, &row);
	}
	free(v);
	return rc;
}

int top_trace_all_exited(struct top_trace *t)
{
	return bc_all_exited(t->c);
}

void top_trace_close(struct top_trace *t)
{
	if (!t)
		return;
	if (t->c) {
		/* The probes go first: from here on the programs run unobserved. */
		bc_finish(t->c, NULL);
		bc_close(t->c);
	}
	record_dual_restore(t->dual);
	for (size_t i = 0; i < t->nimages; i++)
		image_free(t->images[i]);
	free(t->images);
	path_tally_free(t->tally);
	top_tus_free(t->tus);
	pthread_mutex_destroy(&t->lock);
	free(t);
}
