/* SPDX-License-Identifier: MIT */
/*
 * shm_collector.c — the drain side of the shm transport (contract in
 * shm_collector.h).
 *
 * Every traced process maps the region read-write, so each of them can
 * write every byte of it at any time: a program that drops privileges, a
 * bug, or a process that was never ours but got at the region.  Nothing in
 * it is trusted for memory safety or for the collector's own progress:
 *  - the geometry (table sizes, ring lengths, slot counts and sizes,
 *    offsets) is the collector's copy from creation, never re-read;
 *  - ring tails are the collector's own (it is their only writer), and a
 *    head read from the region must lie in [tail, tail + ring length];
 *  - indices read from the region (a thread's process, a module's process)
 *    are bounded by the copy; batch lengths by the slot;
 *  - the tables' high-water marks only ever raise the collector's own
 *    bounds of the entries it looks at, never past its table sizes, and
 *    the kernel's map of the memfd's touched pages, asked every COVER_NS,
 *    before a process is retired and at the end, finds any entry in use
 *    that a lowered mark hid;
 *  - what the sink sees are the collector's copies (a process as it was
 *    when announced, a module's strings NUL-terminated within their
 *    arrays, a batch header with its length bounded), never the region.
 * A producer caught breaking these rules is cut off: its threads get their
 * EXIT at once, its entries are never read or reused again (quarantined),
 * and it is counted and queued for a one-line report
 * (wpp_shm_collector_cutoff).  Everyone else's recording goes on and ends
 * normally.  The region is a memfd sealed against shrinking, so no one can
 * turn our accesses into SIGBUS by truncating it.
 */
#include "kmod-free/shm_collector.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "common/cpu_clock.h"
#include "kmod-free/shm_entries.h"
#include "kmod-free/shm_futex.h"
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
	int cut;		  /* misbehaved: quarantined for the rest of the run */
	struct wpp_shm_proc snap; /* the entry as announced: what the sink sees */
};

struct thread_track {
	int announced;
	int cut;
	uint32_t proc_index; /* as at START, like pid and tid */
	uint32_t pid, tid;
	uint64_t lost_seen;
	uint64_t last_seq;
	uint64_t tail[WPP_SHM_LEVELS]; /* ours: the region's copy is for producers */
};

#define CUTOFF_QUEUE 16
/* How often the drain walks the whole TU table without being told to. */
#define TU_RESCAN_NS 100000000u
/* How often the drain asks every process's pidfd whether it is gone
 * without being nudged (wpp_shm_collector_nudge: record's SIGCHLD).  A
 * poll per process on every pass was 2 % of lua's collector (a pass per
 * 15 batches); a traced process that is not record's child (a grandchild
 * under a shell that forked it) is noticed within this. */
#define PROC_POLL_NS 10000000u
/* How often the drain asks the kernel which pages of the tables were ever
 * written (cover_written_pages), in case a writer lowered a mark. */
#define COVER_NS 100000000u

struct wpp_shm_collector {
	struct wpp_shm_header *h;
	struct wpp_shm_geometry g; /* ours, from creation */
	uint32_t cap;		   /* words a slot holds, slack included */
	int fd;
	char env[64];
	struct proc_track *procs;
	struct thread_track *threads;
	uint8_t *tu_announced;
	uint32_t *tu_owner; /* the process entry a module was announced under */
	/* Entries at or above these were never claimed, as far as we know:
	 * the running maximum of the producers' marks (shm_proto.h), of the
	 * indices we were given and of the entries in use on the pages the
	 * kernel says were touched, never above the table sizes.  The loops stop there, so a
	 * table's unused pages are never read (each first read of a page of the region is a page
	 * fault that allocates it), and our track entries at or above procs_seen are still
	 * untouched calloc memory. */
	uint32_t procs_seen, tus_seen, threads_seen;
	uint64_t cover_ns; /* when cover_written_pages last asked the kernel */
	uint32_t tu_epoch_seen;
	uint64_t tu_scan_ns; /* when scan_tus last looked at every entry */
	uint64_t poll_ns;    /* when scan_procs last polled the pidfds */
	int nudged;	     /* wpp_shm_collector_nudge since (atomic) */
	int finishing;
	struct wpp_shm_totals totals;
	struct {
		uint32_t pid;
		const char *why;
	} cutoffs[CUTOFF_QUEUE];
	unsigned ncutoffs;
};

