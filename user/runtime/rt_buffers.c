/* SPDX-License-Identifier: MIT */
/*
 * rt_buffers.c — the per-thread record buffers and __wpp_flush().
 *
 * Instrumented code stores its words at __wpp_cursor, advances the cursor,
 * and calls __wpp_flush() once the cursor reaches __wpp_limit.  Everything
 * slow (opening a buffer, publishing one, noticing a handler that longjmp'd
 * away) happens here, once per batch.
 *
 * Instrumented functions keep the cursor in a register between calls (they
 * reload it after every call, this one included), so the runtime moves
 * __wpp_cursor only from inside a call: here, in __wpp_flush_all, or in the
 * signal trampoline for the handler's own level, which it restores before
 * returning.  What it may change asynchronously is __wpp_limit: lowering it
 * makes the next record call __wpp_flush (see level_arm_limit).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "runtime/rt_count.h"
#include "runtime/rt_internal.h"
#include "runtime/rt_position.h"
#include "runtime/rt_usdt.h"
#include "wpp/trace_abi.h"
#include "wpp/wpp_file.h"

/* Before the runtime has seen a thread, its pointers address this shared
 * scratch area, so the very first record is always in owned memory and
 * always reaches __wpp_flush() (cursor >= limit).  Threads started through
 * pthread_create get their own scratch at once (rt_lifecycle.c). */
uint64_t rt_global_scratch[RT_SCRATCH_WORDS];

/* __wpp_cursor and __wpp_limit, adjacent in that order (WPP_LIMIT_OFFSET):
 * instrumented code reaches both through the one TLS offset of
 * __wpp_cursor.  C cannot place two __thread variables next to each other,
 * so they are laid out here; both start at the global scratch area. */
#define RT_TLS_WORD(name)                                                                          \
	"\t.globl " name "\n\t.type " name ", @object\n\t.size " name ", 8\n" name                 \
	":\n\t.quad rt_global_scratch\n"
__asm__(".pushsection .tdata,\"awT\",@progbits\n\t.balign 16\n" RT_TLS_WORD(WPP_SYM_CURSOR)
	    RT_TLS_WORD(WPP_SYM_LIMIT) ".popsection\n");
_Static_assert(WPP_LIMIT_OFFSET == 8, "RT_TLS_WORD lays out 8-byte words");
__thread struct rt_thread rt_self RT_TLS;

static int in_range(const uint64_t *p, const uint64_t *base, unsigned n)
{
	return p >= base && p <= base + n;
}

/* The scratch area the level's cursor is in (its own, or for level 0 the
 * global one a fresh thread starts with). */
static uint64_t *scratch_of(struct rt_thread *t, int level, uint64_t *cursor)
{
	if (level == 0 && in_range(cursor, rt_global_scratch, RT_SCRATCH_WORDS))
		return rt_global_scratch;
	return t->lv[level].scratch;
}

uint64_t rt_level_offset(struct rt_thread *t, int level, uint64_t *cursor)
{
	struct rt_level *lv = &t->lv[level];
	return (uint64_t)(cursor - (lv->words ? lv->words : scratch_of(t, level, cursor)));
}

static void to_discard(struct rt_thread *t)
{
	__wpp_cursor = t->discard;
	__wpp_limit = t->discard + RT_DISCARD_WORDS;
}

/* The discard sink is rewound at every flush, never left behind: a cursor
 * only ever moves from its start to at most its limit plus one record, so
 * recording into it is memory-safe however long it goes on.  Words dropped
 * there by a live thread are counted as lost. */
static void sink_rewind(struct rt_thread *t, const uint64_t *cur)
{
	if (t->state == RT_T_LIVE && cur > t->discard &&
	    in_range(cur, t->discard, RT_DISCARD_WORDS + WPP_SLACK_WORDS))
		rt_transport->lost(t, (uint64_t)(cur - t->discard));
	to_discard(t);
}

