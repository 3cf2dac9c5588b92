/* SPDX-License-Identifier: MIT */
#include "shm_collector.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "shm_entries.h"
#include "shm_futex.h"
#include "wpp/trace_abi.h"
#include "wpp/wpp_file.h"

#define LOAD_ACQ(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

struct proc_track {
	int announced;
	int dead;
	int pidfd;
	unsigned nthreads; /* thread slots that still reference this entry */
	/* Announced before this pass's thread loop began, so nthreads counts
	 * all its threads.  A process first announced later in the pass (by
	 * the module scan before a retirement) may have thread slots the loop
	 * had already passed when they were claimed: retiring it then would
	 * free its entry for another process while those slots still point at
	 * it, and their START/EXIT would be written under the newcomer's pid
	 * (seen with waves of short-lived forked children). */
	int counted;
};

struct thread_track {
	int announced;
	uint64_t lost_seen;
	uint64_t last_seq;
};

struct wpp_shm_collector {
	struct wpp_shm_header *h;
	int fd;
	char env[64];
	struct proc_track *procs;
	struct thread_track *threads;
	uint8_t *tu_announced;
	uint32_t tu_epoch_seen;
	int finishing;
	struct wpp_shm_totals totals;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void init_thread_rings(struct wpp_shm_header *h, struct wpp_shm_thread *t)
{
	uint32_t first = 0;
	for (int l = 0; l < WPP_SHM_LEVELS; l++) {
		struct wpp_shm_ring *r = &t->rings[l];
		r->head = r->tail = 0;
		r->space_futex = r->producer_waiting = 0;
		r->nslots = l == 0 ? h->ring_slots : h->sig_ring_slots;
		r->first_slot = first;
		first += r->nslots;
	}
	t->lost_words = 0;
}

struct wpp_shm_collector *wpp_shm_collector_create(const struct wpp_shm_options *opts)
{
	struct wpp_shm_options o = *opts;
	struct wpp_shm_header layout;
	struct wpp_shm_collector *c;
	const char *msg;
	void *m;

	if (wpp_shm_options_check(&o, &msg)) {
		errno = EINVAL;
		return NULL;
	}
	wpp_shm_layout(&o, &layout);
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->procs = calloc(o.max_procs, sizeof(*c->procs));
	c->threads = calloc(o.max_threads, sizeof(*c->threads));
	c->tu_announced = calloc(o.max_tus, 1);
	c->fd = (int)syscall(SYS_memfd_create, "wpptrace-shm", MFD_CLOEXEC);
	if (!c->procs || !c->threads || !c->tu_announced || c->fd < 0 ||
	    ftruncate(c->fd, (off_t)layout.region_size) < 0)
		goto fail;
	m = mmap(NULL, layout.region_size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
	if (m == MAP_FAILED)
		goto fail;
	c->h = m;
	memcpy(c->h, &layout, sizeof(layout));
	c->h->collector_pid = (uint32_t)getpid();
	for (uint32_t i = 0; i < o.max_threads; i++)
		init_thread_rings(c->h, wpp_shm_thread_at(c->h, i));
	for (uint32_t i = 0; i < o.max_procs; i++)
		c->procs[i].pidfd = -1;
	snprintf(c->env, sizeof(c->env), "/proc/%d/fd/%d", (int)getpid(), c->fd);
	return c;
fail: {
	int err = errno;
	if (c->fd >= 0)
		close(c->fd);
	free(c->procs);
	free(c->threads);
	free(c->tu_announced);
	free(c);
	errno = err;
	return NULL;
}
}

const char *wpp_shm_collector_env(const struct wpp_shm_collector *c)
{
	return c->env;
}
struct wpp_shm_header *wpp_shm_collector_header(struct wpp_shm_collector *c)
{
	return c->h;
}

/* Reading /proc/PID/stat's starttime tells a pid we registered from a later
 * process that reused it. */
static int read_start_ticks(uint32_t pid, uint64_t *out)
{
	char path[64], buf[1024];
	ssize_t n;
	int fd;
	char *p;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* fields after ")": state is field 3, starttime is field 22 */
	for (int field = 2; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p)
		return -1;
	*out = strtoull(p + 1, NULL, 10);
	return 0;
}

static int announce_proc(struct wpp_shm_collector *c, const struct wpp_shm_sink *s, uint32_t i);

/* The live traced parent of a forked image, announced first: a pass that
 * began before the parent registered can meet the child's thread before
 * the parent's (the parent claims its thread entry at its first flush), and
 * a reader expects a child's PROCESS record after its parent's.  Matching is
 * by pid only, which a producer could forge; the worst it can do is change
 * the order of two PROCESS records. */
static int announce_parent(struct wpp_shm_collector *c, const struct wpp_shm_sink *s,
			   const struct wpp_shm_proc *child)
{
	if (!(child->flags & WPP_PROC_FORKED))
		return 0;
	for (uint32_t j = 0; j < c->h->max_procs; j++) {
		struct wpp_shm_proc *q = wpp_shm_proc_at(c->h, j);
		uint32_t st = LOAD_ACQ(&q->state);
		if ((st == WPP_SHM_LIVE || st == WPP_SHM_EXITING) && q->pid == child->ppid &&
		    !c->procs[j].announced)
			return announce_proc(c, s, j);
	}
	return 0;
}

static int announce_proc(struct wpp_shm_collector *c, const struct wpp_shm_sink *s, uint32_t i)
{
	struct wpp_shm_proc *p = wpp_shm_proc_at(c->h, i);
	struct proc_track *pt = &c->procs[i];
	uint64_t ticks;
	int err;

	if (pt->announced)
		return 0;
	/* A slot retired in an earlier pass (FREE) or being claimed by a new
	 * process (CLAIMED) no longer describes the process its late thread or
	 * module belongs to; that process was announced while it was live, so
	 * announcing the stale slot again would write a second PROCESS record
	 * for the same image. */
	uint32_t st = LOAD_ACQ(&p->state);
	if (st != WPP_SHM_LIVE && st != WPP_SHM_EXITING)
		return 0;
	pt->announced = 1;
	pt->dead = 0;
	pt->nthreads = 0;
	pt->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)p->pid, 0);
	if (pt->pidfd < 0 || read_start_ticks(p->pid, &ticks) < 0 || ticks != p->start_ticks)
		pt->dead = 1;
	if ((err = announce_parent(c, s, p)))
		return err;
	err = s->process(s->ctx, p);
	return err;
}

