/* SPDX-License-Identifier: MIT */
/* online_worker.c — see online_worker.h for the contract. */
#include "collect/online_worker.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "collect/thread_loads.h"
#include "common/wppfile.h"
#include "common/wppfile_batch.h"

enum item_kind {
	ITEM_BATCH,
	ITEM_PACKED, /* a BATCH_Z payload in words[] (bytes), u.packed.len long */
	ITEM_GAP,
	ITEM_EXIT,
	ITEM_DROP,
	ITEM_GIVE_UP,
	ITEM_FINISH
};

/*
 * The backlog lives in one ring of max_queued_bytes, mapped lazily on huge
 * pages: items are carved from it in FIFO order and the worker releases
 * them in the same order.  A malloc'd buffer per batch cost the collector
 * thread a page fault for every 4 KiB it copied whenever the worker fell
 * behind (every buffer then being fresh memory), more than the copy.
 */
#define ITEM_ALIGN 64u
/* First touches of memory are slow on some VMs (the kernel zeroes and maps
 * each page): the worker maps the ring this far ahead of the collector's
 * writes, so that cost lands on the worker, not on the drain. */
#define PREFAULT_AHEAD (UINT64_C(32) << 20)
/* Before the first item only this much: the worker starts while `record`
 * attaches, and zeroing 32 MiB then took CPU from the attach on a busy
 * machine; the first item has the worker map the full distance ahead. */
#define PREFAULT_FIRST (UINT64_C(4) << 20)

/*
 * What the collector and the worker share about one thread instance (one
 * thread_load): whether its results are being dropped.  Every item of the
 * thread points at it, so the worker skips the thread's events that were
 * already queued when it was dropped, instead of replaying them for
 * nothing (a tid may be reused after an exit, so the key alone could not
 * tell instances apart).  Owned by the collector until the thread's EXIT
 * or DROP item hands it to the worker, which frees it when it replays that
 * item; instances never handed over (the collector stopped queuing) are
 * kept on an orphan list and freed after the worker has stopped.
 */
struct worker_instance {
	int dropped; /* atomic: set by the collector, read by the worker */
	struct worker_instance *next_orphan;
};

struct item {
	struct item *next;
	enum item_kind kind;
	struct worker_instance *inst; /* the thread's, or NULL */
	uint64_t ring_end;	      /* ring offset after this item; 0: a malloc'd marker */
	int drop_open;		      /* FINISH: events were refused, open threads are incomplete */
	union {
		struct wpp_chunk_batch batch; /* words follow the item */
		struct wpp_chunk_gap gap;
		struct wpp_thread_key key;
		struct {
			uint32_t len;	 /* of the payload */
			uint64_t nwords; /* its heads' */
		} packed;
	} u;
	uint64_t words[];
};

struct result {
	struct result *next;
	enum wpp_chunk_type type;
	uint32_t len;
	void *payload;
};

struct online_worker {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct item *head, **tail;		/* FIFO, under lock */
	struct result *results, **results_tail; /* under lock */
	uint8_t *ring;
	uint64_t ring_size;
	uint64_t ring_head, ring_tail; /* absolute offsets, under lock */
	int running;

	/* Collector side only. */
	int stopped_queuing;		 /* gave up or finishing: queue nothing more */
	int gave_up_all;		 /* every open thread's results are dropped */
	struct thread_loads loads;	 /* open threads (a thread is dropped when an
					    event of it was refused, or it was the
					    biggest producer when the backlog overflowed) */
	struct worker_instance *orphans; /* never handed to the worker */

	/* Worker side only (read by the collector after the join). */
	struct wpp_online *assembler;
	struct wpp_batch_z_walker unpack; /* ITEM_PACKED */
	uint64_t prefaulted;		  /* ring bytes [0, prefaulted) are mapped */
	int dropping;			  /* past the give-up marker: results are incomplete */

	struct online_worker_stats stats;
	wpp_online_progress_fn progress;
	void *progress_ctx;
	int worker_done; /* atomic: worker_main has returned */
	int abandon;	 /* atomic: the collector wants no more results (progress) */
};

static void take_all(struct online_worker *q, struct item **list)
{
	pthread_mutex_lock(&q->lock);
	while (!q->head)
		pthread_cond_wait(&q->wake, &q->lock);
	*list = q->head;
	q->head = NULL;
	q->tail = &q->head;
	pthread_mutex_unlock(&q->lock);
}