/* The level could get no buffer (the collector is gone, memory ran out, the
 * region is broken): it records into the sink from now on, and its flushes
 * only rewind it.  For good: asking the transport again would cost every
 * flush another failed wait or mmap.  `dropped` words it held are lost. */
static void level_sink(struct rt_thread *t, int level, uint64_t dropped)
{
	t->lv[level].sunk = 1;
	if (dropped)
		rt_transport->lost(t, dropped);
	to_discard(t);
}

/* Number the level's next buffer.  The counter is bumped with one atomic
 * instruction, so a signal handler numbering its own buffer in between
 * cannot produce a duplicate. */
static uint64_t level_seq(struct rt_thread *t, struct rt_level *lv)
{
	if (!lv->seq)
		lv->seq = __atomic_add_fetch(&t->next_seq, 1, __ATOMIC_RELAXED);
	return lv->seq;
}

/* Open a buffer for level and copy the n words waiting in scratch into it. */
static int level_open(struct rt_thread *t, int level, const uint64_t *scratch, uint64_t n)
{
	struct rt_level *lv = &t->lv[level];
	struct wpp_batch_hdr *h;
	struct rt_buf b;

	if (rt_transport->buf_begin(t, level, &b) < 0)
		return -1;
	h = b.hdr;
	h->seq = level_seq(t, lv);
	h->level = (uint32_t)level;
	h->pid = rt_process_self()->pid;
	h->tid = t->tid;
	h->generation = rt_process_self()->generation;
	if (level > 0) {
		/* The interrupted level may still be in its scratch: give it
		 * its number now so this batch can name it as parent. */
		struct rt_level *parent = &t->lv[level - 1];
		h->parent_seq = level_seq(t, parent);
		parent->pinned = 1;
		h->parent_off = (uint32_t)lv->parent_off;
		h->flags = WPP_BATCH_SIGNAL;
	}
	lv->hdr = h;
	lv->words = b.words;
	lv->cap = b.cap;
	memcpy(lv->words, scratch, n * 8);
	__wpp_cursor = lv->words + n;
	__wpp_limit = lv->words + lv->cap;
	return 0;
}

/* Not inlined: one probe site per library keeps the BPF attach simple. */
__attribute__((noinline)) static void level_publish(struct rt_thread *t, int level, uint64_t nwords,
						    uint32_t extra_flags)
{
	struct rt_level *lv = &t->lv[level];
	struct wpp_batch_hdr *h = lv->hdr;
	struct rt_buf b = {h, lv->words, lv->cap};

	h->nwords = (uint32_t)nwords;
	h->flags |= extra_flags;
	h->time_ns = rt_now_ns();
	/* The stable probe point for the BPF transport: the header sits
	 * immediately before the words. */
	WPP_USDT_BATCH(lv->words, nwords, h->seq, h->flags, h->parent_seq, h->parent_off,
		       h->generation);
	rt_transport->buf_publish(t, level, &b);
	lv->hdr = NULL;
	lv->words = NULL;
	lv->seq = 0;
	lv->pinned = 0;
}

void rt_level_finish(struct rt_thread *t, int level, uint32_t extra_flags)
{
	struct rt_level *lv = &t->lv[level];
	uint64_t *cur = __wpp_cursor;

	if (t->state != RT_T_LIVE)
		return;
	if (lv->sunk) {
		sink_rewind(t, cur);
		return;
	}
	if (!lv->words) {
		uint64_t *s = scratch_of(t, level, cur);
		uint64_t n = (uint64_t)(cur - s);
		if (n == 0 && !lv->pinned)
			return;
		if (n > RT_SCRATCH_WORDS || level_open(t, level, s, n) < 0) {
			memset(s, 0, sizeof(uint64_t) * RT_SCRATCH_WORDS);
			level_sink(t, level, n > RT_SCRATCH_WORDS ? 0 : n);
			return;
		}
		memset(s, 0, sizeof(uint64_t) * RT_SCRATCH_WORDS);
		cur = __wpp_cursor;
	}
	level_publish(t, level, (uint64_t)(cur - lv->words), extra_flags);
	__wpp_cursor = __wpp_limit = lv->scratch;
}

