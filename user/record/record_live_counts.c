/* SPDX-License-Identifier: MIT */
/* record_live_counts.c — the counts attached processes still hold at
 * detach, into the .wpp (see record_live_counts.h). */
#include "record/record_live_counts.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bpfcollect/count_snapshot.h"
#include "bpfcollect/registry.h"
#include "common/cpu_clock.h"
#include "common/log.h"
#include "record/record_info.h"
#include "record/record_sink.h"
#include "runtime/rt_count_table.h"
#include "common/array_grow.h"

/* Words per BATCH chunk written (a batch's nwords is 32-bit; readers
 * follow a count's REPEATs across batches). */
#define BATCH_WORDS 65536u
/* A hash its owner is changing is not read; it is busy for microseconds. */
#define BUSY_TRIES 20

/* Batches a process may send between two snapshots and still be salvaged
 * (a mixed build's tracing TUs send many: it is not, rather than slowly). */
#define MAX_GONE 4096u
/* Snapshots that find no registry (or none with a TU registered yet)
 * before a process is taken for one without a counting runtime: a
 * process is often reported before its exec, or before the loader has
 * mapped the runtime.  A loader slower than that (a loaded machine, a
 * short interval) or a runtime dlopen'ed later is not lost for it: the
 * TU registration the collector reports makes the image looked at
 * again (record_live_counts_module). */
#define REGISTRY_TRIES 5u

struct live_proc {
	uint32_t pid, generation;
	/* its registry's count list address, read once per image (0: no
	 * counting runtime), when counts_known */
	uint64_t counts;
	int counts_known;
	uint32_t no_registry; /* snapshots that found none (REGISTRY_TRIES) */
	int registered;	      /* the collector reported a TU of the image */
	/* The last periodic snapshot, per thread (tid of each sample), taken
	 * at last_ns; the threads that sent words since it began (`gone`:
	 * a count build's thread sends words when it drains, at its exit, so
	 * its snapshot may be in its stream already: not salvaged twice). */
	struct count_snapshot last;
	uint64_t last_ns;
	uint32_t *gone;
	size_t ngone, capgone;
	int reading;  /* a snapshot is being read: note batches already */
	int given_up; /* too many batches to tell whose: not salvaged */
	/* Ended, not normally or not known how: kept until the end, when
	 * every batch it sent is known (the BPF rings are per CPU: its
	 * threads' last batches may come after the news of its death).
	 * status: its wait status, or RECORD_LIVE_STATUS_UNKNOWN. */
	int dead, status;
	uint64_t died_ns;
};

/* The process list is written by the collector's callbacks (its drain
 * threads) and read by the recorder's main thread for snapshots. */
struct record_live_counts {
	pthread_mutex_t lock;
	struct live_proc *p;
	size_t n, cap;
	uint64_t unremembered; /* processes left out for want of memory */
	uint64_t next_ns;      /* of the next periodic snapshot */
	uint64_t interval_ns;  /* between two */
	struct record_sink *rs;
	uint64_t salvaged; /* path executions from killed processes' snapshots */
};

struct words {
	uint64_t *w;
	size_t n, cap;
	int failed;
};

struct record_live_counts *record_live_counts_new(struct record_sink *rs, uint64_t interval_ns)
{
	struct record_live_counts *l = calloc(1, sizeof(*l));
	if (l) {
		pthread_mutex_init(&l->lock, NULL);
		l->rs = rs;
		l->interval_ns = interval_ns;
	}
	return l;
}

static void forget(struct live_proc *p)
{
	count_snapshot_free(&p->last);
	free(p->gone);
	p->gone = NULL;
	p->ngone = p->capgone = 0;
	p->last_ns = 0;
}

void record_live_counts_free(struct record_live_counts *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		forget(&l->p[i]);
	pthread_mutex_destroy(&l->lock);
	free(l->p);
	free(l);
}

/* The running process pid (not one killed earlier under the same pid). */
static struct live_proc *find(struct record_live_counts *l, uint32_t pid)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->p[i].pid == pid && !l->p[i].dead)
			return &l->p[i];
	return NULL;
}

static int write_batches(struct record_sink *rs, const struct live_proc *p,
			 const struct count_snapshot *s, uint64_t *paths);

/* What an end with this wait status did with the counts: drained them
 * (an exit, or an exec), nothing (a signal), or not known — no status,
 * or SIGABRT: abort() drains first, a SIGABRT sent from outside does not. */
enum end_kind { END_DRAINED, END_KILLED, END_UNSURE };

