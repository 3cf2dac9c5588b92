/* SPDX-License-Identifier: MIT */
/*
 * rt_position.c — publish where each thread keeps its cursor, so a sampling
 * BPF program can tell which path a thread was executing when a counter
 * overflowed (docs/counters.md).  The descriptor lives in the thread's own
 * TLS (no allocation, valid as long as the thread), and gives offsets
 * rather than a copied layout, so the runtime's internals stay free to
 * change.
 */
#include <stddef.h>
#include <string.h>

#include "runtime/rt_position.h"
#include "runtime/rt_usdt.h"
#include "runtime/wpp_position.h"

static __thread struct wpp_thread_position rt_position RT_TLS;

__attribute__((visibility("default"), used)) struct wpp_positions __wpp_positions = {
    .magic = WPP_POSITIONS_MAGIC,
    .version = WPP_POSITION_VERSION,
    .capacity = WPP_POSITIONS_CAPACITY,
};

/* wpptrace:thread desc (struct wpp_thread_position *) */
#define WPP_USDT_THREAD(desc)                                                                      \
	__asm__ __volatile__(WPP_USDT_NOTE("wpptrace", "thread", "8@%[a1]")                        \
			     :                                                                     \
			     : [a1] "r"(WPP_USDT_U64(desc))                                        \
			     : "memory")

/* Not inlined: one probe site. */
__attribute__((noinline)) static void position_announce(struct wpp_thread_position *p)
{
	WPP_USDT_THREAD(p);
}

/* One slot per descriptor address, claimed with a CAS: threads register
 * concurrently, and a signal handler may start a thread's recording. */
static void position_list(uint64_t addr)
{
	uint64_t *slots = __wpp_positions.slots;
	for (uint32_t i = 0; i < WPP_POSITIONS_CAPACITY; i++)
		if (__atomic_load_n(&slots[i], __ATOMIC_ACQUIRE) == addr)
			return;
	for (uint32_t i = 0; i < WPP_POSITIONS_CAPACITY; i++) {
		uint64_t empty = 0;
		if (__atomic_compare_exchange_n(&slots[i], &empty, addr, 0, __ATOMIC_RELEASE,
						__ATOMIC_RELAXED))
			return;
		if (empty == addr)
			return;
	}
	/* Full: this thread can still be sampled through the probe; only an
	 * attach mid-run misses it. */
}

void rt_position_register(struct rt_thread *t)
{
	struct wpp_thread_position *p = &rt_position;
	p->version = WPP_POSITION_VERSION;
	p->tid = t->tid;
	p->nlevels = RT_LEVELS;
	p->cursor_addr = (uint64_t)(uintptr_t)&__wpp_cursor;
	p->thread_addr = (uint64_t)(uintptr_t)t;
	p->global_scratch = (uint64_t)(uintptr_t)rt_global_scratch;
	p->off_depth = offsetof(struct rt_thread, depth);
	p->off_next_seq = offsetof(struct rt_thread, next_seq);
	p->off_levels = offsetof(struct rt_thread, lv);
	p->level_size = sizeof(struct rt_level);
	p->off_lv_words = offsetof(struct rt_level, words);
	p->off_lv_seq = offsetof(struct rt_level, seq);
	p->off_lv_cap = offsetof(struct rt_level, cap);
	p->off_lv_scratch = offsetof(struct rt_level, scratch);
	p->off_discard = offsetof(struct rt_thread, discard);
	p->scratch_words = RT_SCRATCH_WORDS;
	p->discard_words = sizeof(((struct rt_thread *)0)->discard) / sizeof(uint64_t);
	p->slack_words = WPP_SLACK_WORDS;
	p->off_lv_saved_cursor = offsetof(struct rt_level, saved_cursor);
	p->off_lv_parent_off = offsetof(struct rt_level, parent_off);
	/* magic last: a reader racing with the first registration sees either
	 * nothing or a complete descriptor. */
	__atomic_store_n(&p->magic, WPP_POSITION_MAGIC, __ATOMIC_RELEASE);
	position_list((uint64_t)(uintptr_t)p);
	position_announce(p);
}

void rt_position_save(struct wpp_thread_position *out)
{
	*out = rt_position;
}

void rt_position_restore(const struct wpp_thread_position *in)
{
	rt_position = *in;
}
