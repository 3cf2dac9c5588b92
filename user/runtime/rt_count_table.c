/* SPDX-License-Identifier: MIT */
/* rt_count_table.c — counting mode's hash, drains and encoding (see
 * rt_count_table.h). */
#include "runtime/rt_count_table.h"

#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>

#define FIRST_CAP 1024u /* entries: 24 KiB, touched as it fills */

static struct rt_count_entry *find_or_claim(struct rt_count_entry *e, uint64_t cap, uint64_t fidw,
					    uint64_t id, int *fresh)
{
	for (uint64_t i = rt_count_slot(fidw, id, cap);; i = (i + 1) & (cap - 1)) {
		if (e[i].fidw == fidw && e[i].id == id)
			return &e[i];
		if (e[i].fidw == 0) {
			*fresh = 1;
			e[i].id = id;
			/* a drainer on another thread reads fidw first */
			__atomic_store_n(&e[i].fidw, fidw, __ATOMIC_RELEASE);
			return &e[i];
		}
	}
}

/* Twice the entries, counts moved by exchange (a drain racing with the
 * move takes each count from exactly one of the two tables).  The old
 * mapping stays (its pages handed back), so a drainer still walking it
 * reads zeros, never unmapped memory. */
static int grow(struct rt_count_table *t)
{
	uint64_t cap = t->cap ? 2 * t->cap : FIRST_CAP;
	int saved_errno = errno; /* the program's, whatever mmap does */
	struct rt_count_entry *e = mmap(NULL, cap * sizeof(*e), PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	errno = saved_errno;
	if (e == MAP_FAILED)
		return -1;
	for (uint64_t i = 0; i < t->cap; i++) {
		struct rt_count_entry *o = &t->e[i];
		int fresh = 0;
		if (o->fidw)
			find_or_claim(e, cap, o->fidw, o->id, &fresh)->count =
			    __atomic_exchange_n(&o->count, 0, __ATOMIC_RELAXED);
	}
	struct rt_count_entry *old = t->e;
	uint64_t old_cap = t->cap;
	/* entries before capacity: a drainer that reads the new capacity
	 * (first) also reads the new entries */
	__atomic_store_n(&t->e, e, __ATOMIC_RELEASE);
	__atomic_store_n(&t->cap, cap, __ATOMIC_RELEASE);
	if (old)
		madvise(old, old_cap * sizeof(*old), MADV_DONTNEED);
	errno = saved_errno;
	return 0;
}

int rt_count_table_add(struct rt_count_table *t, uint64_t fidw, uint64_t id)
{
	int fresh = 0;
	if ((t->used + 1) * 4 > t->cap * 3 && grow(t) < 0)
		return -1;
	struct rt_count_entry *e = find_or_claim(t->e, t->cap, fidw, id, &fresh);
	/* one add to memory: a signal handler cannot split it (and the
	 * caller keeps handlers out of the table while it is here) */
	__asm__("addq $1, %0" : "+m"(e->count));
	t->used += (uint64_t)fresh;
	return 0;
}

void rt_count_table_drain(struct rt_count_table *t, rt_count_sink sink, void *arg)
{
	uint64_t cap = __atomic_load_n(&t->cap, __ATOMIC_ACQUIRE);
	struct rt_count_entry *e = __atomic_load_n(&t->e, __ATOMIC_ACQUIRE);
	for (uint64_t i = 0; e && i < cap; i++) {
		uint64_t fidw = __atomic_load_n(&e[i].fidw, __ATOMIC_ACQUIRE);
		if (!fidw || !e[i].count)
			continue;
		uint64_t c = __atomic_exchange_n(&e[i].count, 0, __ATOMIC_RELAXED);
		if (c)
			sink(fidw, e[i].id, c, arg);
	}
}

void rt_count_table_clear(struct rt_count_table *t)
{
	int saved_errno = errno;
	if (t->e)
		madvise(t->e, t->cap * sizeof(*t->e), MADV_DONTNEED);
	errno = saved_errno;
	t->used = 0;
}

/* A path cache in [first, end): keys, then as many counts; each count
 * to its key's path.  A key is written (claimed) before its
 * first count, so a count taken here always has its key; the key half is
 * read only where a count is. */
static void drain_cache(uint64_t *base, uint64_t first, uint64_t end, uint64_t fidw,
			rt_count_touched_fn touched, void *touched_ctx, rt_count_sink sink,
			void *arg)
{
	uint64_t n = (end - first) / 2, from = first + n;
	for (uint64_t s = from; s < end; s++) {
		if (touched && (s == from || s % RT_COUNT_PAGE_SLOTS == 0)) {
			const uint64_t *t = touched(touched_ctx, &base[s], &base[end]);
			if ((s = (uint64_t)(t - base)) >= end)
				break;
		}
		if (!base[s])
			continue;
		uint64_t c = __atomic_exchange_n(&base[s], 0, __ATOMIC_ACQ_REL);
		uint64_t key = __atomic_load_n(&base[s - n], __ATOMIC_ACQUIRE);
		if (c && key)
			sink(fidw, key - 1, c, arg);
	}
}

void rt_count_array_drain(const struct wpp_count_desc *desc, uint64_t *base,
			  rt_count_touched_fn touched, void *touched_ctx, rt_count_sink sink,
			  void *arg)
{
	uint64_t fid_base = *desc->fid_base_slot;
	uint64_t unregistered = (uint64_t)WPP_FID_UNREGISTERED << WPP_FID_SHIFT;
	int v2 =
	    desc->abi_version == WPP_COUNT_DESC_PPP || desc->abi_version == WPP_COUNT_DESC_CACHED;
	const uint64_t *const *tables = v2 ? desc->ppp_slots : NULL;
	const uint8_t *cached = desc->abi_version == WPP_COUNT_DESC_CACHED ? desc->cached : NULL;
	for (uint32_t f = 0; f < desc->nfuncs; f++) {
		uint64_t fidw = fid_base == unregistered
				    ? unregistered
				    : fid_base + ((uint64_t)f << WPP_FID_SHIFT);
		/* a preferentially numbered function's slots are PPP ids */
		const uint64_t *path_of = tables ? tables[f] : NULL;
		uint64_t end = desc->first[f + 1];
		/* a path cache takes the range's last 2 * 2^cached[f] slots */
		if (cached && cached[f]) {
			uint64_t n = cached[f] < 40 ? UINT64_C(2) << cached[f] : UINT64_MAX;
			if (n > end - desc->first[f])
				continue; /* not a layout the pass makes */
			drain_cache(base, end - n, end, fidw, touched, touched_ctx, sink, arg);
			end -= n;
		}
		for (uint64_t s = desc->first[f]; s < end; s++) {
			/* pages never written hold no count: skip them unread
			 * (reading would map them) */
			if (touched && (s == desc->first[f] || s % RT_COUNT_PAGE_SLOTS == 0)) {
				const uint64_t *t = touched(touched_ctx, &base[s], &base[end]);
				if ((s = (uint64_t)(t - base)) >= end)
					break;
			}
			/* read first: an exchange would back every page of a
			 * sparse array the thread never touched */
			if (!base[s])
				continue;
			uint64_t k = s - desc->first[f], id = path_of ? path_of[k] : k;
			uint64_t c = __atomic_exchange_n(&base[s], 0, __ATOMIC_RELAXED);
			if (c && id != WPP_PPP_HOLE) /* a hole is never counted into */
				sink(fidw, id, c, arg);
		}
	}
}

void rt_count_encode(uint64_t fidw, uint64_t id, uint64_t count, rt_word_sink put, void *arg)
{
	uint32_t fid = wpp_word_fid(fidw);
	if (!count)
		return;
	uint64_t w[2] = {wpp_make_word(fid, id)};
	if (id <= WPP_PAYLOAD_MASK) {
		put(w, 1, arg);
	} else {
		w[0] = wpp_make_ctrl(WPP_CTRL_WIDE_PATH, fid);
		w[1] = id | WPP_WIDE_ID_MARK;
		put(w, 2, arg);
	}
	for (uint64_t more = count - 1; more;) {
		uint32_t n = more > WPP_REPEAT_MAX ? WPP_REPEAT_MAX : (uint32_t)more;
		w[0] = wpp_make_ctrl(WPP_CTRL_REPEAT, n);
		put(w, 1, arg);
		more -= n;
	}
}
