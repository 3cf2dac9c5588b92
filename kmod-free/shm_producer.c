/* SPDX-License-Identifier: MIT */
#include "kmod-free/shm_producer.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kmod-free/shm_entries.h"
#include "kmod-free/shm_futex.h"
#include "kmod-free/shm_layout.h"
#include "wpp/wpp_file.h"

#define LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
/* Space waits (200 ms each) without progress before a ring is given up. */
#define WPP_SHM_STALL_WAITS 50
#define STORE_REL(p, v)	    __atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* A claim names its claimer in the state word, so the collector can free
 * an entry whose claimer died half-way (state = CLAIMED | pid << 4). */
static uint32_t claim_word(uint32_t pid)
{
	return WPP_SHM_CLAIMED | pid << 4;
}

static int claim(uint32_t *state, uint32_t pid)
{
	uint32_t expect = WPP_SHM_FREE;
	if (LOAD_ACQ(state) != WPP_SHM_FREE)
		return 0;
	return __atomic_compare_exchange_n(state, &expect, claim_word(pid), 0, __ATOMIC_ACQ_REL,
					   __ATOMIC_RELAXED);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void stat_add(uint64_t *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* The collector's pid is the client's copy, fixed at attach: a region word
 * anyone could point at a process that never exits. */
static int collector_alive(const struct wpp_shm_client *c)
{
	return !LOAD_ACQ(&c->h->collector_gone) && !wpp_shm_pid_gone(c->collector_pid);
}

/* Wake the collector if it sleeps on the doorbell (see
 * wpp_shm_ring_publish for the handshake). */
static void ring_doorbell(struct wpp_shm_header *h)
{
	if (__atomic_load_n(&h->collector_sleeping, __ATOMIC_SEQ_CST) &&
	    __atomic_exchange_n(&h->collector_sleeping, 0, __ATOMIC_SEQ_CST)) {
		int saved_errno = errno;
		stat_add(&h->doorbell_wakes);
		__atomic_fetch_add(&h->doorbell, 1, __ATOMIC_RELEASE);
		wpp_futex_wake_all(&h->doorbell);
		errno = saved_errno;
	}
}

/*
 * Claiming an entry of a full table.  The collector frees the entry of a
 * thread that said goodbye once the kernel thread is gone, and a process's
 * entry (with its modules) once the process is gone, but only on its next
 * pass: a program that starts threads or processes faster than that (waves
 * of short-lived workers) finds the table full of entries that are about to
 * be freed.  Giving up then would run the newcomer untraced, so the claim
 * waits for the collector instead (the transport is lossless: producers
 * wait, they do not drop), as long as some entry is reclaimable by the
 * collector's own test (its thread or process is gone, so its next pass
 * frees it: the doorbell wakes it) and the collector is alive, and at most
 * ENTRY_WAIT_MAX_NS.  A table full of live
 * entries (more threads at once than --max-threads) cannot free up by
 * waiting; that claim gives up at once and is counted in table_full.
 */
#define ENTRY_WAIT_MAX_NS 2000000000ull

struct entry_table {
	uint32_t count;
	uint32_t *mark; /* the table's high-water mark in the header */
	uint32_t *(*state_at)(const struct wpp_shm_client *c, uint32_t i);
	/* Will the collector free entry i without the program's help? */
	int (*reclaimable)(const struct wpp_shm_client *c, uint32_t i);
};

static uint32_t *thread_state(const struct wpp_shm_client *c, uint32_t i)
{
	return &wpp_shm_thread_at(c->h, &c->g, i)->state;
}

/* Said goodbye and the kernel thread is gone: the collector's own test. */
static int thread_reclaimable(const struct wpp_shm_client *c, uint32_t i)
{
	struct wpp_shm_thread *t = wpp_shm_thread_at(c->h, &c->g, i);

	return LOAD_ACQ(&t->state) == WPP_SHM_EXITING && wpp_shm_tid_gone(t->pid, t->tid);
}

static uint32_t *proc_state(const struct wpp_shm_client *c, uint32_t i)
{
	return &wpp_shm_proc_at(c->h, &c->g, i)->state;
}

static int proc_reclaimable(const struct wpp_shm_client *c, uint32_t i)
{
	struct wpp_shm_proc *p = wpp_shm_proc_at(c->h, &c->g, i);
	uint32_t st = LOAD_ACQ(&p->state);

	return st == WPP_SHM_EXITING || (st == WPP_SHM_LIVE && wpp_shm_pid_gone(p->pid));
}

static uint32_t *tu_state(const struct wpp_shm_client *c, uint32_t i)
{
	return &wpp_shm_tu_at(c->h, &c->g, i)->state;
}

/* A module's entry is freed with its process's. */
static int tu_reclaimable(const struct wpp_shm_client *c, uint32_t i)
{
	struct wpp_shm_tu *t = wpp_shm_tu_at(c->h, &c->g, i);
	uint32_t pi = t->proc_index;

	return LOAD_ACQ(&t->state) == WPP_SHM_LIVE && pi < c->g.max_procs &&
	       proc_reclaimable(c, pi);
}

/* Is waiting worth it: an entry freed since our claims failed, one that a
 * claimer who died half-way holds (the collector frees it), or one the
 * collector will reclaim? */
static int any_reclaimable(const struct wpp_shm_client *c, const struct entry_table *tab)
{
	for (uint32_t i = 0; i < tab->count; i++) {
		uint32_t st = LOAD_ACQ(tab->state_at(c, i));
		if (st == WPP_SHM_FREE || wpp_shm_claim_abandoned(st) || tab->reclaimable(c, i))
			return 1;
	}
	return 0;
}

/* Raise a table's high-water mark to at least n (shm_proto.h): the
 * collector looks at no entry at or above it.  A failed try means someone
 * else wrote the word.  Producers only ever raise it, so honest contention
 * fails fewer than n times in a row (each failure finds it higher, and it
 * is done once it reaches n), however many threads claim at once.  A value
 * that went down was written by someone who does not follow the protocol:
 * we stop there rather than race it (it can only hide our entry from the
 * collector until the collector's look at the region's written pages,
 * periodic and before it retires a process, finds it). */
static void raise_mark(uint32_t *mark, uint32_t n)
{
	uint32_t seen = __atomic_load_n(mark, __ATOMIC_SEQ_CST);

	while (seen < n) {
		uint32_t before = seen;
		if (__atomic_compare_exchange_n(mark, &seen, n, 0, __ATOMIC_SEQ_CST,
						__ATOMIC_SEQ_CST) ||
		    seen < before)
			return;
	}
}

/* Claim a free entry for pid; its index, or -1 (counted in table_full).
 * The mark is raised at once, before the claimer fills the entry, so the
 * collector can see (and free) an entry whose claimer dies half-way. */
static long claim_entry(const struct wpp_shm_client *c, const struct entry_table *tab, uint32_t pid)
{
	struct wpp_shm_header *h = c->h;
	uint64_t deadline = 0;
	long pause_ns = 50000;
	int saved_errno = errno;

	for (;;) {
		for (uint32_t i = 0; i < tab->count; i++)
			if (claim(tab->state_at(c, i), pid)) {
				raise_mark(tab->mark, i + 1);
				errno = saved_errno;
				return i;
			}
		if (!collector_alive(c) || !any_reclaimable(c, tab) ||
		    (deadline && now_ns() > deadline))
			break;
		if (!deadline) { /* the first wait of this claim */
			deadline = now_ns() + ENTRY_WAIT_MAX_NS;
			stat_add(&h->entry_waits);
		}
		ring_doorbell(h);
		nanosleep(&(struct timespec){0, pause_ns}, NULL);
		if (pause_ns < 4000000)
			pause_ns *= 2;
	}
	__atomic_fetch_add(&h->table_full, 1, __ATOMIC_RELAXED);
	errno = saved_errno;
	return -1;
}

/* The collector's pid from a path of the form /proc/<pid>/fd/<n> (how the
 * collector names its region), or 0. */
static uint32_t path_pid(const char *path)
{
	unsigned long pid = 0, fd = 0;
	const char *p = path;

	if (strncmp(p, "/proc/", 6) != 0)
		return 0;
	for (p += 6; *p >= '0' && *p <= '9' && pid < 1u << 30; p++)
		pid = pid * 10 + (unsigned long)(*p - '0');
	if (strncmp(p, "/fd/", 4) != 0)
		return 0;
	for (p += 4; *p >= '0' && *p <= '9' && fd < 1u << 30; p++)
		fd = fd * 10 + (unsigned long)(*p - '0');
	return *p == 0 && p[-1] != '/' ? (uint32_t)pid : 0;
}

/*
 * Only a sealed memfd is mapped: its size can then neither shrink (which
 * would turn our next access into SIGBUS, and anyone with the region open
 * could do it) nor grow.  The geometry is our own copy, recomputed from
 * the header's options and checked against its offsets; the collector is
 * the process the path names (/proc/<pid>/fd/<n>, the form the collector
 * hands out), and the header must say the same.  A producer waits for ring
 * space only while that process lives: a live collector that never drains
 * holds the program the way a full pipe holds its writer, but no region
 * content can make it wait on a process that is not the region's owner.
 */
int wpp_shm_attach(struct wpp_shm_client *c, const char *path)
{
	const int seals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;
	struct stat st;
	uint32_t named = path_pid(path);
	void *m;
	int fd, err;

	memset(c, 0, sizeof(*c));
	fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	int got = fcntl(fd, F_GET_SEALS); /* -1 (EINVAL) for anything but a memfd */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)sizeof(struct wpp_shm_header) || got < 0 ||
	    (got & seals) != seals) {
		close(fd);
		return -EPROTO;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	err = errno;
	close(fd);
	if (m == MAP_FAILED)
		return -err;
	c->collector_pid = LOAD_ACQ(&((struct wpp_shm_header *)m)->collector_pid);
	if (wpp_shm_header_check(m, (uint64_t)st.st_size, &c->g) != 0 || !named ||
	    named != c->collector_pid) {
		munmap(m, (size_t)st.st_size);
		return -EPROTO;
	}
	c->h = m;
	c->mapped = (uint64_t)st.st_size;
	return 0;
}

static void copy_str(char *dst, size_t cap, const char *src, uint32_t *len_out)
{
	size_t n = src ? strnlen(src, cap - 1) : 0;
	memcpy(dst, src ? src : "", n);
	dst[n] = 0;
	*len_out = (uint32_t)n + 1;
}

int wpp_shm_register_process(struct wpp_shm_client *c, const struct wpp_shm_proc_info *p)
{
	struct wpp_shm_proc *e;
	uint32_t i, generation = 0, flags = p->flags;

	/* Same pid and start time as a live image: we are that process after
	 * exec.  Retire the old image so the collector finishes its threads.
	 * (Every entry, not only those below the mark: anyone can lower the
	 * mark, and an old image missed here would never be retired.) */
	for (i = 0; i < c->g.max_procs; i++) {
		struct wpp_shm_proc *o = wpp_shm_proc_at(c->h, &c->g, i);
		if (LOAD_ACQ(&o->state) == WPP_SHM_LIVE && o->pid == p->pid &&
		    o->start_ticks == p->start_ticks) {
			if (o->generation + 1 > generation)
				generation = o->generation + 1;
			STORE_REL(&o->state, WPP_SHM_EXITING);
		}
	}
	if (generation)
		flags |= 2u; /* WPP_PROC_EXECED */
	const struct entry_table procs = {c->g.max_procs, &c->h->procs_high, proc_state,
					  proc_reclaimable};
	long pi = claim_entry(c, &procs, p->pid);
	if (pi < 0)
		return -ENOSPC;
	e = wpp_shm_proc_at(c->h, &c->g, (uint32_t)pi);
	e->pid = p->pid;
	e->ppid = p->ppid;
	e->parent_tid = p->parent_tid;
	e->flags = flags;
	e->generation = generation;
	e->start_ticks = p->start_ticks;
	e->time_ns = now_ns();
	copy_str(e->exe, sizeof(e->exe), p->exe, &e->exe_len);
	uint32_t cmdline_len =
	    (uint32_t)(p->cmdline_len < sizeof(e->cmdline) ? p->cmdline_len : sizeof(e->cmdline));
	memcpy(e->cmdline, p->cmdline, cmdline_len);
	if (cmdline_len && e->cmdline[cmdline_len - 1] != 0)
		e->cmdline[cmdline_len - 1] = 0; /* truncated argv still ends in NUL */
	e->cmdline_len = cmdline_len;
	c->proc_index = (uint32_t)pi;
	c->generation = generation;
	STORE_REL(&e->state, WPP_SHM_LIVE);
	return 0;
}

int wpp_shm_register_tu(struct wpp_shm_client *c, const struct wpp_shm_tu_info *t)
{
	struct wpp_shm_tu *e;
	uint32_t pid = (uint32_t)getpid();
	const struct entry_table tus = {c->g.max_tus, &c->h->tus_high, tu_state, tu_reclaimable};
	long ti = claim_entry(c, &tus, pid);
	if (ti < 0)
		return -ENOSPC;
	e = wpp_shm_tu_at(c->h, &c->g, (uint32_t)ti);
	e->proc_index = c->proc_index;
	e->fid_base = t->fid_base;
	e->nfuncs = t->nfuncs;
	e->tu_hash = t->tu_hash;
	e->meta_addr = t->meta_addr;
	e->load_bias = t->load_bias;
	memset(e->build_id, 0, sizeof(e->build_id));
	e->build_id_len = t->build_id_len > 20 ? 20 : t->build_id_len;
	if (t->build_id)
		memcpy(e->build_id, t->build_id, t->build_id_len > 20 ? 20 : t->build_id_len);
	copy_str(e->path, sizeof(e->path), t->path, &e->path_len);
	STORE_REL(&e->state, WPP_SHM_LIVE);
	__atomic_fetch_add(&c->h->tu_epoch, 1, __ATOMIC_RELEASE);
	return 0;
}

int wpp_shm_thread_open(struct wpp_shm_client *c, struct wpp_shm_lane *lane, uint32_t pid,
			uint32_t tid)
{
	const struct entry_table threads = {c->g.max_threads, &c->h->threads_high, thread_state,
					    thread_reclaimable};
	long i = claim_entry(c, &threads, pid);
	struct wpp_shm_thread *t;

	memset(lane, 0, sizeof(*lane));
	if (i < 0)
		return -1;
	t = wpp_shm_thread_at(c->h, &c->g, (uint32_t)i);
	/* The collector left rings at head == tail == 0, slots zeroed (a
	 * fresh region is all zero).  Their place and length are for readers
	 * of the region (neither side reads them back): written here, by the
	 * claimer, so the collector need not touch entries nobody uses. */
	for (int l = 0; l < WPP_SHM_LEVELS; l++) {
		t->rings[l].nslots = wpp_shm_ring_len(&c->g, l);
		t->rings[l].first_slot = wpp_shm_ring_first(&c->g, l);
	}
	t->proc_index = c->proc_index;
	t->pid = pid;
	t->tid = tid;
	t->start_ns = now_ns();
	lane->t = t;
	lane->index = (uint32_t)i;
	STORE_REL(&t->state, WPP_SHM_LIVE);
	return 0;
}

void wpp_shm_thread_close(struct wpp_shm_lane *lane)
{
	STORE_REL(&lane->t->state, WPP_SHM_EXITING);
}

void wpp_shm_thread_lost(struct wpp_shm_lane *lane, uint64_t words)
{
	__atomic_fetch_add(&lane->t->lost_words, words, __ATOMIC_RELEASE);
}

/*
 * Waiting for space (the ring is full).  The pairing with the collector's
 * drain_thread() is a Dekker handshake on two words, both sides seq_cst:
 *   producer: producer_waiting = 1; load tail; sleep only if still full
 *   collector: store tail;           load producer_waiting; wake if set
 * In the single total order either the collector's load sees waiting == 1
 * (and wakes us), or our store came later, so our load of tail sees the
 * freed slot and we do not sleep.  The futex value v is read before the
 * flag, so a wake that lands between our check and FUTEX_WAIT changes the
 * word and the wait returns at once (EAGAIN): no lost wake-up.
 *
 * The collector wakes us only once the ring is down to
 * wpp_shm_space_low() (hysteresis); it drains every published slot of a
 * ring in one go and our head cannot move while we wait, so it always
 * gets there.  The 200 ms timeout is not part of the protocol; it only
 * lets us notice a collector that died (SIGKILL: collector_gone is never
 * set) and give up instead of hanging the program.  A timeout while the
 * collector lives is counted: it means a wake-up was lost or very late.
 * A ring that stays full through WPP_SHM_STALL_WAITS timed-out waits in a
 * row (10 s) is given up as well: a collector that frees nothing for that
 * long is stuck or not a collector (a forged region whose owner never
 * drains), and the program must not hang on it.
 * Our head is our own copy (we are its only writer) and the ring's length
 * and place come from our geometry, so the slot returned is always one of
 * this thread's; only tail is read from the region, and bounded.
 */
struct wpp_batch_hdr *wpp_shm_ring_begin(struct wpp_shm_client *c, struct wpp_shm_lane *lane,
					 int level)
{
	struct wpp_shm_header *h = c->h;
	struct wpp_shm_ring *r = &lane->t->rings[level];
	uint64_t head = lane->head[level], tail;
	uint32_t n = wpp_shm_ring_len(&c->g, level);
	int saved_errno = errno, waited = 0;
	unsigned stalled = 0; /* timed-out waits without the tail moving */

	/* tail is the collector's; a value no collector can have written (past
	 * our head, or more than a ring behind it) means someone else wrote
	 * the region, or the collector cut this thread off (it sets every tail
	 * to WPP_SHM_TAIL_CUT): this ring is not used again (the runtime sinks
	 * the level). */
	for (;;) {
		tail = LOAD_ACQ(&r->tail);
		if (tail > head || head - tail > n)
			goto broken;
		if (head - tail < n)
			break;
		uint32_t v = LOAD_ACQ(&r->space_futex);
		waited = 1;
		__atomic_store_n(&r->producer_waiting, 1, __ATOMIC_SEQ_CST);
		if (head - __atomic_load_n(&r->tail, __ATOMIC_SEQ_CST) < n)
			continue; /* re-checked at the top */
		stat_add(&h->space_waits);
		/* Our entry again, in case a writer lowered the mark before
		 * the collector read it: no drain, no space, until it looks. */
		raise_mark(&h->threads_high, lane->index + 1);
		if (wpp_futex_wait(&r->space_futex, v, 200) == -ETIMEDOUT) {
			if (!collector_alive(c))
				goto broken;
			stat_add(&h->space_wait_timeouts);
			/* Counted in waits, not wall time: a program stopped
			 * with its collector (job control) does not run up
			 * the count while it is stopped. */
			if (LOAD_ACQ(&r->tail) != tail)
				stalled = 0;
			else if (++stalled >= WPP_SHM_STALL_WAITS)
				goto broken;
		}
	}
	/* A flag left set only costs the collector one needless FUTEX_WAKE. */
	if (waited)
		__atomic_store_n(&r->producer_waiting, 0, __ATOMIC_RELAXED);
	errno = saved_errno;
	return wpp_shm_slot(h, &c->g, lane->index, level, head);
broken:
	errno = saved_errno;
	return NULL;
}

/*
 * Publish, and ring the doorbell only when the collector must come now.
 * Most publishes make no syscall at all: the collector, when idle, sleeps
 * with a bounded timeout (record's loop: 10 ms), so a batch that does not
 * ring is still picked up within that time.  We ring when
 *  - the ring is at least wpp_shm_doorbell_fill() full: the collector must
 *    drain before we run out of slots (we keep filling the other half
 *    while it wakes up); or
 *  - the batch is partial or FINAL: a flush (thread or process exit, exec,
 *    fork, a signal level closing), after which this thread may not
 *    publish again for a long time — no reason to leave it lying there.
 * The doorbell pairs with wpp_shm_collector_wait() by the same Dekker
 * handshake as the space wait:
 *   producer: store head;             load collector_sleeping; ring if set
 *   collector: collector_sleeping = 1; load every head; sleep only if no
 *              ring holds an unconsumed slot
 * So either we see the flag and ring, or the collector sees our head and
 * drains instead of sleeping.  Our view of tail may be stale (older), which
 * only overstates the fill: an extra ring, never a missed one.
 * A producer killed between the store and the ring loses nothing: the slot
 * is published and the next timed pass drains it.  A dead collector
 * (SIGKILL) never clears collector_sleeping; publishes below the threshold
 * stay syscall-free and the ring then fills, where ring_begin notices.
 */
void wpp_shm_ring_publish(struct wpp_shm_client *c, struct wpp_shm_lane *lane, int level)
{
	struct wpp_shm_ring *r = &lane->t->rings[level];
	uint64_t head = lane->head[level] + 1;
	/* Read before the release: after it the collector may zero the slot. */
	const struct wpp_batch_hdr *b =
	    wpp_shm_slot(c->h, &c->g, lane->index, level, lane->head[level]);
	int urgent = b->nwords < c->g.buffer_words || (b->flags & WPP_BATCH_FINAL);

	lane->head[level] = head;
	__atomic_store_n(&r->head, head, __ATOMIC_SEQ_CST);
	if (!urgent &&
	    head - LOAD_ACQ(&r->tail) < wpp_shm_doorbell_fill(wpp_shm_ring_len(&c->g, level)))
		return;
	/* The ringer clears the flag (exchange), so of the publishes that land
	 * while the collector is still waking up only one pays the syscall.
	 * Safe: whoever reads 0 published its head before that read, and the
	 * collector always sets the flag and rescans the heads before it sleeps
	 * again (wpp_shm_collector_wait), so it sees that head. */
	ring_doorbell(c->h);
}