static struct wpp_shm_thread *thread_at(struct wpp_shm_collector *c, uint32_t i)
{
	return wpp_shm_thread_at(c->h, &c->g, i);
}
static struct wpp_shm_proc *proc_at(struct wpp_shm_collector *c, uint32_t i)
{
	return wpp_shm_proc_at(c->h, &c->g, i);
}
static struct wpp_shm_tu *tu_at(struct wpp_shm_collector *c, uint32_t i)
{
	return wpp_shm_tu_at(c->h, &c->g, i);
}

/* Track entries [procs_seen, n) come into use: a process entry's track
 * needs its "no pidfd" (-1) before anything looks at it. */
static void cover_procs(struct wpp_shm_collector *c, uint32_t n)
{
	for (; c->procs_seen < n; c->procs_seen++)
		c->procs[c->procs_seen].pidfd = -1;
}
/* Raise a bound of the TU or thread table (tus_seen, threads_seen) to n. */
static void cover(uint32_t *seen, uint32_t n)
{
	if (*seen < n)
		*seen = n;
}

/* A producers' high-water mark, bounded by our table size: anyone can
 * write it, so it only ever raises our bound, and never past the table. */
static uint32_t mark_of(uint32_t *mark, uint32_t table_size)
{
	uint32_t n = __atomic_load_n(mark, __ATOMIC_SEQ_CST);
	return n < table_size ? n : table_size;
}

/* The thread table's bound raised to its producers' mark (read at the
 * points the callers' comments say why). */
static void see_thread_mark(struct wpp_shm_collector *c)
{
	cover(&c->threads_seen, mark_of(&c->h->threads_high, c->g.max_threads));
}

/* Every table entry starts with its state word: entries_in_use reads it
 * without knowing the table. */
_Static_assert(offsetof(struct wpp_shm_proc, state) == 0, "state first");
_Static_assert(offsetof(struct wpp_shm_tu, state) == 0, "state first");
_Static_assert(offsetof(struct wpp_shm_thread, state) == 0, "state first");

/* Of the entries of a table (n of size bytes at off) whose state word lies
 * in the touched range [data, hole): 1 + the highest not FREE, or used if
 * none is. */
static uint32_t last_in_use(struct wpp_shm_collector *c, uint64_t off, uint64_t size, uint32_t n,
			    uint64_t data, uint64_t hole, uint32_t used)
{
	uint64_t i = data > off ? (data - off + size - 1) / size : 0;

	for (; i < n && off + i * size < hole; i++)
		if (LOAD_ACQ((uint32_t *)((char *)c->h + off + i * size)) != WPP_SHM_FREE)
			used = (uint32_t)i + 1;
	return used;
}

/* 1 + the highest entry not FREE of a table (n entries of size bytes at
 * off), looking only at the pages the memfd's own map of data and holes
 * (lseek SEEK_DATA / SEEK_HOLE) says were ever touched: a hole reads as
 * zeros, so all its entries are FREE.  The map is the kernel's, which no
 * writer of the region can forge: a lowered mark hides nothing from it.
 * n when the kernel cannot say. */
static uint32_t entries_in_use(struct wpp_shm_collector *c, uint64_t off, uint64_t size, uint32_t n)
{
	uint64_t to = off + n * size;
	uint32_t used = 0;
	off_t data, hole;

	for (uint64_t pos = off; pos < to; pos = (uint64_t)hole) {
		data = lseek(c->fd, (off_t)pos, SEEK_DATA);
		if (data < 0)
			return errno == ENXIO ? used : n; /* ENXIO: no data past pos */
		if ((uint64_t)data >= to)
			break;
		hole = lseek(c->fd, data, SEEK_HOLE);
		if (hole < 0)
			return n;
		used = last_in_use(c, off, size, n, (uint64_t)data, (uint64_t)hole, used);
	}
	return used;
}

/* Raise the bounds to every entry in use on a page anyone touched: a few
 * syscalls, done every COVER_NS and when finishing, so an entry hidden by
 * a lowered mark is found late, not lost.  1 if the TU bound grew (the
 * modules found must be read now). */
static int cover_written_pages(struct wpp_shm_collector *c, uint64_t now)
{
	uint32_t tus_before = c->tus_seen;

	c->cover_ns = now;
	cover_procs(c,
		    entries_in_use(c, c->g.procs_off, sizeof(struct wpp_shm_proc), c->g.max_procs));
	cover(&c->tus_seen,
	      entries_in_use(c, c->g.tus_off, sizeof(struct wpp_shm_tu), c->g.max_tus));
	cover(&c->threads_seen,
	      entries_in_use(c, c->g.threads_off, sizeof(struct wpp_shm_thread), c->g.max_threads));
	return c->tus_seen != tus_before;
}