/* Is the handler of signal level lv still on the stack, seen from sp? */
int rt_level_abandoned(const struct rt_level *lv, uintptr_t sp)
{
	if (lv->alt_hi) {
		if (sp < lv->alt_lo || sp >= lv->alt_hi)
			return 1;
		return sp > lv->entry_sp;
	}
	return sp > lv->entry_sp;
}

void rt_unwind(struct rt_thread *t, uintptr_t sp, int force)
{
	while (t->depth > 0 && (force || rt_level_abandoned(&t->lv[t->depth], sp))) {
		struct rt_level *lv = &t->lv[t->depth];
		/* The handler left by longjmp; whatever ran since went into its
		 * buffer, which is exactly where it belongs in time.  Close it
		 * and let the interrupted level continue after it. */
		rt_level_finish(t, t->depth, 0);
		__wpp_cursor = lv->saved_cursor;
		__wpp_limit = lv->saved_limit;
		t->depth--;
	}
}

void rt_thread_shared(void)
{
	static unsigned shared; /* such clones in this process */
	struct rt_thread *t = &rt_self;
	unsigned n = __atomic_add_fetch(&shared, 1, __ATOMIC_RELAXED);
	char line[256];

	if (t->state == RT_T_LIVE) {
		/* Its current level is published and the stream closed; levels
		 * below a running handler (a clone from a handler) are not. */
		rt_level_finish(t, t->depth, WPP_BATCH_FINAL);
		rt_transport->thread_close(t, 1);
		t->state = RT_T_DISCARD;
	}
	/* From here on both tasks record into the thread's sink, rewound at
	 * every flush: memory-safe however they interleave. */
	to_discard(t);
	snprintf(line, sizeof(line),
		 "clone(CLONE_VM) without a TLS of its own shares thread %u's trace buffer with a "
		 "concurrent child: that thread is no longer traced (%u such clones in pid %u)",
		 t->tid ? t->tid : rt_gettid(), n, rt_process_self()->pid);
	rt_say(line, "");
}

/* Every open buffer belongs to the parent process: drop them. */
static void thread_forget(struct rt_thread *t)
{
	for (int l = 0; l <= t->depth && l < RT_LEVELS; l++) {
		struct rt_level *lv = &t->lv[l];
		lv->hdr = NULL;
		lv->words = NULL;
		lv->seq = 0;
		lv->pinned = 0;
		lv->parent_off = 0;
		lv->parent_abandoned = 0;
		lv->sunk = 0;
		memset(lv->scratch, 0, sizeof(lv->scratch));
		if (l > 0)
			lv->saved_cursor = lv->saved_limit = t->lv[l - 1].scratch;
	}
	t->next_seq = 0;
	for (int l = 0; l < RT_LEVELS; l++)
		t->lv[l].sunk = 0; /* the child asks its transport anew */
	if (t->depth < RT_LEVELS)
		__wpp_cursor = __wpp_limit = t->lv[t->depth].scratch;
}

void rt_thread_restart(struct rt_thread *t, int shares_parent_memory)
{
	if (t->state != RT_T_LIVE && t->state != RT_T_DONE)
		return;
	thread_forget(t);
	if (shares_parent_memory) {
		/* The parent's private buffers stay the parent's; the child
		 * records from level 0 into buffers of its own. */
		memset(t->private_buf, 0, sizeof(t->private_buf));
		t->depth = 0;
		__wpp_cursor = __wpp_limit = t->lv[0].scratch;
	}
	t->state = RT_T_NEW;
	t->transport = NULL;
	t->exit_rounds = 0;
	t->overflow = 0;
	rt_thread_start(t);
}