static enum end_kind end_kind(int status)
{
	if (status == RECORD_LIVE_STATUS_UNKNOWN)
		return END_UNSURE;
	if (!WIFSIGNALED(status))
		return END_DRAINED;
	return WTERMSIG(status) == SIGABRT ? END_UNSURE : END_KILLED;
}

/* Killed, the process drained nothing at its end: what its threads held
 * at the last snapshot goes into the file, but for the threads that sent
 * words since (they drained, or may have: rather too few than twice).
 * Unsure, it drained nothing if it sent no word since a snapshot that held
 * counts: a draining end drains them all, into the stream of the thread
 * that ends the process, which leaves no way to tell its threads apart,
 * so when words came nothing is salvaged. */
static void salvage(struct record_live_counts *l, struct live_proc *p)
{
	int status = p->status;
	char how[96];
	/* No counts at the last look (a tracing build, or none yet): nothing
	 * to say; a count build killed before its first look (up to one
	 * interval after it was seen) cannot be told from a tracing one. */
	switch (end_kind(status)) {
	case END_DRAINED:
		return;
	case END_UNSURE:
		if (p->given_up || p->ngone || !p->last.n)
			return;
		if (status == RECORD_LIVE_STATUS_UNKNOWN)
			snprintf(how, sizeof(how),
				 "ended without handing its counts over (killed; its parent "
				 "took its status)");
		else
			snprintf(how, sizeof(how),
				 "was killed (signal %d) without handing its counts over",
				 WTERMSIG(status));
		break;
	case END_KILLED:
		snprintf(how, sizeof(how), "was killed (signal %d)", WTERMSIG(status));
		break;
	}
	if (p->given_up) {
		wpp_warn("record: process %u was killed (signal %d) and sent too many batches to "
			 "tell its threads' counts apart: the counts it held are lost",
			 p->pid, WTERMSIG(status));
		return;
	}
	if (!p->last.n)
		return;
	struct count_snapshot keep;
	size_t n = 0;
	for (size_t i = 0; i < p->last.n; i++) {
		int ended = 0;
		for (size_t g = 0; g < p->ngone && !ended; g++)
			ended = p->gone[g] == p->last.s[i].tid;
		if (!ended)
			p->last.s[n++] = p->last.s[i];
	}
	keep = p->last;
	keep.n = n;
	uint64_t before = l->salvaged;
	if (n && !l->rs->failed && write_batches(l->rs, p, &keep, &l->salvaged) < 0)
		l->rs->failed = 1;
	wpp_warn("record: process %u %s: its %llu path executions counted "
		 "until %.2f s before its end are recorded, what ran after is lost",
		 p->pid, how, (unsigned long long)(l->salvaged - before),
		 (double)(p->died_ns - p->last_ns) / 1e9);
}

static void note_batch(struct live_proc *p, uint32_t tid);

void record_live_counts_batch(struct record_live_counts *l, const struct wpp_chunk_batch *b)
{
	pthread_mutex_lock(&l->lock);
	for (size_t i = 0; i < l->n; i++)
		if (l->p[i].pid == b->pid && l->p[i].generation == b->generation)
			note_batch(&l->p[i], b->tid);
	pthread_mutex_unlock(&l->lock);
}

/* (A tid may be listed more than once: the oldest entries go when a
 * snapshot is kept, the newer ones must stay.) */
static void note_batch(struct live_proc *p, uint32_t tid)
{
	if ((p->last.n || p->reading) && !p->given_up) {
		if (p->ngone == p->capgone) {
			size_t cap = p->capgone ? 2 * p->capgone : 16;
			uint32_t *g = cap <= MAX_GONE ? realloc(p->gone, cap * sizeof(*g)) : NULL;
			if (!g) { /* no telling which threads: salvage nothing */
				int counted = p->last.n != 0;
				forget(p);
				p->given_up = counted;
				return;
			}
			p->gone = g;
			p->capgone = cap;
		}
		p->gone[p->ngone++] = tid;
	}
}

static void drop(struct record_live_counts *l, struct live_proc *p)
{
	forget(p);
	*p = l->p[--l->n];
}

void record_live_counts_ended(struct record_live_counts *l, uint32_t pid, uint32_t generation,
			      int status)
{
	pthread_mutex_lock(&l->lock);
	struct live_proc *at = find(l, pid);

	/* (an image an exec replaced is no longer remembered: its counts
	 * went into its stream at the exec) */
	if (at && at->generation == generation) {
		if (status == RECORD_LIVE_STATUS_UNKNOWN)
			status = at->status; /* reaped before its end was reported */
		enum end_kind how = end_kind(status);
		if (how == END_DRAINED || (how == END_UNSURE && !at->last.n && !at->reading)) {
			drop(l, at); /* a normal end, or nothing to salvage */
		} else {
			at->dead = 1; /* salvaged (or said) at the end */
			at->status = status;
			at->died_ns = monotonic_ns();
		}
	}
	pthread_mutex_unlock(&l->lock);
}