/* The worker is done with it (items come back in FIFO order). */
static void recycle(struct online_worker *q, struct item *it)
{
	if (!it->ring_end) {
		free(it);
		return;
	}
	pthread_mutex_lock(&q->lock);
	q->ring_tail = it->ring_end;
	pthread_mutex_unlock(&q->lock);
}

/* Was the item's thread dropped after the item was queued?  Then its
 * results are unwanted and replaying it would only cost time. */
static int skipped(struct online_worker *q, const struct item *it)
{
	if (!it->inst || !__atomic_load_n(&it->inst->dropped, __ATOMIC_ACQUIRE))
		return 0;
	__atomic_add_fetch(&q->stats.events_skipped, 1, __ATOMIC_RELAXED);
	return 1;
}

static void replay_unpacked(void *ctx, const struct wpp_chunk_batch *b, const uint64_t *words,
			    uint64_t chunk_offset)
{
	struct online_worker *q = ctx;

	(void)chunk_offset;
	wpp_online_batch(q->assembler, b, words);
}

/* The batches of a BATCH_Z payload, decoded, in order.  The collector
 * checked the heads when it queued the item; a payload that does not
 * decode (out of memory) leaves the assembler failed, as its own
 * allocation failures do. */
static void replay_packed(struct online_worker *q, const struct item *it)
{
	const struct wpp_chunk c = {
	    .type = WPP_CHUNK_BATCH_Z, .length = it->u.packed.len, .payload = it->words};
	const char *why;

	if (!skipped(q, it)) {
		if (wpp_batch_z_walk(&q->unpack, &c, NULL, &why) != WPP_BATCH_Z_DECODED) {
			q->stats.failed = 1;
			return;
		}
	}
	__atomic_add_fetch(&q->stats.words_replayed, it->u.packed.nwords, __ATOMIC_RELAXED);
}

/* Returns 1 when the FIFO's last event (FINISH) has been handled. */
static int replay(struct online_worker *q, struct item *it)
{
	/* Abandoned: no more results; words are skipped, threads still
	 * closed (their state freed) as their exits come. */
	if (!q->dropping && __atomic_load_n(&q->abandon, __ATOMIC_ACQUIRE))
		q->dropping = 1;
	if (q->dropping &&
	    (it->kind == ITEM_BATCH || it->kind == ITEM_PACKED || it->kind == ITEM_GAP)) {
		__atomic_add_fetch(&q->stats.events_skipped, 1, __ATOMIC_RELAXED);
		return 0;
	}
	switch (it->kind) {
	case ITEM_BATCH:
		if (!skipped(q, it))
			wpp_online_batch(q->assembler, &it->u.batch, it->words);
		__atomic_add_fetch(&q->stats.words_replayed, it->u.batch.nwords, __ATOMIC_RELAXED);
		break;
	case ITEM_PACKED:
		replay_packed(q, it);
		break;
	case ITEM_GAP:
		if (!skipped(q, it))
			wpp_online_gap(q->assembler, &it->u.gap);
		break;
	case ITEM_EXIT:
		wpp_online_thread_exit(q->assembler, &it->u.key, NULL);
		free(it->inst); /* the thread's last item */
		break;
	case ITEM_DROP: {
		/* The collector queues nothing more of this thread: close it
		 * now, its results unwanted (the reader rebuilds them). */
		int was_dropping = q->dropping;
		q->dropping = 1;
		wpp_online_thread_exit(q->assembler, &it->u.key, NULL);
		q->dropping = was_dropping;
		free(it->inst); /* the thread's last item */
		__atomic_add_fetch(&q->stats.drops_replayed, 1, __ATOMIC_RELEASE);
		break;
	}
	case ITEM_GIVE_UP:
		/* Threads still open lost events after this point. */
		q->dropping = 1;
		break;
	case ITEM_FINISH:
		if (it->drop_open)
			q->dropping = 1;
		if (wpp_online_finish(q->assembler, NULL) < 0)
			q->stats.failed = 1;
		return 1;
	}
	return 0;
}

/* Map the ring ahead of the collector's writes (MADV_POPULATE_WRITE maps
 * pages without touching their content, so racing with the collector's
 * writes is harmless).  Once the whole ring is mapped there is nothing
 * left to do. */
