/* SPDX-License-Identifier: MIT */
/*
 * rt_count.c — counting mode's per-thread counters and when they reach the
 * collector (trace_abi.h "Counting mode"; docs/runtime.md "Counting").
 *
 * Each thread that counts has a state block (mmap'd, on a process-wide
 * push-only list, so the thread that ends the process can drain the others):
 * the arrays it was given, one per count TU, and its hash.  Counts become
 * path records + REPEAT words in the stream of the thread that drains them,
 * written through the same cursor as instrumented code, so both transports
 * and every reader take them unchanged:
 *
 *  - thread exit: the exit-key destructor drains the thread's own counts in
 *    every round (deltas: later destructors may count more); after the last
 *    round its TLS pointers go to the TU's shared `late` array and the block
 *    (zeroed) is free for the next thread;
 *  - process end (exit, and __wpp_flush_all before exec, _exit, abort):
 *    every thread's counts, since the other threads will never drain theirs;
 *  - fork child: every inherited count is the parent's: zeroed.
 *
 * Signals: a handler may count on the thread it interrupts.  Array counts
 * are single adds to memory; a drain takes each counter with an exchange.
 * A path cache's key is claimed with one compare-exchange and
 * never changes after, so the inline compare and add stay right whatever
 * a handler claims in between.
 * The hash is never entered twice: while its owner is inside it (`busy`), a
 * handler's count is written to its own signal level as a record instead,
 * which readers add up the same way.  Allocation blocks signals.
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "runtime/rt_count.h"
#include "runtime/rt_count_pages.h"
#include "runtime/rt_count_table.h"
#include "runtime/rt_internal.h"
#include "runtime/wpp_registry.h"

struct rt_count_array {
	struct wpp_count_desc *desc;
	uint64_t **tls_slot; /* the owner's TLS pointer of the TU */
	uint64_t *base;
};

enum { CT_LIVE = WPP_COUNT_LIVE, CT_FREE = WPP_COUNT_FREE };

struct rt_count_thread {
	struct rt_count_thread *next; /* process list, push-only */
	uint32_t state;
	uint32_t busy; /* the owner is in its hash (or draining it) */
	struct rt_count_array *arrays;
	uint32_t narrays, cap;
	struct rt_count_table hash;
	uint64_t drains; /* +1 as a drain begins, +1 as it ends (wpp_registry.h) */
	uint32_t tid;	 /* the owner, for a collector that salvages a killed process */
	uint32_t reserved;
};