void record_live_counts_reaped(struct record_live_counts *l, uint32_t pid, int status)
{
	pthread_mutex_lock(&l->lock);
	struct live_proc *at = find(l, pid);

	/* its last image, still remembered as running or ended untold */
	for (size_t i = l->n; !at && i-- > 0;)
		if (l->p[i].pid == pid && l->p[i].status == RECORD_LIVE_STATUS_UNKNOWN)
			at = &l->p[i];
	if (at && at->dead && end_kind(status) == END_DRAINED)
		drop(l, at);
	else if (at)
		at->status = status;
	pthread_mutex_unlock(&l->lock);
}

void record_live_counts_started(struct record_live_counts *l, uint32_t pid, uint32_t generation)
{
	pthread_mutex_lock(&l->lock);
	struct live_proc *at = find(l, pid);

	if (at) {
		forget(at); /* an exec: the old image drained at its end */
	} else {
		if (ARRAY_GROW(l->p, l->cap, l->n + 1, 64)) {
			l->unremembered++; /* said at the end */
			goto out;
		}
		at = &l->p[l->n++];
	}
	/* an exec'd image counts anew: its generation names its modules */
	*at = (struct live_proc){
	    .pid = pid, .generation = generation, .status = RECORD_LIVE_STATUS_UNKNOWN};
out:
	pthread_mutex_unlock(&l->lock);
}

void record_live_counts_module(struct record_live_counts *l, uint32_t pid, uint32_t generation)
{
	pthread_mutex_lock(&l->lock);
	struct live_proc *at = find(l, pid);

	if (at && at->generation == generation) {
		at->registered = 1;
		if (at->counts_known && !at->counts) {
			at->counts_known = 0; /* given up too early: look again */
			at->no_registry = 0;
		}
	}
	pthread_mutex_unlock(&l->lock);
}

void record_live_counts_process(struct record_live_counts *l, const struct bc_process *p)
{
	if (p->event == BC_PROCESS_NEW)
		record_live_counts_started(l, p->proc.pid, p->proc.generation);
	else if (p->event == BC_PROCESS_EXIT)
		record_live_counts_ended(l, p->proc.pid, p->proc.generation, p->exit_status);
}

