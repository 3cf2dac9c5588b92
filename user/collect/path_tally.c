/* SPDX-License-Identifier: MIT */
/*
 * path_tally.c — live path counts from published batches (contract in
 * path_tally.h).  Two tables: the open threads (a short list, looked up
 * once per batch, most recent first) with each level's last record, and
 * the counts (open addressing on (image, fid, id), emptied by a take).
 */
#include "collect/path_tally.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "decode/trace_words.h"

#define SIGNAL_RUNS 64u
#define RECENT_SEQS 64u

/* One signal handler run of a thread: the point it interrupted. */
struct handler_run {
	uint64_t parent_seq;
	uint32_t parent_off;
	uint32_t in_use;
	uint64_t last_used; /* the thread's batch count when last fed */
	struct wpp_words words;
};

struct tally_thread {
	uint32_t pid, tid, generation;
	struct wpp_words main;	      /* the level the thread runs on */
	struct handler_run *runs;     /* [SIGNAL_RUNS], from the first signal batch */
	uint64_t recent[RECENT_SEQS]; /* seqs seen, a ring */
	uint32_t nrecent, recent_at;
	uint64_t batches;
};

struct count_slot {
	uint32_t image, fid;
	uint64_t id, count; /* count 0: free */
};

struct path_tally {
	struct tally_thread **threads;
	size_t nthreads, threads_cap;
	struct count_slot *slots;
	size_t mask, used; /* slots: mask + 1, a power of two */
	struct path_tally_stats stats;
};

static void thread_free(struct tally_thread *th)
{
	free(th->runs);
	free(th);
}

struct path_tally *path_tally_new(void)
{
	return calloc(1, sizeof(struct path_tally));
}

void path_tally_free(struct path_tally *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nthreads; i++)
		thread_free(t->threads[i]);
	free(t->threads);
	free(t->slots);
	free(t);
}

void path_tally_stats(const struct path_tally *t, struct path_tally_stats *out)
{
	*out = t->stats;
}

/* ---- counts ---- */

/* Every bit of the key moves every bit of the hash: wide path ids differ
 * in their high bits only, and a multiply alone carries high bits nowhere
 * near the low ones the mask keeps (a cluster per function, quadratic). */
static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ x >> 33;
}

static size_t home(const struct path_tally *t, uint32_t image, uint32_t fid, uint64_t id)
{
	return (size_t)mix(id ^ mix((uint64_t)fid << 32 | image)) & t->mask;
}

/* Double the table (or make the first), keeping the load under 1/2. */
static int grow(struct path_tally *t)
{
	size_t cap = t->slots ? 2 * (t->mask + 1) : 1024;
	struct count_slot *old = t->slots;
	size_t old_cap = old ? t->mask + 1 : 0;

	t->slots = calloc(cap, sizeof(*t->slots));
	if (!t->slots) {
		t->slots = old;
		return -ENOMEM;
	}
	t->mask = cap - 1;
	for (size_t i = 0; i < old_cap; i++) {
		if (!old[i].count)
			continue;
		size_t k = home(t, old[i].image, old[i].fid, old[i].id);
		while (t->slots[k].count)
			k = (k + 1) & t->mask;
		t->slots[k] = old[i];
	}
	free(old);
	return 0;
}

static int add(struct path_tally *t, uint32_t image, uint32_t fid, uint64_t id, uint64_t n)
{
	if ((!t->slots || 2 * (t->used + 1) > t->mask + 1) && grow(t))
		return -ENOMEM;
	size_t k = home(t, image, fid, id);
	for (;; k = (k + 1) & t->mask, t->stats.probes++) {
		struct count_slot *s = &t->slots[k];
		if (!s->count) {
			*s = (struct count_slot){image, fid, id, n};
			t->used++;
			break;
		}
		if (s->image == image && s->fid == fid && s->id == id) {
			s->count += n;
			break;
		}
	}
	t->stats.records += n;
	return 0;
}

static int by_key(const void *x, const void *y)
{
	const struct path_tally_entry *a = x, *b = y;
	if (a->image != b->image)
		return a->image < b->image ? -1 : 1;
	if (a->fid != b->fid)
		return a->fid < b->fid ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

int path_tally_take(struct path_tally *t, struct path_tally_entry **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!t->used)
		return 0;
	struct path_tally_entry *e = malloc(t->used * sizeof(*e));
	if (!e)
		return -ENOMEM;
	size_t k = 0;
	for (size_t i = 0; i <= t->mask; i++)
		if (t->slots[i].count)
			e[k++] = (struct path_tally_entry){t->slots[i].image, t->slots[i].fid,
							   t->slots[i].id, t->slots[i].count};
	memset(t->slots, 0, (t->mask + 1) * sizeof(*t->slots));
	t->used = 0;
	qsort(e, k, sizeof(*e), by_key);
	*out = e;
	*n = k;
	return 0;
}

/* ---- threads ---- */

