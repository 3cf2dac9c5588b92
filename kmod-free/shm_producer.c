/* SPDX-License-Identifier: MIT */
#include "shm_producer.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "shm_futex.h"
#include "shm_layout.h"

#define LOAD_ACQ(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

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

int wpp_shm_attach(struct wpp_shm_client *c, const char *path)
{
	struct stat st;
	void *m;
	int fd, err;

	memset(c, 0, sizeof(*c));
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(struct wpp_shm_header)) {
		close(fd);
		return -EPROTO;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	err = errno;
	close(fd);
	if (m == MAP_FAILED)
		return -err;
	if (wpp_shm_header_check(m, (uint64_t)st.st_size) != 0) {
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
	struct wpp_shm_header *h = c->h;
	struct wpp_shm_proc *e = NULL;
	uint32_t i, generation = 0, flags = p->flags;

	/* Same pid and start time as a live image: we are that process after
	 * exec.  Retire the old image so the collector finishes its threads. */
	for (i = 0; i < h->max_procs; i++) {
		struct wpp_shm_proc *o = wpp_shm_proc_at(h, i);
		if (LOAD_ACQ(&o->state) == WPP_SHM_LIVE && o->pid == p->pid &&
		    o->start_ticks == p->start_ticks) {
			if (o->generation + 1 > generation)
				generation = o->generation + 1;
			STORE_REL(&o->state, WPP_SHM_EXITING);
		}
	}
	if (generation)
		flags |= 2u; /* WPP_PROC_EXECED */
	for (i = 0; i < h->max_procs && !e; i++)
		if (claim(&wpp_shm_proc_at(h, i)->state, p->pid))
			e = wpp_shm_proc_at(h, i);
	if (!e) {
		__atomic_fetch_add(&h->table_full, 1, __ATOMIC_RELAXED);
		return -ENOSPC;
	}
	e->pid = p->pid;
	e->ppid = p->ppid;
	e->parent_tid = p->parent_tid;
	e->flags = flags;
	e->generation = generation;
	e->start_ticks = p->start_ticks;
	e->time_ns = now_ns();
	copy_str(e->exe, sizeof(e->exe), p->exe, &e->exe_len);
	e->cmdline_len =
	    (uint32_t)(p->cmdline_len < sizeof(e->cmdline) ? p->cmdline_len : sizeof(e->cmdline));
	memcpy(e->cmdline, p->cmdline, e->cmdline_len);
	if (e->cmdline_len && e->cmdline[e->cmdline_len - 1] != 0)
		e->cmdline[e->cmdline_len - 1] = 0; /* truncated argv still ends in NUL */
	c->proc_index = (uint32_t)(e - wpp_shm_proc_at(h, 0));
	c->generation = generation;
	STORE_REL(&e->state, WPP_SHM_LIVE);
	return 0;
}

int wpp_shm_register_tu(struct wpp_shm_client *c, const struct wpp_shm_tu_info *t)
{
	struct wpp_shm_header *h = c->h;
	struct wpp_shm_tu *e = NULL;
	uint32_t i, pid = (uint32_t)getpid();

	for (i = 0; i < h->max_tus && !e; i++)
		if (claim(&wpp_shm_tu_at(h, i)->state, pid))
			e = wpp_shm_tu_at(h, i);
	if (!e) {
		__atomic_fetch_add(&h->table_full, 1, __ATOMIC_RELAXED);
		return -ENOSPC;
	}
	e->proc_index = c->proc_index;
	e->fid_base = t->fid_base;
	e->nfuncs = t->nfuncs;
	e->tu_hash = t->tu_hash;
	e->meta_addr = t->meta_addr;
	e->load_bias = t->load_bias;
	memset(e->build_id, 0, sizeof(e->build_id));
	e->build_id_len = t->build_id_len > 20 ? 20 : t->build_id_len;
	if (t->build_id)
		memcpy(e->build_id, t->build_id, e->build_id_len);
	copy_str(e->path, sizeof(e->path), t->path, &e->path_len);
	STORE_REL(&e->state, WPP_SHM_LIVE);
	__atomic_fetch_add(&h->tu_epoch, 1, __ATOMIC_RELEASE);
	return 0;
}

struct wpp_shm_thread *wpp_shm_thread_open(struct wpp_shm_client *c, uint32_t pid, uint32_t tid)
{
	struct wpp_shm_header *h = c->h;
	uint32_t i;

	for (i = 0; i < h->max_threads; i++) {
		struct wpp_shm_thread *t = wpp_shm_thread_at(h, i);
		if (!claim(&t->state, pid))
			continue;
		/* The collector left rings at head == tail == 0, slots zeroed. */
		t->proc_index = c->proc_index;
		t->pid = pid;
		t->tid = tid;
		t->start_ns = now_ns();
		STORE_REL(&t->state, WPP_SHM_LIVE);
		return t;
	}
	__atomic_fetch_add(&h->table_full, 1, __ATOMIC_RELAXED);
	return NULL;
}

void wpp_shm_thread_close(struct wpp_shm_thread *t)
{
	STORE_REL(&t->state, WPP_SHM_EXITING);
}

void wpp_shm_thread_lost(struct wpp_shm_thread *t, uint64_t words)
{
	__atomic_fetch_add(&t->lost_words, words, __ATOMIC_RELEASE);
}

static int collector_alive(struct wpp_shm_header *h)
{
	if (LOAD_ACQ(&h->collector_gone))
		return 0;
	return !(kill((pid_t)h->collector_pid, 0) < 0 && errno == ESRCH);
}

struct wpp_batch_hdr *wpp_shm_ring_begin(struct wpp_shm_client *c, struct wpp_shm_thread *t,
					 int level)
{
	struct wpp_shm_header *h = c->h;
	struct wpp_shm_ring *r = &t->rings[level];
	uint64_t head = r->head; /* only this producer writes head */
	int saved_errno = errno;

	while (head - LOAD_ACQ(&r->tail) >= r->nslots) {
		uint32_t v = LOAD_ACQ(&r->space_futex);
		__atomic_store_n(&r->producer_waiting, 1, __ATOMIC_SEQ_CST);
		if (head - __atomic_load_n(&r->tail, __ATOMIC_SEQ_CST) < r->nslots)
			break;
		wpp_futex_wait(&r->space_futex, v, 200);
		if (!collector_alive(h)) {
			errno = saved_errno;
			return NULL;
		}
	}
	errno = saved_errno;
	return wpp_shm_slot(h, wpp_shm_thread_index(h, t), r, head);
}

void wpp_shm_ring_publish(struct wpp_shm_client *c, struct wpp_shm_thread *t, int level)
{
	struct wpp_shm_header *h = c->h;
	struct wpp_shm_ring *r = &t->rings[level];

	__atomic_store_n(&r->head, r->head + 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&h->collector_sleeping, __ATOMIC_SEQ_CST)) {
		int saved_errno = errno;
		__atomic_fetch_add(&h->doorbell, 1, __ATOMIC_RELEASE);
		wpp_futex_wake_all(&h->doorbell);
		errno = saved_errno;
	}
}
