/* SPDX-License-Identifier: MIT */
/*
 * rt_count_table.h — the pieces of counting mode (trace_abi.h, "Counting
 * mode") that need no thread or process state, so a unit test can drive
 * them alone:
 *
 *  - the open-addressing hash of (fid word, path id) -> count that functions
 *    with too many paths for an array range count in (one per thread);
 *  - a hashed function's path cache in the array: claiming a pair;
 *  - draining a thread's array of a TU, or its hash, into path counts;
 *  - encoding one path count as trace words: the path record (narrow word,
 *    or [WIDE_PATH ctrl, id | mark] when the id needs more than 40 bits)
 *    followed by REPEAT words for count - 1, WPP_REPEAT_MAX at most each,
 *    which every trace reader sums (trace_abi.h).
 *
 * Draining reads and zeroes each counter with one exchange: a signal
 * handler on the owning thread (or the owner, when another thread drains
 * at process end) may count meanwhile, and an exchange never loses or
 * repeats what it took.  Memory comes from mmap: usable in signal handlers
 * and fork children, zero-filled, and unbacked until touched.
 */
#ifndef WPP_RT_COUNT_TABLE_H
#define WPP_RT_COUNT_TABLE_H

#include <stdint.h>

#include "wpp/trace_abi.h"

struct rt_count_entry {
	uint64_t fidw; /* 0: free slot (a fid word is never 0) */
	uint64_t id;
	uint64_t count;
};

struct rt_count_table {
	struct rt_count_entry *e;
	uint64_t cap; /* power of two, or 0 before the first insertion */
	uint64_t used;
};

/* Count one execution of path id of the function with fid word fidw.  -1
 * if the table had to grow and no memory could be had (nothing counted).
 * errno is the caller's afterwards, whatever happened. */
int rt_count_table_add(struct rt_count_table *t, uint64_t fidw, uint64_t id);

static inline uint64_t rt_count_slot(uint64_t fidw, uint64_t id, uint64_t cap)
{
	uint64_t h = (id ^ fidw) * WPP_COUNT_HASH_MUL; /* the pass probes inline too */
	return (h ^ (h >> 29)) & (cap - 1);
}

/* The hot case of rt_count_table_add, inline so a caller with the
 * preserve_most convention saves few registers: count (fidw, id) if the
 * table has it (1), else 0 and nothing done. */
static inline int rt_count_table_bump(struct rt_count_table *t, uint64_t fidw, uint64_t id)
{
	uint64_t cap = t->cap;
	struct rt_count_entry *e = t->e;
	if (!cap)
		return 0;
	for (uint64_t i = rt_count_slot(fidw, id, cap);; i = (i + 1) & (cap - 1)) {
		if (e[i].fidw == fidw && e[i].id == id) {
			__asm__("addq $1, %0" : "+m"(e[i].count));
			return 1;
		}
		if (!e[i].fidw)
			return 0;
	}
}

/* A path cache's miss (trace_abi.h, "A hashed function's path cache"):
 * *keyp is the key slot that key (a path id + 1) hashes to, *countp its
 * count.  Claims it for key if it is free — one compare-exchange, which a
 * signal handler on the thread cannot split — and counts there (1), or
 * leaves it to the path holding it (0: count the path elsewhere). */
static inline int rt_count_cache_claim(uint64_t *keyp, uint64_t *countp, uint64_t key)
{
	uint64_t held = 0;
	if (!__atomic_compare_exchange_n(keyp, &held, key, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED) &&
	    held != key)
		return 0;
	__asm__("addq $1, %0" : "+m"(*countp));
	return 1;
}

/* Receives drained counts (count >= 1). */
typedef void (*rt_count_sink)(uint64_t fidw, uint64_t id, uint64_t count, void *arg);

/* Every non-zero count of the table, each zeroed as it is taken. */
void rt_count_table_drain(struct rt_count_table *t, rt_count_sink sink, void *arg);
/* Forget every entry and give the memory back to the kernel (the mapping
 * stays, reading zeros), e.g. in a fork child or at thread exit. */
void rt_count_table_clear(struct rt_count_table *t);

/* The lowest address in [from, end) of the array whose page was ever
 * written (from itself when its own page was), or end: the pages between
 * read zeros and need not be read. */
typedef const void *(*rt_count_touched_fn)(void *ctx, const void *from, const void *end);
#define RT_COUNT_PAGE_SLOTS 512u /* counters per 4 KiB */

/* Every non-zero counter of one thread's array of a TU (desc), each
 * zeroed as it is taken; fid words come from the TU's registered base
 * (the unregistered fid while it has none).  In a PPP TU (abi_version
 * WPP_COUNT_DESC_PPP) a function with a slot table counts PPP ids: the
 * sink gets the Ball-Larus id the table names for the slot; in a TU with
 * path caches (WPP_COUNT_DESC_CACHED) a cached function's range ends in
 * N = 2^cached[f] keys then N counts, each count going to the path its
 * key names (the key stays).  touched
 * (NULL: every page) skips the pages of base (page-aligned) that were
 * never written, unread (rt_count_pages.h). */
void rt_count_array_drain(const struct wpp_count_desc *desc, uint64_t *base,
			  rt_count_touched_fn touched, void *touched_ctx, rt_count_sink sink,
			  void *arg);

/* Trace words for `count` executions of path id of fidw's function, one
 * record at a time (a wide record's two words in one call: they must not
 * be split across batches). */
typedef void (*rt_word_sink)(const uint64_t *words, unsigned n, void *arg);
void rt_count_encode(uint64_t fidw, uint64_t id, uint64_t count, rt_word_sink put, void *arg);

/* How many words rt_count_encode writes for one path count (0 for none). */
static inline uint64_t rt_count_words(uint64_t id, uint64_t count)
{
	if (!count)
		return 0;
	return (id > WPP_PAYLOAD_MASK ? 2 : 1) + (count - 1 + WPP_REPEAT_MAX - 1) / WPP_REPEAT_MAX;
}

#endif