static struct tally_thread *find_thread(struct path_tally *t, uint32_t pid, uint32_t tid,
					uint32_t generation, size_t *at)
{
	for (size_t i = t->nthreads; i-- > 0;) {
		struct tally_thread *th = t->threads[i];
		if (th->pid == pid && th->tid == tid && th->generation == generation) {
			*at = i;
			return th;
		}
	}
	return NULL;
}

static struct tally_thread *get_thread(struct path_tally *t, uint32_t pid, uint32_t tid,
				       uint32_t generation)
{
	size_t at;
	struct tally_thread *th = find_thread(t, pid, tid, generation, &at);
	if (th) {
		/* Most recent last: a busy thread is found at once. */
		if (at + 1 < t->nthreads) {
			memmove(t->threads + at, t->threads + at + 1,
				(t->nthreads - at - 1) * sizeof(*t->threads));
			t->threads[t->nthreads - 1] = th;
		}
		return th;
	}
	if (t->nthreads == t->threads_cap) {
		size_t cap = t->threads_cap ? 2 * t->threads_cap : 16;
		struct tally_thread **g = realloc(t->threads, cap * sizeof(*g));
		if (!g)
			return NULL;
		t->threads = g;
		t->threads_cap = cap;
	}
	if (!(th = calloc(1, sizeof(*th))))
		return NULL;
	th->pid = pid;
	th->tid = tid;
	th->generation = generation;
	wpp_words_init(&th->main, (struct wpp_words_sink){0});
	t->threads[t->nthreads++] = th;
	return th;
}

void path_tally_thread_exit(struct path_tally *t, uint32_t pid, uint32_t tid, uint32_t generation)
{
	size_t at;
	struct tally_thread *th = find_thread(t, pid, tid, generation, &at);
	if (!th)
		return;
	memmove(t->threads + at, t->threads + at + 1, (t->nthreads - at - 1) * sizeof(*t->threads));
	t->nthreads--;
	thread_free(th);
}

static void forget_levels(struct tally_thread *th)
{
	wpp_words_lost(&th->main);
	for (unsigned i = 0; th->runs && i < SIGNAL_RUNS; i++)
		th->runs[i].in_use = 0;
}

void path_tally_gap(struct path_tally *t, uint32_t pid, uint32_t tid)
{
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i]->pid == pid && t->threads[i]->tid == tid)
			forget_levels(t->threads[i]);
}

/* The reader of the level b was recorded on (NULL without memory). */
static struct wpp_words *level_of(struct tally_thread *th, const struct wpp_chunk_batch *b)
{
	if (!(b->flags & WPP_BATCH_SIGNAL))
		return &th->main;
	if (!th->runs && !(th->runs = calloc(SIGNAL_RUNS, sizeof(*th->runs))))
		return NULL;
	struct handler_run *oldest = &th->runs[0];
	for (unsigned i = 0; i < SIGNAL_RUNS; i++) {
		struct handler_run *r = &th->runs[i];
		if (r->in_use && r->parent_seq == b->parent_seq && r->parent_off == b->parent_off) {
			r->last_used = th->batches;
			return &r->words;
		}
		if (!r->in_use || (oldest->in_use && r->last_used < oldest->last_used))
			oldest = r;
	}
	/* A handler run not seen yet: nothing to repeat in it. */
	oldest->parent_seq = b->parent_seq;
	oldest->parent_off = b->parent_off;
	oldest->in_use = 1;
	oldest->last_used = th->batches;
	wpp_words_init(&oldest->words, (struct wpp_words_sink){0});
	return &oldest->words;
}

/* 1 if seq was seen among the thread's last RECENT_SEQS batches;
 * remembers it otherwise. */
static int seen_before(struct tally_thread *th, uint64_t seq)
{
	for (uint32_t i = 0; i < th->nrecent; i++)
		if (th->recent[i] == seq)
			return 1;
	th->recent[th->recent_at] = seq;
	th->recent_at = (th->recent_at + 1) % RECENT_SEQS;
	if (th->nrecent < RECENT_SEQS)
		th->nrecent++;
	return 0;
}

int path_tally_batch(struct path_tally *t, const struct wpp_chunk_batch *b, const uint64_t *words,
		     uint32_t image)
{
	struct tally_thread *th = get_thread(t, b->pid, b->tid, b->generation);
	if (!th)
		return -ENOMEM;
	if (seen_before(th, b->seq)) {
		t->stats.duplicates++;
		return 0;
	}
	th->batches++;
	t->stats.batches++;
	t->stats.words += b->nwords;
	struct wpp_words *r = level_of(th, b);
	struct wpp_word_item it;
	if (!r)
		return -ENOMEM;
	for (uint32_t i = 0; i < b->nwords;) {
		i += (uint32_t)wpp_words_read(r, words + i, b->nwords - i, 0, &it);
		if (it.kind == WPP_WORD_RECORDS) {
			if (add(t, image, it.fid, it.value, it.times))
				return -ENOMEM;
		} else if (it.kind == WPP_WORD_UNATTRIBUTABLE) {
			t->stats.unattributable += it.times;
		} else if (it.kind == WPP_WORD_MALFORMED) {
			t->stats.malformed++;
		}
	}
	return 0;
}