/* Rings at head == tail == 0, for an entry freed for reuse (their place
 * and length, informative, are the next claimer's to write). */
static void init_thread_rings(struct wpp_shm_collector *c, uint32_t ti)
{
	struct wpp_shm_thread *t = thread_at(c, ti);
	for (int l = 0; l < WPP_SHM_LEVELS; l++) {
		struct wpp_shm_ring *r = &t->rings[l];
		r->head = r->tail = 0;
		r->space_futex = r->producer_waiting = 0;
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
	wpp_shm_geometry_of(&o, &c->g);
	c->cap = c->g.buffer_words + WPP_SLACK_WORDS;
	c->procs = calloc(o.max_procs, sizeof(*c->procs));
	c->threads = calloc(o.max_threads, sizeof(*c->threads));
	c->tu_announced = calloc(o.max_tus, 1);
	c->tu_owner = calloc(o.max_tus, sizeof(*c->tu_owner));
	c->fd = (int)syscall(SYS_memfd_create, "wpptrace-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (!c->procs || !c->threads || !c->tu_announced || !c->tu_owner || c->fd < 0 ||
	    ftruncate(c->fd, (off_t)c->g.region_size) < 0 ||
	    fcntl(c->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
		goto fail;
	m = mmap(NULL, c->g.region_size, PROT_READ | PROT_WRITE, MAP_SHARED, c->fd, 0);
	if (m == MAP_FAILED)
		goto fail;
	c->h = m;
	memcpy(c->h, &layout, sizeof(layout));
	/* The rest of the region is zero, as the kernel gives it: every entry
	 * FREE, every ring at head == tail == 0 (the claimer writes its
	 * rings' informative fields).  Writing it would allocate every page
	 * of the tables at once. */
	c->h->collector_pid = (uint32_t)getpid();
	c->cover_ns = monotonic_ns();
	snprintf(c->env, sizeof(c->env), "/proc/%d/fd/%d", (int)getpid(), c->fd);
	return c;
fail: {
	int err = errno;
	if (c->fd >= 0)
		close(c->fd);
	free(c->procs);
	free(c->threads);
	free(c->tu_announced);
	free(c->tu_owner);
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
	for (uint32_t j = 0; j < c->procs_seen; j++) {
		struct wpp_shm_proc *q = proc_at(c, j);
		uint32_t st = LOAD_ACQ(&q->state);
		if ((st == WPP_SHM_LIVE || st == WPP_SHM_EXITING) && q->pid == child->ppid &&
		    !c->procs[j].announced && !c->procs[j].cut)
			return announce_proc(c, s, j);
	}
	return 0;
}

static int announce_proc(struct wpp_shm_collector *c, const struct wpp_shm_sink *s, uint32_t i)
{
	struct wpp_shm_proc *p = proc_at(c, i);
	struct proc_track *pt = &c->procs[i];
	uint64_t ticks;

	cover_procs(c, i + 1); /* a thread or module named it: watch it from now on */
	if (pt->announced || pt->cut)
		return 0;
	/* A slot retired in an earlier pass (FREE) or being claimed by a new
	 * process (CLAIMED) no longer describes the process its late thread or
	 * module belongs to; that process was announced while it was live, so
	 * announcing the stale slot again would write a second PROCESS record
	 * for the same image. */
	uint32_t st = LOAD_ACQ(&p->state);
	if (st != WPP_SHM_LIVE && st != WPP_SHM_EXITING)
		return 0;
	/* Our copy, with its strings ending inside their arrays: later
	 * writes to the entry change nothing the sink is given. */
	memcpy(&pt->snap, p, sizeof(pt->snap));
	pt->snap.exe[WPP_SHM_EXE_MAX - 1] = 0;
	pt->snap.exe_len = (uint32_t)strlen(pt->snap.exe) + 1;
	if (pt->snap.cmdline_len > WPP_SHM_CMDLINE_MAX)
		pt->snap.cmdline_len = WPP_SHM_CMDLINE_MAX;
	if (pt->snap.cmdline_len)
		pt->snap.cmdline[pt->snap.cmdline_len - 1] = 0;
	pt->announced = 1;
	pt->dead = 0;
	pt->nthreads = 0;
	pt->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pt->snap.pid, 0);
	if (pt->pidfd < 0 || read_start_ticks(pt->snap.pid, &ticks) < 0 ||
	    ticks != pt->snap.start_ticks)
		pt->dead = 1;
	int err = announce_parent(c, s, &pt->snap);
	return err ? err : s->process(s->ctx, &pt->snap);
}

static void wake_producer(struct wpp_shm_ring *r);

/* Note a misbehaving producer for the caller's report (the queue keeps the
 * first CUTOFF_QUEUE not yet taken; all are counted). */
static void note_cutoff(struct wpp_shm_collector *c, uint32_t pid, const char *why)
{
	c->totals.misbehaved++;
	if (c->ncutoffs < CUTOFF_QUEUE) {
		c->cutoffs[c->ncutoffs].pid = pid;
		c->cutoffs[c->ncutoffs].why = why;
		c->ncutoffs++;
	}
}

int wpp_shm_collector_cutoff(struct wpp_shm_collector *c, uint32_t *pid, const char **why)
{
	if (!c->ncutoffs)
		return 0;
	*pid = c->cutoffs[0].pid;
	*why = c->cutoffs[0].why;
	memmove(c->cutoffs, c->cutoffs + 1, --c->ncutoffs * sizeof(c->cutoffs[0]));
	return 1;
}

/* Stop reading thread slot ti for good: its EXIT is reported now if its
 * START was, so the recording ends it properly.  Its process, if known, is
 * cut off as a whole (its other threads follow at their next visit). */
static int cut_thread(struct wpp_shm_collector *c, const struct wpp_shm_sink *s, uint32_t ti,
		      const char *why)
{
	struct thread_track *tt = &c->threads[ti];
	int err = 0;

	if (tt->cut)
		return 0;
	tt->cut = 1;
	/* Tell the producer: it stops using its rings instead of waiting for
	 * space nobody will free (a traced program must run to its end). */
	for (int l = 0; l < WPP_SHM_LEVELS; l++) {
		struct wpp_shm_ring *r = &thread_at(c, ti)->rings[l];
		__atomic_store_n(&r->tail, WPP_SHM_TAIL_CUT, __ATOMIC_SEQ_CST);
		wake_producer(r);
	}
	if (tt->announced) {
		struct proc_track *pt = &c->procs[tt->proc_index];
		if (!pt->cut) {
			pt->cut = 1;
			note_cutoff(c, tt->pid, why);
		}
		err = s->thread(s->ctx, &pt->snap, tt->tid, WPP_THREAD_EXIT, monotonic_ns());
	} else {
		note_cutoff(c, thread_at(c, ti)->pid, why);
	}
	return err;
}

static int scan_tus(struct wpp_shm_collector *c, const struct wpp_shm_sink *s)
{
	int err;

	/* (the mark after the epoch: a producer raises it before it bumps) */
	c->tu_epoch_seen = LOAD_ACQ(&c->h->tu_epoch);
	cover(&c->tus_seen, mark_of(&c->h->tus_high, c->g.max_tus));
	c->tu_scan_ns = monotonic_ns();
	for (uint32_t i = 0; i < c->tus_seen; i++) {
		struct wpp_shm_tu *t = tu_at(c, i);
		uint32_t st = LOAD_ACQ(&t->state);
		uint32_t pi = t->proc_index;
		if (st == WPP_SHM_LIVE && !c->tu_announced[i] && pi < c->g.max_procs &&
		    !c->procs[pi].cut) {
			struct wpp_shm_tu copy;
			if ((err = announce_proc(c, s, pi)))
				return err;
			if (!c->procs[pi].announced)
				continue; /* its process is not (or no longer) there */
			memcpy(&copy, t, sizeof(copy));
			copy.proc_index = pi;
			copy.path[WPP_SHM_PATH_MAX - 1] = 0;
			copy.path_len = (uint32_t)strlen(copy.path) + 1;
			if (copy.build_id_len > sizeof(copy.build_id))
				copy.build_id_len = sizeof(copy.build_id);
			c->tu_announced[i] = 1;
			c->tu_owner[i] = pi;
			if ((err = s->module(s->ctx, &c->procs[pi].snap, &copy)))
				return err;
		} else if (wpp_shm_claim_abandoned(st)) {
			__atomic_compare_exchange_n(&t->state, &st, WPP_SHM_FREE, 0,
						    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
		}
	}
	return 0;
}

static void scan_procs(struct wpp_shm_collector *c, const struct wpp_shm_sink *s, uint64_t now,
		       int *err)
{
	/* (the flag is taken before the polls: a nudge during them stays) */
	int poll_now = __atomic_exchange_n(&c->nudged, 0, __ATOMIC_ACQ_REL) || c->finishing ||
		       now - c->poll_ns >= PROC_POLL_NS;

	if (poll_now)
		c->poll_ns = now;
	for (uint32_t i = 0; i < c->procs_seen && !*err; i++) {
		struct wpp_shm_proc *p = proc_at(c, i);
		struct proc_track *pt = &c->procs[i];
		uint32_t st = LOAD_ACQ(&p->state);

		if (pt->cut)
			continue;
		if (st == WPP_SHM_LIVE || st == WPP_SHM_EXITING) {
			int fresh = !pt->announced;
			*err = announce_proc(c, s, i);
			if (pt->pidfd >= 0 && !pt->dead && (poll_now || fresh)) {
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

/* Hand one batch to the sink: hdr is our copy, nwords bounded by the slot. */
static int emit(struct wpp_shm_collector *c, const struct wpp_shm_sink *s, uint32_t ti,
		struct wpp_batch_hdr *hdr, const uint64_t *words, uint32_t nwords)
{
	struct thread_track *tt = &c->threads[ti];
	int err;

	if (LOAD_ACQ(&c->h->tu_epoch) != c->tu_epoch_seen && (err = scan_tus(c, s)))
		return err;
	hdr->nwords = nwords;
	c->totals.batches++;
	c->totals.words += nwords;
	if (hdr->level == 0 && hdr->seq > tt->last_seq)
		tt->last_seq = hdr->seq;
	return s->batch(s->ctx, &c->procs[tt->proc_index].snap, tt->tid, hdr, words, nwords);
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

/* The ring's head, if it is one a producer following the protocol can have
 * published: between our tail and a full ring.  Else -1 (cut it off). */
static int ring_head(struct wpp_shm_collector *c, uint32_t ti, int l, uint64_t *head)
{
	uint64_t tail = c->threads[ti].tail[l];

	*head = LOAD_ACQ(&thread_at(c, ti)->rings[l].head);
	return *head >= tail && *head - tail <= wpp_shm_ring_len(&c->g, l) ? 0 : -1;
}

/* Consume every published slot of every ring of thread ti.  A producer
 * waiting on a full ring is woken once the ring is down to the low-water
 * mark (hysteresis, wpp_shm_space_low): its head cannot move while it
 * waits, so the loop always gets there (it drains up to head), and the
 * producer then has half a ring to fill before it can block again, instead
 * of one slot per FUTEX_WAIT/FUTEX_WAKE pair.  If the sink fails half-way
 * the producer is woken anyway: whatever was freed is its to use.  A ring
 * whose head or batch breaks the protocol cuts its producer off. */
static long drain_thread(struct wpp_shm_collector *c, const struct wpp_shm_sink *s, uint32_t ti,
			 int *err)
{
	struct wpp_shm_thread *t = thread_at(c, ti);
	struct thread_track *tt = &c->threads[ti];
	long n = 0;

	for (int l = 0; l < WPP_SHM_LEVELS && !*err && !tt->cut; l++) {
		struct wpp_shm_ring *r = &t->rings[l];
		uint32_t low = wpp_shm_space_low(wpp_shm_ring_len(&c->g, l));
		uint64_t head, tail0 = tt->tail[l];
		if (ring_head(c, ti, l, &head) < 0) {
			*err = cut_thread(c, s, ti, "ring head out of range");
			break;
		}
		while (tt->tail[l] < head && !*err) {
			struct wpp_batch_hdr *b = wpp_shm_slot(c->h, &c->g, ti, l, tt->tail[l]);
			struct wpp_batch_hdr hdr = *b;
			if (hdr.nwords > c->cap) {
				*err = cut_thread(c, s, ti, "batch longer than its slot");
				break;
			}
			*err = emit(c, s, ti, &hdr, (const uint64_t *)(b + 1), hdr.nwords);
			zero_slot(b, hdr.nwords + WPP_SLACK_WORDS > c->cap
					 ? c->cap
					 : hdr.nwords + WPP_SLACK_WORDS);
			tt->tail[l]++;
			__atomic_store_n(&r->tail, tt->tail[l], __ATOMIC_SEQ_CST);
			if (head - tt->tail[l] <= low)
				wake_producer(r);
			n++;
		}
		if (*err && tt->tail[l] != tail0)
			wake_producer(r);
	}
	return n;
}

/* The slot a dead producer was filling: its words are the non-zero prefix
 * (slots are zeroed before reuse); holes left by records reserved but never
 * written become PAD so decoders never see a zero word. */
static int salvage_thread(struct wpp_shm_collector *c, const struct wpp_shm_sink *s, uint32_t ti)
{
	struct thread_track *tt = &c->threads[ti];
	int err = 0;

	for (int l = 0; l < WPP_SHM_LEVELS && !err && !tt->cut; l++) {
		struct wpp_batch_hdr *b, hdr;
		uint64_t *w, head;
		uint32_t n = c->cap;

		if (ring_head(c, ti, l, &head) < 0)
			return cut_thread(c, s, ti, "ring head out of range");
		if (head - tt->tail[l] >= wpp_shm_ring_len(&c->g, l))
			continue;
		b = wpp_shm_slot(c->h, &c->g, ti, l, head);
		w = (uint64_t *)(b + 1);
		hdr = *b;
		if (hdr.seq == 0)
			continue;
		while (n > 0 && w[n - 1] == 0)
			n--;
		for (uint32_t i = 0; i < n; i++)
			if (w[i] == 0)
				w[i] = wpp_make_ctrl(WPP_CTRL_PAD, 0);
		hdr.flags |= WPP_BATCH_SALVAGED | WPP_BATCH_FINAL;
		if (!hdr.time_ns)
			hdr.time_ns = monotonic_ns();
		c->totals.salvaged_batches++;
		err = emit(c, s, ti, &hdr, w, n);
		zero_slot(b, c->cap);
	}
	return err;
}

/* Free thread slot ti for reuse (the thread is gone, or the run ends). */
static int finish_thread(struct wpp_shm_collector *c, const struct wpp_shm_sink *s, uint32_t ti)
{
	struct thread_track *tt = &c->threads[ti];
	int err = 0;

	drain_thread(c, s, ti, &err);
	if (!err)
		err = salvage_thread(c, s, ti);
	if (tt->cut)
		return err; /* quarantined: its EXIT is written */
	if (!err)
		err = s->thread(s->ctx, &c->procs[tt->proc_index].snap, tt->tid, WPP_THREAD_EXIT,
				monotonic_ns());
	init_thread_rings(c, ti);
	memset(tt, 0, sizeof(*tt));
	STORE_REL(&thread_at(c, ti)->state, WPP_SHM_FREE);
	return err;
}

/* Free a finished process image's entry and its modules for reuse. */
static void retire_proc(struct wpp_shm_collector *c, uint32_t pi)
{
	struct proc_track *pt = &c->procs[pi];

	for (uint32_t i = 0; i < c->tus_seen; i++) {
		if (c->tu_announced[i] && c->tu_owner[i] == pi) {
			c->tu_announced[i] = 0;
			STORE_REL(&tu_at(c, i)->state, WPP_SHM_FREE);
		}
	}
	if (pt->pidfd >= 0)
		close(pt->pidfd);
	memset(pt, 0, sizeof(*pt));
	pt->pidfd = -1;
	STORE_REL(&proc_at(c, pi)->state, WPP_SHM_FREE);
}

/* Whether process pi, about to be retired, may have a thread this pass's
 * loop (entries [0, counted)) did not count: one claimed before the
 * process exited or exec'd but after the loop went by its entry.  Then
 * the retirement waits for the next pass, whose loop counts the thread
 * (and finishes it, the process being gone).  Read after the process's
 * state, so that a thread claimed before the exec is seen:
 *  - above the loop: the mark, and the memfd's page map, asked once in
 *    the pass before any retirement so that an entry a lowered mark hid
 *    (or a mark its claimer could not raise) is found before its process
 *    is freed, not after (at most once per entry: the bound only grows);
 *  - below it: an entry the loop passed while it was free (claims take
 *    the lowest free entry), live now and naming pi.  It is started by
 *    the next pass's loop, so that pass no longer finds it here.
 * A thread still being claimed (CLAIMED) has published nothing: if the
 * exec killed it, nothing of it is lost. */
static int uncounted_thread_of(struct wpp_shm_collector *c, uint32_t pi, uint32_t counted,
			       uint64_t now)
{
	see_thread_mark(c);
	if (c->cover_ns != now)
		cover_written_pages(c, now);
	if (c->threads_seen > counted)
		return 1;
	for (uint32_t i = 0; i < counted; i++) {
		const struct wpp_shm_thread *t = thread_at(c, i);
		uint32_t st;

		if (c->threads[i].announced || c->threads[i].cut)
			continue;
		st = LOAD_ACQ(&t->state);
		if ((st == WPP_SHM_LIVE || st == WPP_SHM_EXITING) && t->proc_index == pi)
			return 1;
	}
	return 0;
}

/* A thread slot seen for the first time: take its process, pid and tid
 * once, and say START.  A slot that names no announced process breaks the
 * protocol (a producer registers its process before its threads). */
static int start_thread(struct wpp_shm_collector *c, const struct wpp_shm_sink *s, uint32_t ti)
{
	struct wpp_shm_thread *t = thread_at(c, ti);
	struct thread_track *tt = &c->threads[ti];
	uint32_t pi = t->proc_index;
	int err;

	if (pi >= c->g.max_procs)
		return cut_thread(c, s, ti, "thread names no process");
	if (c->procs[pi].cut)
		return cut_thread(c, s, ti, "process already cut off");
	if ((err = announce_proc(c, s, pi)))
		return err;
	if (!c->procs[pi].announced)
		return cut_thread(c, s, ti, "thread names no process");
	tt->announced = 1;
	tt->proc_index = pi;
	tt->pid = t->pid;
	tt->tid = t->tid;
	return s->thread(s->ctx, &c->procs[pi].snap, tt->tid, WPP_THREAD_START, t->start_ns);
}

long wpp_shm_collector_drain(struct wpp_shm_collector *c, const struct wpp_shm_sink *s)
{
	uint64_t now = monotonic_ns();
	long n = 0;
	int err = 0, tus_grew = 0;

	if (c->finishing || now - c->cover_ns >= COVER_NS)
		tus_grew = cover_written_pages(c, now);
	cover_procs(c, mark_of(&c->h->procs_high, c->g.max_procs));
	scan_procs(c, s, now, &err);
	/* The TU table is a cache miss (and a page) per entry, too many to walk
	 * on every pass: a producer bumps the epoch after it registers (before
	 * any batch of that TU, which emit() checks too), so the epoch says
	 * when to look.  The periodic walk is for the rest: entries whose
	 * claimer died half way (freed for reuse), and a producer that
	 * registered without the bump (its modules come late, its own loss). */
	if (!err && (tus_grew || c->finishing || LOAD_ACQ(&c->h->tu_epoch) != c->tu_epoch_seen ||
		     now - c->tu_scan_ns >= TU_RESCAN_NS))
		err = scan_tus(c, s);
	for (uint32_t i = 0; i < c->procs_seen; i++) {
		c->procs[i].nthreads = 0;
		c->procs[i].counted = c->procs[i].announced;
	}
	/* (the mark after scan_procs saw processes gone: the threads they
	 * claimed before they went are below it) */
	see_thread_mark(c);
	uint32_t threads_counted = c->threads_seen;
	for (uint32_t i = 0; i < threads_counted && !err; i++) {
		struct wpp_shm_thread *t = thread_at(c, i);
		struct thread_track *tt = &c->threads[i];
		uint32_t st = LOAD_ACQ(&t->state);
		struct proc_track *pt;
		int dead;

		if (st == WPP_SHM_FREE || tt->cut)
			continue;
		if ((st & 0xf) == WPP_SHM_CLAIMED) {
			if (wpp_shm_pid_gone(st >> 4) || c->finishing)
				__atomic_compare_exchange_n(&t->state, &st, WPP_SHM_FREE, 0,
							    __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
			continue;
		}
		if (!tt->announced && ((err = start_thread(c, s, i)) || tt->cut))
			continue;
		pt = &c->procs[tt->proc_index];
		if (pt->cut) {
			err = cut_thread(c, s, i, "process already cut off");
			continue;
		}
		n += drain_thread(c, s, i, &err);
		if (tt->cut)
			continue;
		uint64_t lost = LOAD_ACQ(&t->lost_words);
		if (!err && lost < tt->lost_seen) {
			err = cut_thread(c, s, i, "lost-word count went back");
			continue;
		}
		if (!err && lost != tt->lost_seen) {
			c->totals.lost_words += lost - tt->lost_seen;
			err =
			    s->gap(s->ctx, &pt->snap, tt->tid, tt->last_seq, lost - tt->lost_seen);
			tt->lost_seen = lost;
		}
		dead = c->finishing || pt->dead ||
		       LOAD_ACQ(&proc_at(c, tt->proc_index)->state) == WPP_SHM_EXITING ||
		       (st == WPP_SHM_EXITING && wpp_shm_tid_gone(tt->pid, tt->tid));
		if (dead && !err)
			err = finish_thread(c, s, i);
		else
			pt->nthreads++;
	}
	for (uint32_t i = 0; i < c->procs_seen && !err; i++) {
		struct proc_track *pt = &c->procs[i];
		uint32_t st = LOAD_ACQ(&proc_at(c, i)->state);
		if (!pt->announced || !pt->counted || pt->nthreads || pt->cut)
			continue;
		if (pt->dead || st == WPP_SHM_EXITING || c->finishing) {
			if (!c->finishing && uncounted_thread_of(c, i, threads_counted, now))
				continue;
			err = scan_tus(c, s); /* report late modules before retiring */
			if (s->process_end)
				s->process_end(s->ctx, &pt->snap, st == WPP_SHM_EXITING);
			retire_proc(c, i);
		}
	}
	c->totals.table_full = LOAD_ACQ(&c->h->table_full);
	return err ? err : n;
}

unsigned wpp_shm_collector_live(const struct wpp_shm_collector *c)
{
	unsigned n = 0;
	for (uint32_t i = 0; i < c->procs_seen; i++)
		n += !c->procs[i].cut &&
		     LOAD_ACQ(&wpp_shm_proc_at(c->h, &c->g, i)->state) != WPP_SHM_FREE;
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
 * Slots we do not drain (claims in progress, quarantined producers) never
 * count as pending, so no writer can keep the collector from sleeping.
 */
int wpp_shm_collector_wait(struct wpp_shm_collector *c, long timeout_ms)
{
	struct wpp_shm_header *h = c->h;
	uint32_t v = LOAD_ACQ(&h->doorbell);
	int pending = 0, rc = 1;

	__atomic_store_n(&h->collector_sleeping, 1, __ATOMIC_SEQ_CST);
	/* (the mark after the flag: a new thread's producer raised it before
	 * its first publish looked at the flag) */
	see_thread_mark(c);
	for (uint32_t i = 0; i < c->threads_seen && !pending; i++) {
		struct wpp_shm_thread *t = thread_at(c, i);
		uint32_t st = LOAD_ACQ(&t->state);
		if (st == WPP_SHM_FREE || (st & 0xf) == WPP_SHM_CLAIMED || c->threads[i].cut)
			continue;
		if (!c->threads[i].announced) {
			pending = 1; /* a new thread: the next pass starts it */
			break;
		}
		for (int l = 0; l < WPP_SHM_LEVELS; l++)
			if (__atomic_load_n(&t->rings[l].head, __ATOMIC_SEQ_CST) !=
			    c->threads[i].tail[l])
				pending = 1;
	}
	if (!pending && wpp_futex_wait(&h->doorbell, v, timeout_ms) == -ETIMEDOUT)
		rc = 0;
	__atomic_store_n(&h->collector_sleeping, 0, __ATOMIC_SEQ_CST);
	return rc;
}

void wpp_shm_collector_nudge(struct wpp_shm_collector *c)
{
	__atomic_store_n(&c->nudged, 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&c->h->doorbell, 1, __ATOMIC_SEQ_CST);
	wpp_futex_wake_all(&c->h->doorbell);
}

static void wake_all_producers(struct wpp_shm_collector *c)
{
	for (uint32_t i = 0; i < c->threads_seen; i++)
		for (int l = 0; l < WPP_SHM_LEVELS; l++)
			wake_producer(&thread_at(c, i)->rings[l]);
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
	wake_all_producers(c);
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
	wake_all_producers(c);
	for (uint32_t i = 0; i < c->procs_seen; i++)
		if (c->procs[i].pidfd >= 0)
			close(c->procs[i].pidfd);
	munmap(c->h, c->g.region_size);
	close(c->fd);
	free(c->procs);
	free(c->threads);
	free(c->tu_announced);
	free(c->tu_owner);
	free(c);
}