static void put(const uint64_t *w, unsigned n, void *arg)
{
	struct words *ws = arg;
	if (ARRAY_GROW(ws->w, ws->cap, ws->n + n, 4096)) {
		ws->failed = 1;
		return;
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

/* The address of pid's count block list, from its registry unless known:
 * 0 with *counts set, -ENOENT (no counting runtime; *counts 0), -EAGAIN
 * (a registry no TU has registered in yet: its runtime may not be
 * relocated, its `counts` not an address yet; registry.h), or -errno. */
static int counts_at(uint32_t pid, int known, uint64_t *counts)
{
	struct registry_info info;
	int err = known ? 0 : registry_read((pid_t)pid, skip_tu, NULL, &info);

	if (!known)
		*counts = err == 0 ? info.counts : 0;
	if (!known && !err && !info.registered)
		return -EAGAIN;
	if (err)
		return err; /* -ENOENT: not instrumented, known to have no counts */
	return *counts ? 0 : -ENOENT;
}

static int snapshot(uint32_t pid, uint64_t counts, int by_thread, struct count_snapshot *s)
{
	for (int t = 0;; t++) {
		int err = by_thread ? count_snapshot_read_threads((pid_t)pid, counts, s)
				    : count_snapshot_read((pid_t)pid, counts, s);
		if (err)
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
		    .tid = WPP_TID_MEMORY_COUNTS,
		    .seq = seq,
		    .flags = at + n == ws.n ? WPP_BATCH_FINAL : 0,
		    .time_ns = monotonic_ns(),
		    .generation = p->generation,
		    .nwords = (uint32_t)n,
		};
		err = record_sink_batch(rs, &b, ws.w + at);
	}
	free(ws.w);
	return err;
}

/* Leave out the samples of blocks whose owner is another process's
 * thread: a fork child read before its runtime took over its blocks (its
 * atfork handler), or a vfork child, which shares its parent's memory,
 * holds its parent's blocks, named by the parent's threads.  An owner
 * that is no thread at all any more makes the snapshot unsure (-EAGAIN):
 * most often pid is being killed, its threads dying one by one while it
 * is read, and a snapshot without them would replace a whole one (a
 * killed process is salvaged from its last).  Samples come sorted by
 * tid: one look per thread. */
static int keep_own_threads(uint32_t pid, struct count_snapshot *s)
{
	size_t n = 0;
	uint32_t tid = 0;
	int own = 1;

	for (size_t i = 0; i < s->n; i++) {
		if (i == 0 || s->s[i].tid != tid) {
			char path[64];
			tid = s->s[i].tid;
			snprintf(path, sizeof(path), "/proc/%u/task/%u", pid, tid);
			own = tid == 0 || tid == pid || access(path, F_OK) == 0;
			snprintf(path, sizeof(path), "/proc/%u", tid);
			if (!own && access(path, F_OK) != 0)
				return -EAGAIN; /* gone: ours, or whose? */
		}
		if (own)
			s->s[n++] = s->s[i];
	}
	s->n = n;
	return 0;
}

/* Read pid's per-thread counts while the list may change: the list is not
 * held during the read; the snapshot is kept if the image is still the one
 * read, and the threads that ended meanwhile stay on its `gone` list. */
static void periodic(struct record_live_counts *l, uint32_t pid, uint32_t generation)
{
	pthread_mutex_lock(&l->lock);
	struct live_proc *p = find(l, pid);
	size_t gone_before = p ? p->ngone : 0;
	int known = p ? p->counts_known : 0;
	uint64_t counts = p ? p->counts : 0;
	if (p)
		p->reading = 1;
	pthread_mutex_unlock(&l->lock);
	if (!p)
		return;
	struct count_snapshot s = {0};
	uint64_t began = monotonic_ns();
	int err = counts_at(pid, known, &counts);
	if (!known && (err == 0 || err == -ENOENT || err == -EAGAIN)) {
		pthread_mutex_lock(&l->lock);
		/* (a miss after a TU registered is the loader's or the read's
		 * race: never a reason to give up) */
		if ((p = find(l, pid)) && p->generation == generation) {
			p->counts = err == 0 ? counts : 0;
			p->counts_known =
			    err == 0 || (!p->registered && ++p->no_registry >= REGISTRY_TRIES);
		}
		pthread_mutex_unlock(&l->lock);
	}
	if (!err && (err = snapshot(pid, counts, 1, &s)) == 0)
		err = keep_own_threads(pid, &s);
	uint64_t took = monotonic_ns() - began;
	pthread_mutex_lock(&l->lock);
	p = find(l, pid);
	if (p && p->generation == generation)
		p->reading = 0;
	/* gone, or no counting runtime: nothing to keep */
	if (!err && p && p->generation == generation && p->ngone >= gone_before) {
		p->given_up = 0;
		count_snapshot_free(&p->last);
		p->last = s;
		p->last_ns = began;
		if (gone_before) {
			memmove(p->gone, p->gone + gone_before,
				(p->ngone - gone_before) * sizeof(*p->gone));
			p->ngone -= gone_before;
		}
		s.s = NULL;
		if (wpp_verbosity >= 2)
			wpp_info(
			    "record: counts of process %u read (%u threads, %zu paths, %.0f us)",
			    pid, p->last.threads, p->last.n, (double)took / 1e3);
	}
	pthread_mutex_unlock(&l->lock);
	count_snapshot_free(&s);
}

void record_live_counts_tick(struct record_live_counts *l)
{
	uint64_t now = monotonic_ns();
	if (now < l->next_ns)
		return;
	l->next_ns = now + l->interval_ns;
	pthread_mutex_lock(&l->lock);
	size_t n = l->n;
	struct live_proc *ids = malloc((n ? n : 1) * sizeof(*ids));
	for (size_t i = 0; ids && i < n; i++)
		ids[i] = (struct live_proc){.pid = l->p[i].pid, .generation = l->p[i].generation};
	pthread_mutex_unlock(&l->lock);
	for (size_t i = 0; ids && i < n; i++)
		periodic(l, ids[i].pid, ids[i].generation);
	free(ids);
}

int record_live_counts_write(struct record_live_counts *l, struct record_sink *rs, int quiet)
{
	uint64_t paths = 0, draining = 0, busy = 0, threads = 0, procs = 0;
	int failed = 0;

	for (size_t i = 0; i < l->n && !rs->failed; i++) {
		struct count_snapshot s;
		if (l->p[i].dead) {
			salvage(l, &l->p[i]);
			continue;
		}
		int err = counts_at(l->p[i].pid, l->p[i].counts_known, &l->p[i].counts);
		if (!err)
			err = snapshot(l->p[i].pid, l->p[i].counts, 0, &s);
		if (err == -ENOENT || err == -ESRCH || err == -EAGAIN)
			continue; /* no counting runtime (yet), or gone (its end drained it) */
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