static int scan_tus(struct wpp_shm_collector *c, const struct wpp_shm_sink *s)
{
	struct wpp_shm_header *h = c->h;
	int err;

	c->tu_epoch_seen = LOAD_ACQ(&h->tu_epoch);
	for (uint32_t i = 0; i < h->max_tus; i++) {
		struct wpp_shm_tu *t = wpp_shm_tu_at(h, i);
		uint32_t st = LOAD_ACQ(&t->state);
		if (st == WPP_SHM_LIVE && !c->tu_announced[i] && t->proc_index < h->max_procs) {
			if ((err = announce_proc(c, s, t->proc_index)))
				return err;
			c->tu_announced[i] = 1;
			if ((err = s->module(s->ctx, wpp_shm_proc_at(h, t->proc_index), t)))
				return err;
		} else if (wpp_shm_claim_abandoned(st)) {
			__atomic_compare_exchange_n(&t->state, &st, WPP_SHM_FREE, 0,
						    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
		}
	}
	return 0;
}

static void scan_procs(struct wpp_shm_collector *c, const struct wpp_shm_sink *s, int *err)
{
	struct wpp_shm_header *h = c->h;

	for (uint32_t i = 0; i < h->max_procs && !*err; i++) {
		struct wpp_shm_proc *p = wpp_shm_proc_at(h, i);
		struct proc_track *pt = &c->procs[i];
		uint32_t st = LOAD_ACQ(&p->state);

		if (st == WPP_SHM_LIVE || st == WPP_SHM_EXITING) {
			*err = announce_proc(c, s, i);
			if (pt->pidfd >= 0 && !pt->dead) {
				struct pollfd pfd = {pt->pidfd, POLLIN, 0};
				if (poll(&pfd, 1, 0) > 0)
					pt->dead = 1;
			}
		} else if (wpp_shm_claim_abandoned(st)) {
			__atomic_compare_exchange_n(&p->state, &st, WPP_SHM_FREE, 0,
						    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
		}
	}
}

static void zero_slot(struct wpp_batch_hdr *b, uint64_t words)
{
	memset(b, 0, sizeof(*b) + words * 8);
}

static int emit(struct wpp_shm_collector *c, const struct wpp_shm_sink *s, uint32_t ti,
		const struct wpp_batch_hdr *b, const uint64_t *words, uint32_t nwords)
{
	struct wpp_shm_thread *t = wpp_shm_thread_at(c->h, ti);
	struct wpp_shm_proc *p = wpp_shm_proc_at(c->h, t->proc_index);
	int err;

	if (LOAD_ACQ(&c->h->tu_epoch) != c->tu_epoch_seen && (err = scan_tus(c, s)))
		return err;
	c->totals.batches++;
	c->totals.words += nwords;
	if (b->level == 0 && b->seq > c->threads[ti].last_seq)
		c->threads[ti].last_seq = b->seq;
	return s->batch(s->ctx, p, t->tid, b, words, nwords);
}

/* The collector half of the space handshake (wpp_shm_ring_begin): called
 * after a seq_cst store of tail, so either we see producer_waiting or the
 * producer sees the new tail and does not sleep. */
static void wake_producer(struct wpp_shm_ring *r)
{
	if (__atomic_load_n(&r->producer_waiting, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&r->producer_waiting, 0, __ATOMIC_SEQ_CST);
		__atomic_fetch_add(&r->space_futex, 1, __ATOMIC_RELEASE);
		wpp_futex_wake_all(&r->space_futex);
	}
}

/* Consume every published slot of every ring of thread ti.  A producer
 * waiting on a full ring is woken once the ring is down to the low-water
 * mark (hysteresis, wpp_shm_space_low): its head cannot move while it
 * waits, so the loop always gets there (it drains up to head), and the
 * producer then has half a ring to fill before it can block again, instead
 * of one slot per FUTEX_WAIT/FUTEX_WAKE pair.  If the sink fails half-way
 * the producer is woken anyway: whatever was freed is its to use. */
static long drain_thread(struct wpp_shm_collector *c, const struct wpp_shm_sink *s, uint32_t ti,
			 int *err)
{
	struct wpp_shm_header *h = c->h;
	struct wpp_shm_thread *t = wpp_shm_thread_at(h, ti);
	uint32_t cap = h->buffer_words + WPP_SLACK_WORDS;
	long n = 0;

	for (int l = 0; l < WPP_SHM_LEVELS && !*err; l++) {
		struct wpp_shm_ring *r = &t->rings[l];
		uint64_t head = LOAD_ACQ(&r->head);
		uint32_t low = wpp_shm_space_low(r->nslots);
		uint64_t tail0 = r->tail;
		while (r->tail < head && !*err) {
			struct wpp_batch_hdr *b = wpp_shm_slot(h, ti, r, r->tail);
			uint32_t nw = b->nwords > cap ? cap : b->nwords;
			*err = emit(c, s, ti, b, (const uint64_t *)(b + 1), nw);
			zero_slot(b, nw + WPP_SLACK_WORDS > cap ? cap : nw + WPP_SLACK_WORDS);
			__atomic_store_n(&r->tail, r->tail + 1, __ATOMIC_SEQ_CST);
			if (head - r->tail <= low)
				wake_producer(r);
			n++;
		}
		if (*err && r->tail != tail0)
			wake_producer(r);
	}
	return n;
}

/* The slot a dead producer was filling: its words are the non-zero prefix
 * (slots are zeroed before reuse); holes left by records reserved but never
 * written become PAD so decoders never see a zero word. */
static int salvage_thread(struct wpp_shm_collector *c, const struct wpp_shm_sink *s, uint32_t ti)
{
	struct wpp_shm_header *h = c->h;
	struct wpp_shm_thread *t = wpp_shm_thread_at(h, ti);
	uint32_t cap = h->buffer_words + WPP_SLACK_WORDS;
	int err = 0;

	for (int l = 0; l < WPP_SHM_LEVELS && !err; l++) {
		struct wpp_shm_ring *r = &t->rings[l];
		struct wpp_batch_hdr *b;
		uint64_t *w;
		uint32_t n = cap;

		if (r->head - r->tail >= r->nslots)
			continue;
		b = wpp_shm_slot(h, ti, r, r->head);
		w = (uint64_t *)(b + 1);
		if (b->seq == 0)
			continue;
		while (n > 0 && w[n - 1] == 0)
			n--;
		for (uint32_t i = 0; i < n; i++)
			if (w[i] == 0)
				w[i] = wpp_make_ctrl(WPP_CTRL_PAD, 0);
		b->nwords = n;
		b->flags |= WPP_BATCH_SALVAGED | WPP_BATCH_FINAL;
		if (!b->time_ns)
			b->time_ns = now_ns();
		c->totals.salvaged_batches++;
		err = emit(c, s, ti, b, w, n);
		zero_slot(b, cap);
	}
	return err;
}

static int finish_thread(struct wpp_shm_collector *c, const struct wpp_shm_sink *s, uint32_t ti)
{
	struct wpp_shm_thread *t = wpp_shm_thread_at(c->h, ti);
	struct wpp_shm_proc *p = wpp_shm_proc_at(c->h, t->proc_index);
	int err = 0;

	drain_thread(c, s, ti, &err);
	if (!err)
		err = salvage_thread(c, s, ti);
	if (!err)
		err = s->thread(s->ctx, p, t->tid, WPP_THREAD_EXIT, now_ns());
	init_thread_rings(c->h, t);
	memset(&c->threads[ti], 0, sizeof(c->threads[ti]));
	STORE_REL(&t->state, WPP_SHM_FREE);
	return err;
}

/* Free a finished process image's entry and its modules for reuse. */
static void retire_proc(struct wpp_shm_collector *c, uint32_t pi)
{
	struct wpp_shm_header *h = c->h;
	struct proc_track *pt = &c->procs[pi];

	for (uint32_t i = 0; i < h->max_tus; i++) {
		struct wpp_shm_tu *t = wpp_shm_tu_at(h, i);
		if (c->tu_announced[i] && t->proc_index == pi) {
			c->tu_announced[i] = 0;
			STORE_REL(&t->state, WPP_SHM_FREE);
		}
	}
	if (pt->pidfd >= 0)
		close(pt->pidfd);
	memset(pt, 0, sizeof(*pt));
	pt->pidfd = -1;
	STORE_REL(&wpp_shm_proc_at(h, pi)->state, WPP_SHM_FREE);
}

long wpp_shm_collector_drain(struct wpp_shm_collector *c, const struct wpp_shm_sink *s)
{
	struct wpp_shm_header *h = c->h;
	long n = 0;
	int err = 0;

	scan_procs(c, s, &err);
	if (!err)
		err = scan_tus(c, s);
	for (uint32_t i = 0; i < h->max_procs; i++) {
		c->procs[i].nthreads = 0;
		c->procs[i].counted = c->procs[i].announced;
	}
	for (uint32_t i = 0; i < h->max_threads && !err; i++) {
		struct wpp_shm_thread *t = wpp_shm_thread_at(h, i);
		struct thread_track *tt = &c->threads[i];
		uint32_t st = LOAD_ACQ(&t->state);
		struct proc_track *pt;
		struct wpp_shm_proc *p;
		int dead;

		if (st == WPP_SHM_FREE)
			continue;
		if ((st & 0xf) == WPP_SHM_CLAIMED) {
			if (wpp_shm_pid_gone(st >> 4) || c->finishing)
				__atomic_compare_exchange_n(&t->state, &st, WPP_SHM_FREE, 0,
							    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
			continue;
		}
		if (t->proc_index >= h->max_procs)
			continue; /* cannot happen with a well-behaved producer */
		p = wpp_shm_proc_at(h, t->proc_index);
		pt = &c->procs[t->proc_index];
		if ((err = announce_proc(c, s, t->proc_index)))
			break;
		if (!tt->announced) {
			tt->announced = 1;
			if ((err = s->thread(s->ctx, p, t->tid, WPP_THREAD_START, t->start_ns)))
				break;
		}
		n += drain_thread(c, s, i, &err);
		uint64_t lost = LOAD_ACQ(&t->lost_words);
		if (!err && lost != tt->lost_seen) {
			c->totals.lost_words += lost - tt->lost_seen;
			err = s->gap(s->ctx, p, t->tid, tt->last_seq, lost - tt->lost_seen);
			tt->lost_seen = lost;
		}
		dead = c->finishing || pt->dead || LOAD_ACQ(&p->state) == WPP_SHM_EXITING ||
		       (st == WPP_SHM_EXITING && wpp_shm_tid_gone(t->pid, t->tid));
		if (dead && !err)
			err = finish_thread(c, s, i);
		else
			pt->nthreads++;
	}
	for (uint32_t i = 0; i < h->max_procs && !err; i++) {
		struct proc_track *pt = &c->procs[i];
		uint32_t st = LOAD_ACQ(&wpp_shm_proc_at(h, i)->state);
		if (!pt->announced || !pt->counted || pt->nthreads)
			continue;
		if (pt->dead || st == WPP_SHM_EXITING || c->finishing) {
			err = scan_tus(c, s); /* report late modules before retiring */
			retire_proc(c, i);
		}
	}
	c->totals.table_full = LOAD_ACQ(&h->table_full);
	return err ? err : n;
}

unsigned wpp_shm_collector_live(const struct wpp_shm_collector *c)
{
	unsigned n = 0;
	for (uint32_t i = 0; i < c->h->max_procs; i++)
		n += LOAD_ACQ(&wpp_shm_proc_at(c->h, i)->state) != WPP_SHM_FREE;
	return n;
}

/*
 * The collector half of the doorbell handshake (wpp_shm_ring_publish):
 * set collector_sleeping (seq_cst), then look at every ring; sleep only if
 * none holds an unconsumed slot.  A producer whose publish came before our
 * flag was visible rang no bell, but its head is visible to this scan.
 * The doorbell value is read before the flag, so a ring between the scan
 * and FUTEX_WAIT changes the word and the wait returns at once.
 * Producers ring only at half a ring or on a partial/final batch, so the
 * sleep is always bounded by timeout_ms: that bound is how long a batch
 * that rang no bell can wait, and how soon a dead process is noticed.
 */
int wpp_shm_collector_wait(struct wpp_shm_collector *c, long timeout_ms)
{
	struct wpp_shm_header *h = c->h;
	uint32_t v = LOAD_ACQ(&h->doorbell);
	int pending = 0, rc = 1;

	__atomic_store_n(&h->collector_sleeping, 1, __ATOMIC_SEQ_CST);
	for (uint32_t i = 0; i < h->max_threads && !pending; i++) {
		struct wpp_shm_thread *t = wpp_shm_thread_at(h, i);
		if (LOAD_ACQ(&t->state) == WPP_SHM_FREE)
			continue;
		for (int l = 0; l < WPP_SHM_LEVELS; l++)
			if (__atomic_load_n(&t->rings[l].head, __ATOMIC_SEQ_CST) !=
			    t->rings[l].tail)
				pending = 1;
	}
	if (!pending && wpp_futex_wait(&h->doorbell, v, timeout_ms) == -ETIMEDOUT)
		rc = 0;
	__atomic_store_n(&h->collector_sleeping, 0, __ATOMIC_SEQ_CST);
	return rc;
}

static void wake_all_producers(struct wpp_shm_header *h)
{
	for (uint32_t i = 0; i < h->max_threads; i++)
		for (int l = 0; l < WPP_SHM_LEVELS; l++)
			wake_producer(&wpp_shm_thread_at(h, i)->rings[l]);
}

long wpp_shm_collector_finish(struct wpp_shm_collector *c, const struct wpp_shm_sink *s)
{
	long n;

	c->finishing = 1;
	n = wpp_shm_collector_drain(c, s);
	/* Anyone still alive now drops rather than waits for us: set the flag,
	 * then wake every waiting producer so it sees it now, not after its
	 * 200 ms timeout.  (A producer that sets producer_waiting after this
	 * load finds collector_gone at its timeout.) */
	STORE_REL(&c->h->collector_gone, 1);
	wake_all_producers(c->h);
	return n;
}

void wpp_shm_collector_totals(const struct wpp_shm_collector *c, struct wpp_shm_totals *t)
{
	*t = c->totals;
	t->doorbell_wakes = LOAD_ACQ(&c->h->doorbell_wakes);
	t->space_waits = LOAD_ACQ(&c->h->space_waits);
	t->space_wait_timeouts = LOAD_ACQ(&c->h->space_wait_timeouts);
	t->entry_waits = LOAD_ACQ(&c->h->entry_waits);
}

void wpp_shm_collector_destroy(struct wpp_shm_collector *c)
{
	if (!c)
		return;
	STORE_REL(&c->h->collector_gone, 1);
	wake_all_producers(c->h);
	for (uint32_t i = 0; i < c->h->max_procs; i++)
		if (c->procs[i].pidfd >= 0)
			close(c->procs[i].pidfd);
	munmap(c->h, c->h->region_size);
	close(c->fd);
	free(c->procs);
	free(c->threads);
	free(c->tu_announced);
	free(c);
}