/* Collectors read the blocks through the registry (wpp_registry.h). */
#define SAME_AT(a, b)                                                                              \
	_Static_assert(offsetof(struct rt_count_thread, a) == offsetof(struct wpp_count_block, b), \
		       #a)
SAME_AT(next, next);
SAME_AT(state, state);
SAME_AT(busy, busy);
SAME_AT(arrays, arrays);
SAME_AT(narrays, narrays);
SAME_AT(cap, cap);
SAME_AT(hash.e, hash);
SAME_AT(hash.cap, hash_cap);
SAME_AT(hash.used, hash_used);
SAME_AT(drains, drains);
SAME_AT(tid, tid);
_Static_assert(sizeof(struct rt_count_array) == sizeof(struct wpp_count_array_ref), "array ref");
_Static_assert(sizeof(struct rt_count_entry) == sizeof(struct wpp_count_hash_entry), "entry");

struct rt_count_thread *rt_count_blocks;
/* The calling thread's block.  Exported: a hashed function's path end
 * probes the hash inline through it (trace_abi.h, "Counting mode"). */
__attribute__((visibility("default"))) __thread struct rt_count_thread *__wpp_count_self RT_TLS;
#define self __wpp_count_self
_Static_assert(offsetof(struct rt_count_thread, busy) == WPP_COUNT_BUSY_OFFSET, "busy");
_Static_assert(offsetof(struct rt_count_thread, hash.e) == WPP_COUNT_HASH_OFFSET, "hash");
_Static_assert(offsetof(struct rt_count_thread, hash.cap) == WPP_COUNT_HASH_CAP_OFFSET, "cap");

/* Where a TU counts when no memory could be had for its array: shared by
 * every such thread, never drained (those counts are lost, said once).
 * In .bss: backed only if ever used. */
#define SPILL_SLOTS (1u << 20)
static uint64_t spill[SPILL_SLOTS];

static void *map_zeroed(uint64_t bytes)
{
	if (bytes > (UINT64_C(1) << 40))
		return NULL;
	void *p = mmap(NULL, bytes ? bytes : 8, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	/* A sparse array (a function with up to 2^29 paths, a few of them
	 * run) must stay sparse: a transparent huge page would back 2 MiB
	 * for one counter. */
	if (bytes >= RT_COUNT_PAGES_MIN_BYTES)
		madvise(p, bytes, MADV_NOHUGEPAGE);
	return p;
}

/* ---- emission into the calling thread's stream ---- */

/* The record sequence of trace_abi.h, from C: words, then the cursor
 * (release: the words are in memory first), then the limit check. */
static void put_words(const uint64_t *w, unsigned n, void *arg)
{
	uint64_t *cur = __wpp_cursor;
	(void)arg;
	for (unsigned i = 0; i < n; i++)
		cur[i] = w[i];
	__atomic_store_n(&__wpp_cursor, cur + n, __ATOMIC_RELEASE);
	if (cur + n >= __wpp_limit)
		__wpp_flush();
}

/* A path record and its REPEAT words go into one signal level: readers
 * attach a REPEAT to the record before it at the same depth.  So a flush
 * that is due — a full buffer, or the pop of a level whose handler left by
 * longjmp (rt_signal.c: the limit makes the next record flush until the
 * pop is done) — happens before the record, never between the two.  (A
 * count needing more words than a buffer holds may still cross an
 * ordinary batch boundary, which readers follow.) */
static void put_count(uint64_t fidw, uint64_t id, uint64_t count, void *arg)
{
	uint64_t n = rt_count_words(id, count);
	ptrdiff_t room = __wpp_limit - __wpp_cursor; /* below 0 when a flush is forced */
	if (n && (room <= 0 || (uint64_t)room <= n))
		__wpp_flush();
	rt_count_encode(fidw, id, count, put_words, arg);
}

static void drain(struct rt_count_thread *ct, int own)
{
	/* A collector reading the block at detach sees the drain (the
	 * counters it reads may be leaving into this stream). */
	__atomic_fetch_add(&ct->drains, 1, __ATOMIC_SEQ_CST);
	uint32_t n = __atomic_load_n(&ct->narrays, __ATOMIC_ACQUIRE);
	struct rt_count_array *a = __atomic_load_n(&ct->arrays, __ATOMIC_ACQUIRE);
	struct rt_count_pages pages = {.fd = -1};
	for (uint32_t i = 0; i < n; i++) {
		/* a large array is read only where its pages were written */
		int sparse = a[i].desc->nslots * 8 >= RT_COUNT_PAGES_MIN_BYTES;
		if (sparse && pages.fd < 0 && !pages.page_shift)
			rt_count_pages_open(&pages, "/proc/self/pagemap");
		rt_count_array_drain(a[i].desc, a[i].base,
				     sparse && pages.fd >= 0 ? rt_count_pages_next_here : NULL,
				     &pages, put_count, NULL);
	}
	rt_count_pages_close(&pages);
	/* The hash only from its owner, and not from a handler that
	 * interrupted the owner inside it; at process end another thread's
	 * hash is read racing with its owner (a table that grows meanwhile
	 * is read from the old or the new copy, each count from one). */
	if (own && !ct->busy) {
		ct->busy = 1;
		__asm__ volatile("" ::: "memory");
		rt_count_table_drain(&ct->hash, put_count, NULL);
		__asm__ volatile("" ::: "memory");
		ct->busy = 0;
	} else if (!own && !__atomic_load_n(&ct->busy, __ATOMIC_ACQUIRE)) {
		rt_count_table_drain(&ct->hash, put_count, NULL);
	}
	__atomic_fetch_add(&ct->drains, 1, __ATOMIC_RELEASE);
}

/* ---- per-thread state ---- */

/* The calling thread's state block: a free one from an exited thread, or
 * a new one.  Signals are blocked by the caller. */
static struct rt_count_thread *thread_state(void)
{
	struct rt_count_thread *ct;
	if (self)
		return self;
	for (ct = __atomic_load_n(&rt_count_blocks, __ATOMIC_ACQUIRE); ct; ct = ct->next) {
		uint32_t want = CT_FREE;
		if (__atomic_compare_exchange_n(&ct->state, &want, CT_LIVE, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			break;
	}
	if (!ct) {
		if (!(ct = map_zeroed(sizeof(*ct))))
			return NULL;
		ct->state = CT_LIVE;
		ct->next = __atomic_load_n(&rt_count_blocks, __ATOMIC_RELAXED);
		while (!__atomic_compare_exchange_n(&rt_count_blocks, &ct->next, ct, 1,
						    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
			;
	}
	ct->tid = rt_gettid();
	self = ct;
	/* A thread that only counts never records: its exit still has to
	 * drain (rt_lifecycle.c). */
	rt_init();
	rt_thread_arm_exit(&rt_self);
	return ct;
}

/* Append (desc, slot, base); entries before the count, so a drainer on
 * another thread never reads an unwritten one.  A full list is copied to a
 * mapping twice its size; the old one stays mapped (a drainer may still
 * walk it). */
static int add_array(struct rt_count_thread *ct, struct wpp_count_desc *desc, uint64_t **slot,
		     uint64_t *base)
{
	if (ct->narrays == ct->cap) {
		uint32_t cap = ct->cap ? 2 * ct->cap : 4096 / sizeof(struct rt_count_array);
		struct rt_count_array *a = map_zeroed((uint64_t)cap * sizeof(*a));
		if (!a)
			return -1;
		if (ct->narrays)
			memcpy(a, ct->arrays, ct->narrays * sizeof(*a));
		__atomic_store_n(&ct->arrays, a, __ATOMIC_RELEASE);
		ct->cap = cap;
	}
	ct->arrays[ct->narrays] = (struct rt_count_array){desc, slot, base};
	__atomic_store_n(&ct->narrays, ct->narrays + 1, __ATOMIC_RELEASE);
	return 0;
}

static uint64_t *late_array(struct wpp_count_desc *desc)
{
	uint64_t *l = __atomic_load_n(&desc->late, __ATOMIC_ACQUIRE), *none = NULL;
	if (l)
		return l;
	if (!(l = map_zeroed(desc->nslots * 8)))
		return NULL;
	if (!__atomic_compare_exchange_n(&desc->late, &none, l, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE)) {
		munmap(l, desc->nslots * 8);
		return none;
	}
	return l;
}

static uint64_t *spill_array(const struct wpp_count_desc *desc)
{
	static int said;
	if (desc->nslots > SPILL_SLOTS) {
		/* its code indexes the whole range: nowhere else to count */
		rt_say("counting: cannot map a TU's path counters (address space limit, "
		       "ulimit -v?); ",
		       "rebuild with WPP_COUNT_ARRAY_MAX_PATHS=8192 in wppcc's environment");
		abort();
	}
	if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		rt_say("counting: out of memory; some path counts are lost", "");
	return spill;
}

static uint64_t *alloc_locked(struct wpp_count_desc *desc, uint64_t **slot)
{
	struct rt_count_thread *ct;
	uint64_t *base = NULL;

	if (desc->abi_version != WPP_ABI_VERSION && desc->abi_version != WPP_COUNT_DESC_PPP &&
	    desc->abi_version != WPP_COUNT_DESC_CACHED)
		return spill_array(desc);
	if (!(ct = thread_state()))
		return spill_array(desc);
	/* A block reused from an exited thread keeps its (zeroed) arrays; a
	 * handler may also have allocated this TU's array while we waited. */
	for (uint32_t i = 0; i < ct->narrays; i++)
		if (ct->arrays[i].desc == desc) {
			ct->arrays[i].tls_slot = slot;
			return ct->arrays[i].base;
		}
	if (!(base = map_zeroed(desc->nslots * 8)))
		return spill_array(desc);
	if (add_array(ct, desc, slot, base) < 0) {
		munmap(base, desc->nslots * 8);
		return spill_array(desc);
	}
	return base;
}

__attribute__((visibility("default"))) uint64_t *__wpp_count_alloc(struct wpp_count_desc *desc,
								   uint64_t **slot)
{
	sigset_t all, old;
	int saved_errno = errno;
	uint64_t *base;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	base = alloc_locked(desc, slot);
	*slot = base;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = saved_errno;
	return base;
}

/* A count that cannot go into the hash: straight into the stream. */
static void count_as_record(uint64_t fidw, uint64_t id)
{
	put_count(fidw, id, 1, NULL);
}

/* The hash's slow cases: the thread's first count, a path it has not
 * counted yet, a handler that interrupted its thread inside the hash, no
 * memory.  preserve_most as well, so the fast path that calls it needs to
 * save no more than it uses itself. */
__attribute__((noinline, cold, preserve_most)) static void count_slow(uint64_t fidw, uint64_t id)
{
	struct rt_count_thread *ct = self;
	int saved_errno = errno;

	if (!ct) {
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		ct = thread_state();
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	if (ct && !ct->busy) {
		ct->busy = 1;
		__asm__ volatile("" ::: "memory");
		int r = rt_count_table_add(&ct->hash, fidw, id);
		__asm__ volatile("" ::: "memory");
		ct->busy = 0;
		if (r == 0) {
			errno = saved_errno;
			return;
		}
	}
	count_as_record(fidw, id);
	errno = saved_errno;
}

/* The fast path calls nothing, so with preserve_most it saves only the
 * few registers it uses; a path the thread has not counted yet goes the
 * slow way. */
__attribute__((visibility("default"), preserve_most)) void __wpp_count_hash(uint64_t fidw,
									    uint64_t id)
{
	struct rt_count_thread *ct = self;

	if (__builtin_expect(ct && !ct->busy, 1)) {
		ct->busy = 1;
		__asm__ volatile("" ::: "memory");
		int hit = rt_count_table_bump(&ct->hash, fidw, id);
		__asm__ volatile("" ::: "memory");
		ct->busy = 0;
		if (__builtin_expect(hit, 1))
			return;
	}
	count_slow(fidw, id);
}

/* A path cache's miss (trace_abi.h, "A hashed function's path cache"):
 * claim the pair, or count in the hash.  preserve_most, as the hash. */
__attribute__((visibility("default"), preserve_most)) void
__wpp_count_cache_miss(uint64_t fidw, uint64_t key, uint64_t *base, uint64_t slot, uint64_t pairs)
{
	if (!rt_count_cache_claim(&base[slot], &base[slot + pairs], key))
		__wpp_count_hash(fidw, key - 1);
}

/* ---- lifecycle (rt_lifecycle.c, rt_buffers.c) ---- */

int rt_count_thread_active(void)
{
	return self != NULL;
}

void rt_count_thread_exit(int last)
{
	struct rt_count_thread *ct = self;

	if (!ct)
		return;
	drain(ct, 1);
	if (!last)
		return;
	/* Destructors that run after this one still count: into the TU's
	 * shared late array (never drained), not into a block the next thread
	 * will own. */
	for (uint32_t i = 0; i < ct->narrays; i++) {
		struct rt_count_array *a = &ct->arrays[i];
		uint64_t *late = late_array(a->desc);
		if (late && a->tls_slot)
			*a->tls_slot = late;
		madvise(a->base, a->desc->nslots * 8, MADV_DONTNEED);
		a->tls_slot = NULL;
	}
	rt_count_table_clear(&ct->hash);
	self = NULL;
	__atomic_store_n(&ct->state, CT_FREE, __ATOMIC_RELEASE);
}

void rt_count_process_end(void)
{
	for (struct rt_count_thread *ct = __atomic_load_n(&rt_count_blocks, __ATOMIC_ACQUIRE); ct;
	     ct = ct->next)
		if (__atomic_load_n(&ct->state, __ATOMIC_ACQUIRE) == CT_LIVE)
			drain(ct, ct == self);
}

void rt_count_fork_child(void)
{
	for (struct rt_count_thread *ct = rt_count_blocks; ct; ct = ct->next) {
		for (uint32_t i = 0; i < ct->narrays; i++) {
			madvise(ct->arrays[i].base, ct->arrays[i].desc->nslots * 8, MADV_DONTNEED);
			if (ct != self)
				ct->arrays[i].tls_slot = NULL;
		}
		if (ct == self) {
			ct->tid = rt_gettid();
			rt_count_table_clear(&ct->hash);
		} else {
			/* its owner may have been growing it at the fork: start
			 * the next owner from an empty table */
			ct->hash = (struct rt_count_table){0};
			ct->state = CT_FREE; /* its thread does not exist here */
		}
		ct->busy = 0;
	}
}