void rt_thread_start(struct rt_thread *t)
{
	rt_init();
	if (t->state != RT_T_NEW)
		return;
	t->tid = rt_gettid();
	t->state = rt_transport->thread_open(t) < 0 ? RT_T_DISCARD : RT_T_LIVE;
	if (t->state == RT_T_LIVE) {
		rt_thread_arm_exit(t);
		rt_position_register(t); /* for samplers (rt_position.c) */
	}
}

/* A running handler whose interrupted level had been left by longjmp
 * (rt_signal.c): that level can only be popped from a flush of the code
 * that runs there, which keeps its cursor in a register meanwhile. */
static int unwind_pending(const struct rt_thread *t)
{
	for (int l = 1; l <= t->depth && l < RT_LEVELS; l++)
		if (t->lv[l].parent_abandoned)
			return 1;
	return 0;
}

/* The limit for the current level's open buffer: its end, or while a pop
 * is pending the cursor itself, so that every record comes back here and
 * the abandoned levels are popped as soon as the code after the longjmp
 * records (a handler running meanwhile pays one call per record). */
static void level_arm_limit(struct rt_thread *t)
{
	struct rt_level *lv = &t->lv[t->depth];
	if (lv->words)
		__wpp_limit = unwind_pending(t) ? __wpp_cursor : lv->words + lv->cap;
}

/* The entry of the record calls (__wpp_flush, __wpp_reserve): a new
 * thread starts; a thread that does not record (not live, or overflowed)
 * rewinds its discard sink, and 0 says there is nothing more to do; else
 * levels a longjmp abandoned below frame (the caller's) are popped. */
static inline __attribute__((always_inline)) int record_call_enter(struct rt_thread *t,
								   uintptr_t frame)
{
	if (t->state == RT_T_NEW)
		rt_thread_start(t);
	if (t->state != RT_T_LIVE || t->overflow) {
		sink_rewind(t, __wpp_cursor);
		return 0;
	}
	rt_unwind(t, frame, 0);
	return 1;
}

/* The current level recorded its first words (up to cur) into its scratch
 * area before it had a buffer: open one holding them (maybe none), or sink
 * the level when no buffer is to be had.  cur beyond the scratch area
 * cannot happen; if it ever did, the sink keeps the cursor in memory we
 * own. */
static void level_open_from_scratch(struct rt_thread *t, uint64_t *cur)
{
	uint64_t *s = scratch_of(t, t->depth, cur);
	uint64_t n = (uint64_t)(cur - s);

	if (n > RT_SCRATCH_WORDS) {
		level_sink(t, t->depth, 0);
		return;
	}
	int opened = level_open(t, t->depth, s, n) == 0;
	memset(s, 0, sizeof(uint64_t) * RT_SCRATCH_WORDS);
	if (!opened)
		level_sink(t, t->depth, n);
}

/* preserve_most: the record's cold call costs the hot code no spilled or
 * callee-saved registers (trace_abi.h).  Callers built for the C
 * convention are served as well: this one saves more, not less. */
__attribute__((noinline, used, visibility("default"), preserve_most)) void __wpp_flush(void)
{
	struct rt_thread *t = &rt_self;
	int saved_errno = errno;
	uint64_t *cur;
	struct rt_level *lv;

	/* Keep this a real call the compiler cannot fold into callers. */
	__asm__ volatile("" ::: "memory");
	if (!record_call_enter(t, (uintptr_t)__builtin_frame_address(0))) {
		errno = saved_errno;
		return;
	}
	lv = &t->lv[t->depth];
	cur = __wpp_cursor;
	if (lv->sunk) {
		sink_rewind(t, cur);
	} else if (!lv->words) {
		if (cur != scratch_of(t, t->depth, cur)) /* else nothing recorded yet */
			level_open_from_scratch(t, cur);
	} else if (cur >= lv->words + lv->cap) {
		level_publish(t, t->depth, (uint64_t)(cur - lv->words), 0);
		__wpp_cursor = __wpp_limit = lv->scratch;
	}
	level_arm_limit(t);
	errno = saved_errno;
}