static void prefault_ahead(struct online_worker *q, uint64_t ahead)
{
	uint64_t head, want;

	if (q->prefaulted >= q->ring_size)
		return;
	pthread_mutex_lock(&q->lock);
	head = q->ring_head;
	pthread_mutex_unlock(&q->lock);
	want = head + ahead < q->ring_size ? head + ahead : q->ring_size;
	want &= ~(uint64_t)4095;
	if (want <= q->prefaulted)
		return;
	/* Advice: if the kernel refuses, the collector faults the pages in. */
	madvise(q->ring + q->prefaulted, want - q->prefaulted, MADV_POPULATE_WRITE);
	q->prefaulted = want;
}

static void *worker_main(void *arg)
{
	struct online_worker *q = arg;
	struct item *list;
	int done = 0;

	/* Normal priority on purpose: a niced worker, starved on a busy
	 * machine, stopped mapping the ring ahead and the drain thread took
	 * the page faults (measured); the end of the recording waits for the
	 * worker anyway. */
	prefault_ahead(q, PREFAULT_FIRST);
	while (!done) {
		take_all(q, &list);
		while (list) {
			struct item *it = list;
			list = it->next;
			/* Before every item: one item can be a batch whose runs
			 * expand to millions of symbols, and checking every 64
			 * let the drain outrun the mapping (zlib, minigzip -6 of
			 * 12 MB: 3-6 producer pauses a recording, none since). */
			prefault_ahead(q, PREFAULT_AHEAD);
			if (!done)
				done = replay(q, it);
			recycle(q, it);
		}
	}
	/* What the grammars cost, apart from the drain (record's summary). */
	struct timespec cpu;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
		q->stats.cpu_seconds = (double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9;
	__atomic_store_n(&q->worker_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

struct online_worker *online_worker_start(const struct wpp_online_consumer *consumers, size_t n,
					  uint64_t max_queued_bytes)
{
	struct online_worker *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->unpack = (struct wpp_batch_z_walker){.on_batch = replay_unpacked, .ctx = q};
	q->tail = &q->head;
	q->results_tail = &q->results;
	q->ring_size = max_queued_bytes & ~(uint64_t)(ITEM_ALIGN - 1);
	q->ring = q->ring_size ? mmap(NULL, q->ring_size, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
			       : MAP_FAILED;
	if (q->ring == MAP_FAILED) {
		/* No backlog possible: every event is refused (gives up). */
		q->ring = NULL;
		q->ring_size = 0;
	} else {
		/* Advice only: one fault per 2 MiB instead of per 4 KiB. */
		madvise(q->ring, q->ring_size, MADV_HUGEPAGE);
	}
	q->assembler = wpp_online_new(consumers, n);
	if (!q->assembler || pthread_mutex_init(&q->lock, NULL)) {
		wpp_online_free(q->assembler);
		if (q->ring)
			munmap(q->ring, q->ring_size);
		free(q);
		return NULL;
	}
	if (pthread_cond_init(&q->wake, NULL)) {
		pthread_mutex_destroy(&q->lock);
		wpp_online_free(q->assembler);
		if (q->ring)
			munmap(q->ring, q->ring_size);
		free(q);
		return NULL;
	}
	if (pthread_create(&q->thread, NULL, worker_main, q)) {
		pthread_cond_destroy(&q->wake);
		pthread_mutex_destroy(&q->lock);
		wpp_online_free(q->assembler);
		if (q->ring)
			munmap(q->ring, q->ring_size);
		free(q);
		return NULL;
	}
	q->running = 1;
	return q;
}

static void push(struct online_worker *q, struct item *it)
{
	pthread_mutex_lock(&q->lock);
	*q->tail = it;
	q->tail = &it->next;
	pthread_cond_signal(&q->wake);
	pthread_mutex_unlock(&q->lock);
}

/* The backlog limit was hit (or memory ran out): tell the worker, queue
 * nothing more. */
static void give_up(struct online_worker *q)
{
	/* If this allocation fails, the FINISH marker (drop_open) is the
	 * first thing the worker hears of it: still before any open thread
	 * is closed. */
	struct item *it = calloc(1, sizeof(*it));

	q->stats.gave_up = 1;
	q->gave_up_all = 1;
	q->stopped_queuing = 1;
	if (it) {
		it->kind = ITEM_GIVE_UP;
		push(q, it);
	}
}

/* A new item of kind with room for tail bytes after it, carved from the
 * ring, or NULL when the ring is full (the caller decides what is
 * dropped). */
static struct item *new_item(struct online_worker *q, enum item_kind kind, uint64_t tail)
{
	uint64_t bytes =
	    (sizeof(struct item) + tail + ITEM_ALIGN - 1) & ~(uint64_t)(ITEM_ALIGN - 1);
	struct item *it = NULL;
	uint64_t end = 0;

	if (q->stopped_queuing)
		return NULL;
	if (bytes <= q->ring_size) {
		pthread_mutex_lock(&q->lock);
		uint64_t start = q->ring_head, pos = start % q->ring_size;
		if (pos + bytes > q->ring_size) /* no item wraps: skip to the start */
			start += q->ring_size - pos;
		if (start + bytes - q->ring_tail <= q->ring_size) {
			it = (struct item *)(q->ring + start % q->ring_size);
			end = q->ring_head = start + bytes;
			if (q->ring_head - q->ring_tail > q->stats.queued_bytes_peak)
				q->stats.queued_bytes_peak = q->ring_head - q->ring_tail;
		}
		pthread_mutex_unlock(&q->lock);
	}
	if (!it)
		return NULL;
	memset(it, 0, sizeof(*it));
	it->kind = kind;
	it->ring_end = end;
	return it;
}

/* The load entry of key (added if new, with its shared instance), or NULL
 * without memory. */
static struct thread_load *load_of(struct online_worker *q, const struct wpp_thread_key *key)
{
	struct thread_load *t = thread_loads_find(&q->loads, key);
	struct worker_instance *inst;

	if (t)
		return t;
	if (!(inst = calloc(1, sizeof(*inst))))
		return NULL;
	if (!(t = thread_loads_add(&q->loads, key))) {
		free(inst);
		return NULL;
	}
	t->inst = inst;
	return t;
}

/* The thread is over for the collector: forget its entry.  Its instance,
 * unless an EXIT or DROP item handed it to the worker, may still be read
 * by queued items: it is freed once the worker has stopped. */
static void forget_thread(struct online_worker *q, struct thread_load *t)
{
	if (t->inst) {
		t->inst->next_orphan = q->orphans;
		q->orphans = t->inst;
	}
	thread_loads_remove(&q->loads, t);
}

/* Queue nothing more of this thread and have the worker close it with its
 * results dropped (in FIFO order: after everything queued for it). */
static void drop_thread(struct online_worker *q, struct thread_load *t)
{
	struct item *it = calloc(1, sizeof(*it));

	if (!it) { /* cannot even say so: fall back to dropping every thread */
		give_up(q);
		return;
	}
	t->dropped = 1;
	q->stats.gave_up = 1;
	q->stats.threads_dropped++;
	/* From here the worker skips the thread's queued events. */
	__atomic_store_n(&t->inst->dropped, 1, __ATOMIC_RELEASE);
	it->kind = ITEM_DROP;
	it->u.key = t->key;
	it->inst = t->inst; /* handed over: the DROP item is the thread's last */
	t->inst = NULL;
	push(q, it);
}

/*
 * The backlog is full and an event of t must be refused: t's results
 * would be incomplete, so t is dropped; so is the open thread that has
 * queued the most (usually the one the worker is slowest on, whose next
 * events would not fit either).  The other threads keep their results —
 * the backlog drains as the worker catches up.
 */
static void keep_biggest(struct thread_load *t, void *arg)
{
	struct thread_load **biggest = arg;

	if (!t->dropped && (!*biggest || t->queued_bytes > (*biggest)->queued_bytes))
		*biggest = t;
}

static void overflow(struct online_worker *q, struct thread_load *t)
{
	struct thread_load *biggest = NULL;

	if (!t->dropped)
		drop_thread(q, t);
	thread_loads_each(&q->loads, keep_biggest, &biggest);
	if (biggest && biggest->queued_bytes > t->queued_bytes && !q->stopped_queuing)
		drop_thread(q, biggest);
}

/* An item for an event of thread key with tail bytes after it, or NULL
 * when the event is not to be queued (the thread is dropped, or is dropped
 * now). */
static struct item *thread_item(struct online_worker *q, const struct wpp_thread_key *key,
				enum item_kind kind, uint64_t tail)
{
	struct thread_load *t;
	struct item *it;

	if (q->stopped_queuing)
		return NULL;
	if (!(t = load_of(q, key))) {
		give_up(q);
		return NULL;
	}
	if (t->dropped)
		return NULL;
	if (!(it = new_item(q, kind, tail))) {
		overflow(q, t);
		return NULL;
	}
	t->queued_bytes += sizeof(*it) + tail;
	it->inst = t->inst;
	return it;
}

void online_worker_batch(struct online_worker *q, const struct wpp_chunk_batch *b,
			 const uint64_t *words)
{
	struct wpp_thread_key key = {b->pid, b->tid, b->generation};
	struct item *it = thread_item(q, &key, ITEM_BATCH, (uint64_t)b->nwords * sizeof(uint64_t));

	if (!it)
		return;
	it->u.batch = *b;
	memcpy(it->words, words, (size_t)b->nwords * sizeof(uint64_t));
	q->stats.words_queued += b->nwords;
	push(q, it);
}

void online_worker_packed(struct online_worker *q, const void *head, uint32_t head_len,
			  const void *packed, uint32_t packed_len)
{
	uint32_t len = head_len + packed_len;
	struct wpp_chunk_batch_z z;
	struct wpp_chunk_batch b;
	uint64_t total;
	const char *why;
	struct item *it;

	/* The recorder wrote it a moment ago: heads that fail here are a
	 * bug, and losing the grammars is all it may cost. */
	if (wpp_batch_z_check(head, len, head_len, &z, &total, &why) < 0) {
		give_up(q);
		return;
	}
	wpp_batch_z_head(head, 0, &b);
	it = thread_item(q, &(struct wpp_thread_key){b.pid, b.tid, b.generation}, ITEM_PACKED, len);
	if (!it)
		return;
	it->u.packed.len = len;
	it->u.packed.nwords = total;
	memcpy(it->words, head, head_len);
	memcpy((unsigned char *)it->words + head_len, packed, packed_len);
	q->stats.words_queued += total;
	push(q, it);
}

void online_worker_set_progress(struct online_worker *q, wpp_online_progress_fn fn, void *ctx)
{
	q->progress = fn;
	q->progress_ctx = ctx;
}

void online_worker_gap(struct online_worker *q, const struct wpp_chunk_gap *g)
{
	struct thread_load *t;
	struct item *it;

	if (q->stopped_queuing)
		return;
	/* A gap names no generation: it belongs to the thread's newest open
	 * one, and opens (pid, tid, 0) if there is none — the assembler's
	 * rule (online.c), so that refusing it drops only that thread. */
	t = thread_loads_newest(&q->loads, g->pid, g->tid);
	if (!t && !(t = load_of(q, &(struct wpp_thread_key){g->pid, g->tid, 0}))) {
		give_up(q);
		return;
	}
	if (t->dropped)
		return;
	if (!(it = new_item(q, ITEM_GAP, 0))) {
		overflow(q, t);
		return;
	}
	it->u.gap = *g;
	it->inst = t->inst;
	push(q, it);
}

void online_worker_thread_exit(struct online_worker *q, const struct wpp_thread_key *key)
{
	struct thread_load *t = thread_loads_find(&q->loads, key);
	struct item *it = NULL;

	/* A dropped thread was closed at its drop marker already. */
	if (!q->stopped_queuing && !(t && t->dropped)) {
		/* An exit carries no words: when the ring is full it is
		 * allocated apart, so a thread whose events all went in is
		 * never lost for want of its exit. */
		if (!(it = new_item(q, ITEM_EXIT, 0)) && (it = calloc(1, sizeof(*it))))
			it->kind = ITEM_EXIT;
		if (!it) {
			give_up(q);
		} else {
			it->u.key = *key;
			if (t) { /* handed over: the EXIT item is the thread's last */
				it->inst = t->inst;
				t->inst = NULL;
			}
			push(q, it);
		}
	}
	if (t) /* the thread is over: a later one may reuse its key */
		forget_thread(q, t);
}

void online_worker_emit(struct online_worker *q, enum wpp_chunk_type type, void *payload,
			uint32_t len)
{
	struct result *r = q->dropping ? NULL : malloc(sizeof(*r));

	if (!r) {
		free(payload);
		return;
	}
	*r = (struct result){NULL, type, len, payload};
	pthread_mutex_lock(&q->lock);
	*q->results_tail = r;
	q->results_tail = &r->next;
	pthread_mutex_unlock(&q->lock);
}

/* Write (w) or drop (NULL) the results emitted so far. */
static int take_results(struct online_worker *q, struct wpp_writer *w)
{
	struct result *list;
	int rc = 0, err;

	pthread_mutex_lock(&q->lock);
	list = q->results;
	q->results = NULL;
	q->results_tail = &q->results;
	pthread_mutex_unlock(&q->lock);
	while (list) {
		struct result *r = list;
		list = r->next;
		if (w && !rc && (err = wppw_chunk(w, r->type, r->payload, r->len)) < 0)
			rc = err;
		free(r->payload);
		free(r);
	}
	return rc;
}

int online_worker_write(struct online_worker *q, struct wpp_writer *w)
{
	return w ? take_results(q, w) : 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Until the worker has replayed the backlog: say how far it is, about
 * once a second after the first (a recording whose grammars take longer
 * than the program to build finishes them after it, visibly). */
static void wait_worker(struct online_worker *q)
{
	double start = now_s();

	while (!__atomic_load_n(&q->worker_done, __ATOMIC_ACQUIRE)) {
		usleep(20000);
		if (q->progress && !q->stats.gave_up &&
		    q->progress(q->progress_ctx,
				__atomic_load_n(&q->stats.words_replayed, __ATOMIC_RELAXED),
				q->stats.words_queued, now_s() - start)) {
			q->stats.gave_up = 1;
			__atomic_store_n(&q->abandon, 1, __ATOMIC_RELEASE);
		}
	}
}

/* Queue FINISH (never refused: it carries no words) and wait. */
static void stop_worker(struct online_worker *q)
{
	struct item *it;

	if (!q->running)
		return;
	q->stopped_queuing = 1;
	/* If even this allocation fails, the worker cannot be told to stop
	 * in order; retrying is all that is left (it frees memory as it
	 * drains the backlog). */
	while (!(it = calloc(1, sizeof(*it))))
		usleep(1000);
	it->kind = ITEM_FINISH;
	it->drop_open = q->gave_up_all;
	push(q, it);
	wait_worker(q);
	pthread_join(q->thread, NULL);
	q->running = 0;
	wpp_online_free(q->assembler); /* every thread was closed by FINISH */
	q->assembler = NULL;
}

int online_worker_finish(struct online_worker *q, struct wpp_writer *w)
{
	stop_worker(q);
	return take_results(q, w);
}

const struct online_worker_stats *online_worker_stats(const struct online_worker *q)
{
	return &q->stats;
}

void online_worker_progress(const struct online_worker *q, uint64_t *events_skipped,
			    uint64_t *drops_replayed)
{
	*events_skipped = __atomic_load_n(&q->stats.events_skipped, __ATOMIC_RELAXED);
	*drops_replayed = __atomic_load_n(&q->stats.drops_replayed, __ATOMIC_ACQUIRE);
}

static void free_instance(struct thread_load *t, void *arg)
{
	(void)arg;
	free(t->inst);
	t->inst = NULL;
}

void online_worker_free(struct online_worker *q)
{
	if (!q)
		return;
	if (q->running) {
		/* Aborted recording: whatever the worker still produces is not
		 * wanted. */
		if (!q->stopped_queuing)
			give_up(q);
		stop_worker(q);
	}
	take_results(q, NULL);
	/* The worker has stopped: nothing reads the instances any more. */
	thread_loads_each(&q->loads, free_instance, NULL);
	thread_loads_free(&q->loads);
	while (q->orphans) {
		struct worker_instance *inst = q->orphans;
		q->orphans = inst->next_orphan;
		free(inst);
	}
	if (q->ring)
		munmap(q->ring, q->ring_size);
	wpp_batch_z_walker_fini(&q->unpack);
	pthread_cond_destroy(&q->wake);
	pthread_mutex_destroy(&q->lock);
	free(q);
}
