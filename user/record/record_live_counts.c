/* SPDX-License-Identifier: MIT */
/* record_live_counts.c — the counts attached processes still hold at
 * detach, into the .wpp (see record_live_counts.h). */
#include "record/record_live_counts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bpfcollect/count_snapshot.h"
#include "bpfcollect/registry.h"
#include "common/log.h"
#include "record/record_info.h"
#include "record/record_sink.h"
#include "runtime/rt_count_table.h"

/* Words per BATCH chunk written (a batch's nwords is 32-bit; readers
 * follow a count's REPEATs across batches). */
#define BATCH_WORDS 65536u
/* A hash its owner is changing is not read; it is busy for microseconds. */
#define BUSY_TRIES 20

struct live_proc {
	uint32_t pid, generation;
};

struct record_live_counts {
	struct live_proc *p;
	size_t n, cap;
	uint64_t unremembered; /* processes left out for want of memory */
};

struct words {
	uint64_t *w;
	size_t n, cap;
	int failed;
};

struct record_live_counts *record_live_counts_new(void)
{
	return calloc(1, sizeof(struct record_live_counts));
}

void record_live_counts_free(struct record_live_counts *l)
{
	if (l)
		free(l->p);
	free(l);
}

static struct live_proc *find(struct record_live_counts *l, uint32_t pid)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->p[i].pid == pid)
			return &l->p[i];
	return NULL;
}

void record_live_counts_process(struct record_live_counts *l, const struct bc_process *p)
{
	struct live_proc *at = find(l, p->proc.pid);

	if (p->event == BC_PROCESS_EXIT) {
		if (at)
			*at = l->p[--l->n];
		return;
	}
	if (p->event != BC_PROCESS_NEW)
		return;
	if (!at) {
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 64;
			struct live_proc *g = realloc(l->p, cap * sizeof(*g));
			if (!g) {
				l->unremembered++; /* said at the end */
				return;
			}
			l->p = g;
			l->cap = cap;
		}
		at = &l->p[l->n++];
	}
	/* an exec'd image counts anew: its generation names its modules */
	*at = (struct live_proc){p->proc.pid, p->proc.generation};
}

static void put(const uint64_t *w, unsigned n, void *arg)
{
	struct words *ws = arg;
	if (ws->n + n > ws->cap) {
		size_t cap = ws->cap ? 2 * ws->cap : 4096;
		uint64_t *g = realloc(ws->w, cap * sizeof(*g));
		if (!g) {
			ws->failed = 1;
			return;
		}
		ws->w = g;
		ws->cap = cap;
	}
	if (!ws->failed) {
		memcpy(ws->w + ws->n, w, n * sizeof(*w));
		ws->n += n;
	}
}

static void skip_tu(const struct wpp_brec_register *r, void *arg)
{
	(void)r;
	(void)arg;
}

/* A snapshot of pid with no hash left unread, if the owners let us. */
static int snapshot(uint32_t pid, struct count_snapshot *s)
{
	struct registry_info info;
	int err = registry_read((pid_t)pid, skip_tu, NULL, &info);

	if (err)
		return err;
	for (int t = 0;; t++) {
		if ((err = count_snapshot_read((pid_t)pid, info.counts, s)))
			return err;
		if (!s->hashes_busy || t + 1 == BUSY_TRIES)
			return 0;
		count_snapshot_free(s);
		nanosleep(&(struct timespec){0, 1000000}, NULL);
	}
}

/* The words of one snapshot as batches of thread 0 of the process. */
static int write_batches(struct record_sink *rs, const struct live_proc *p,
			 const struct count_snapshot *s, uint64_t *paths)
{
	struct words ws = {0};
	int err = 0;

	for (size_t i = 0; i < s->n; i++) {
		/* the fid word's other bits are the encoder's own */
		rt_count_encode(wpp_make_word(s->s[i].fid, 0), s->s[i].id, s->s[i].count, put, &ws);
		*paths += s->s[i].count;
	}
	if (ws.failed) {
		free(ws.w);
		return -ENOMEM;
	}
	uint64_t seq = 0;
	for (size_t at = 0; at < ws.n && !err; at += BATCH_WORDS, seq++) {
		size_t n = ws.n - at < BATCH_WORDS ? ws.n - at : BATCH_WORDS;
		struct wpp_chunk_batch b = {
		    .pid = p->pid,
		    .tid = 0,
		    .seq = seq,
		    .flags = at + n == ws.n ? WPP_BATCH_FINAL : 0,
		    .time_ns = record_now_ns(),
		    .generation = p->generation,
		    .nwords = (uint32_t)n,
		};
		err = record_sink_batch(rs, &b, ws.w + at);
	}
	free(ws.w);
	return err;
}

int record_live_counts_write(struct record_live_counts *l, struct record_sink *rs, int quiet)
{
	uint64_t paths = 0, draining = 0, busy = 0, threads = 0, procs = 0;
	int failed = 0;

	for (size_t i = 0; i < l->n && !rs->failed; i++) {
		struct count_snapshot s;
		int err = snapshot(l->p[i].pid, &s);
		if (err == -ENOENT || err == -ESRCH)
			continue; /* no counting runtime, or gone (its end drained it) */
		if (err) {
			wpp_warn("record: cannot read the path counts of process %u at detach: %s; "
				 "its live threads' counts are missing",
				 l->p[i].pid,
				 err == -EPROTO ? "its memory does not describe counters"
						: strerror(-err));
			continue;
		}
		threads += s.threads;
		draining += s.threads_draining;
		busy += s.hashes_busy;
		if (s.n) {
			procs++;
			if (write_batches(rs, &l->p[i], &s, &paths) < 0)
				failed = 1;
		}
		count_snapshot_free(&s);
	}
	if (record_sink_flush(rs) < 0)
		failed = 1;
	if (procs && !quiet)
		wpp_info("record: %llu path executions read from %llu live counting threads "
			 "of %llu processes at detach",
			 (unsigned long long)paths, (unsigned long long)threads,
			 (unsigned long long)procs);
	if (draining)
		wpp_warn("record: %llu threads were ending as their counts were read at detach; "
			 "their counts may be incomplete",
			 (unsigned long long)draining);
	if (l->unremembered)
		wpp_warn("record: out of memory: the counts %llu processes held at detach "
			 "are missing",
			 (unsigned long long)l->unremembered);
	if (busy)
		wpp_warn("record: %llu threads kept their count hash busy at detach; "
			 "its counts are missing",
			 (unsigned long long)busy);
	return failed ? -1 : 0;
}
