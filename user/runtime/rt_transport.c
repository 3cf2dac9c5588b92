/* SPDX-License-Identifier: MIT */
/*
 * rt_transport.c — choosing where batches go, once per process image, and
 * the two transports that need no collector:
 *
 *   WPP_DISABLE=1   discard: every thread records into a small TLS sink that
 *                   is simply rewound (one flush call per 64 records).
 *   WPP_SHM=path    shm: the collector's region (rt_shm_client.c).
 *   otherwise       probe: private per-level buffers; a full buffer is passed
 *                   to the USDT probe (where a BPF collector may be attached)
 *                   and then reused.  System-wide collectors are given the
 *                   chance to attach first (rt_hello.c).
 *
 * The transport also decides dual builds' flags (rt_dual.c): set under shm,
 * a hello answered, or WPP_TRACE_ON=1 (a collector records from the start).
 *
 * A program run with AT_SECURE (setuid, setgid, file capabilities) reads
 * none of these variables: they come from a user who does not hold the
 * program's privileges, and each would let that user steer it (record its
 * control flow into a region of the user's choosing, inject its records
 * into someone else's recording, open and map files the user cannot, grow
 * its buffers).  It runs in probe mode with the default batch size, where
 * only collectors the kernel lets attach uprobes (root) can record it, and
 * the hello waits only for a listener whose SO_PEERCRED says root
 * (docs/security.md).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/rt_internal.h"
#include "runtime/wpp_registry.h"

const struct rt_transport_ops *rt_transport = &rt_transport_discard;
uint32_t rt_buffer_words = WPP_SHM_DEF_BUFFER_WORDS;

static int init_state; /* 0 = not yet, 1 = in progress, 2 = done */
static uint32_t init_tid;

void rt_say(const char *a, const char *b)
{
	/* stdio may not be usable yet (we can run inside constructors). */
	ssize_t r = write(2, "wpptrace: runtime: ", 19);
	r = write(2, a, strlen(a));
	r = write(2, b, strlen(b));
	r = write(2, "\n", 1);
	(void)r;
}

static uint32_t env_words(void)
{
	const char *s = secure_getenv(WPP_BUFFER_WORDS_ENV);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return WPP_SHM_DEF_BUFFER_WORDS;
	v = strtoul(s, &end, 10);
	if (*end || v < WPP_SHM_MIN_BUFFER_WORDS || v > WPP_SHM_MAX_BUFFER_WORDS) {
		rt_say("ignoring bad " WPP_BUFFER_WORDS_ENV "=", s);
		return WPP_SHM_DEF_BUFFER_WORDS;
	}
	return (uint32_t)v;
}

static const struct rt_transport_ops *select_transport(void)
{
	const char *disable, *shm, *on;
	int err;

	if (getauxval(AT_SECURE)) {
		if (rt_hello_collectors())
			rt_dual_set(1);
		return &rt_transport_probe;
	}
	disable = secure_getenv("WPP_DISABLE");
	shm = secure_getenv(WPP_SHM_ENV);
	if (disable && *disable && strcmp(disable, "0") != 0)
		return &rt_transport_discard;
	rt_buffer_words = env_words();
	if (shm && *shm) {
		err = rt_shm_attach(shm);
		if (err == 0) {
			rt_dual_set(1);
			return &rt_transport_shm;
		}
		rt_say("cannot use the collector's shared memory, using probe mode: ",
		       strerror(-err));
	}
	/* dual builds (rt_dual.c): record from the start under a collector */
	on = secure_getenv(WPP_TRACE_ON_ENV);
	if (rt_hello_collectors() || (on && strcmp(on, "1") == 0))
		rt_dual_set(1);
	return &rt_transport_probe;
}

int rt_init_done(void)
{
	return __atomic_load_n(&init_state, __ATOMIC_ACQUIRE) == 2;
}