/*
 * A WET path start found less than nwords of room before the limit
 * (wet_abi.h): the record it is about to build must fit the memory it
 * writes, whole.  Publish the open buffer if the record would pass its
 * end, open one (with the level's scratch words, maybe none) if the level
 * has none, and fall back to the discard sink when no buffer can hold it
 * (no buffer to be had, or buffers smaller than one record: counted as
 * lost there).  The limit is re-armed as __wpp_flush does; lowering it
 * asynchronously still only makes the next record come here.
 */
__attribute__((noinline, used, visibility("default"), preserve_most)) void
__wpp_reserve(uint64_t nwords)
{
	struct rt_thread *t = &rt_self;
	int saved_errno = errno;
	struct rt_level *lv;
	uint64_t *cur;

	__asm__ volatile("" ::: "memory");
	if (nwords > RT_DISCARD_WORDS)
		nwords = RT_DISCARD_WORDS; /* the pass never asks for more */
	if (!record_call_enter(t, (uintptr_t)__builtin_frame_address(0))) {
		errno = saved_errno;
		return;
	}
	lv = &t->lv[t->depth];
	cur = __wpp_cursor;
	if (!lv->sunk && lv->words && (uint64_t)(lv->words + lv->cap - cur) < nwords) {
		level_publish(t, t->depth, (uint64_t)(cur - lv->words), 0);
		__wpp_cursor = __wpp_limit = cur = lv->scratch;
	}
	if (!lv->sunk && !lv->words)
		level_open_from_scratch(t, cur);
	if (!lv->sunk && lv->words && (uint64_t)(lv->words + lv->cap - __wpp_cursor) < nwords) {
		/* A buffer smaller than one record (WPP_BUFFER_WORDS): what it
		 * holds is published, the level's records are lost from here. */
		level_publish(t, t->depth, (uint64_t)(__wpp_cursor - lv->words), 0);
		level_sink(t, t->depth, 0);
	}
	if (lv->sunk)
		sink_rewind(t, __wpp_cursor);
	level_arm_limit(t);
	errno = saved_errno;
}

/* Interrupted levels that recorded nothing since their last batch but were
 * numbered as a handler batch's parent (a process forked inside a handler
 * forgets the parent's buffers, so its level 0 is such a level): nothing
 * would ever publish them if the handler ends the image, leaving the
 * handler's batch without its parent.  They are published empty now, which
 * is safe even if the exec fails and the handler returns: the level's
 * cursor is at its scratch start, so its next record opens a new batch.  A
 * level with words (in a buffer or its scratch) is left alone: its code
 * holds a cursor past them.  The thread's cursor is the handler's, and is
 * kept. */
static void publish_empty_parents(struct rt_thread *t)
{
	uint64_t *cursor = __wpp_cursor, *limit = __wpp_limit;

	for (int l = t->depth - 1; l >= 0; l--) {
		struct rt_level *lv = &t->lv[l];
		uint64_t *end = t->lv[l + 1].saved_cursor;
		if (!lv->pinned || lv->words || end != scratch_of(t, l, end))
			continue;
		__wpp_cursor = end;
		rt_level_finish(t, l, 0); /* may pin the level below: next */
	}
	__wpp_cursor = cursor;
	__wpp_limit = limit;
}

__attribute__((noinline, used, visibility("default"))) void __wpp_flush_all(void)
{
	struct rt_thread *t = &rt_self;
	int saved_errno = errno;

	__asm__ volatile("" ::: "memory");
	/* The image ends: every thread's path counts, while they exist. */
	rt_count_process_end();
	if (t->state == RT_T_NEW)
		rt_thread_start(t);
	if (t->state == RT_T_LIVE && !t->overflow) {
		rt_unwind(t, (uintptr_t)__builtin_frame_address(0), 0);
		/* Levels below a running handler may be mid-record, so only the
		 * current level is published; lower ones stay in place (the
		 * transports salvage them if the call ends the image). */
		rt_level_finish(t, t->depth, 0);
		publish_empty_parents(t);
	}
	errno = saved_errno;
}