void rt_init(void)
{
	int expect = 0;

	if (rt_init_done())
		return;
	if (__atomic_compare_exchange_n(&init_state, &expect, 1, 0, __ATOMIC_ACQ_REL,
					__ATOMIC_ACQUIRE)) {
		const struct rt_transport_ops *sel;
		init_tid = rt_gettid();
		rt_process_identify(&rt_proc, 0, 0);
		sel = select_transport();
		rt_lifecycle_init();
		__atomic_store_n(&rt_transport, sel, __ATOMIC_RELEASE);
		__atomic_store_n(&init_state, 2, __ATOMIC_RELEASE);
		return;
	}
	/* A signal handler on the initializing thread must not wait for
	 * itself; its records go to the discard sink. */
	if (init_tid == rt_gettid())
		return;
	while (!rt_init_done())
		sched_yield();
}

/* ---- discard ---- */

static int discard_thread_open(struct rt_thread *t)
{
	(void)t;
	return -1;
}
static int discard_begin(struct rt_thread *t, int level, struct rt_buf *b)
{
	(void)t, (void)level, (void)b;
	return -1;
}
static void discard_publish(struct rt_thread *t, int level, struct rt_buf *b)
{
	(void)t, (void)level, (void)b;
}
static void discard_close(struct rt_thread *t, int last)
{
	(void)t, (void)last;
}
static void discard_lost(struct rt_thread *t, uint64_t words)
{
	(void)t, (void)words;
}
static void discard_module(uint32_t fid_base, uint32_t nfuncs, uint64_t tu_hash, uint64_t meta_addr,
			   uint64_t load_bias, const uint8_t *build_id, uint32_t build_id_len,
			   const char *path)
{
	(void)fid_base, (void)nfuncs, (void)tu_hash, (void)meta_addr, (void)load_bias;
	(void)build_id, (void)build_id_len, (void)path;
}
static void discard_fork_child(void)
{
}

const struct rt_transport_ops rt_transport_discard = {
    "discard",	   discard_thread_open, discard_begin,	discard_publish,
    discard_close, discard_lost,	discard_module, discard_fork_child,
};

/* ---- probe ---- */

static size_t probe_buf_bytes(void)
{
	return wpp_shm_slot_bytes(rt_buffer_words);
}

static int probe_thread_open(struct rt_thread *t)
{
	(void)t;
	return 0;
}

static int probe_begin(struct rt_thread *t, int level, struct rt_buf *b)
{
	void *m = t->private_buf[level];

	/* mmap, not malloc: we may be in a signal handler.  Populated up
	 * front, so recording never page-faults inside the program's paths
	 * (counter samples would charge the faults to them). */
	if (!m) {
		m = mmap(NULL, probe_buf_bytes(), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (m == MAP_FAILED)
			return -1;
		t->private_buf[level] = m;
	}
	b->hdr = m;
	b->words = (uint64_t *)(b->hdr + 1);
	b->cap = rt_buffer_words;
	return 0;
}

static void probe_publish(struct rt_thread *t, int level, struct rt_buf *b)
{
	/* The probe has fired (a BPF reader copies nwords words from the
	 * address it is given, never beyond) and the buffer is reused.  Only
	 * the header is cleared, since level_open fills it field by field; the
	 * words are not: unlike a shm slot, which a collector salvages up to
	 * the first zero word, nobody reads a private buffer past the cursor,
	 * and zeroing 64 KiB per batch cost the program a pass over memory. */
	(void)t, (void)level;
	memset(b->hdr, 0, sizeof(*b->hdr));
}

static void probe_close(struct rt_thread *t, int last)
{
	if (!last)
		return;
	for (int l = 0; l < RT_LEVELS; l++) {
		if (t->private_buf[l])
			munmap(t->private_buf[l], probe_buf_bytes());
		t->private_buf[l] = NULL;
	}
}

static void probe_fork_child(void)
{
}

const struct rt_transport_ops rt_transport_probe = {
    "probe",	 probe_thread_open, probe_begin,    probe_publish,
    probe_close, discard_lost,	    discard_module, probe_fork_child,
};
