/* SPDX-License-Identifier: MIT */
/*
 * wpp_position.h — where a thread stands in its own record stream, readable
 * from outside the thread (a BPF program on a sampling event, or a collector
 * through /proc/PID/mem) without any cooperation at the moment of reading.
 *
 * libwpprt keeps, per thread, a descriptor (struct wpp_thread_position) in
 * the thread's TLS that gives the addresses of the thread's cursor
 * (__wpp_cursor) and of its runtime state, plus the offsets of the few
 * fields a reader needs inside that state.  The runtime's internal layout
 * may change between builds; a reader that follows the offsets does not
 * care.  The descriptor is announced
 *   - through the USDT probe wpptrace:thread(desc) when the thread starts
 *     recording (and again in a fork child), and
 *   - in the process-global list __wpp_positions (addresses of descriptors),
 *     for collectors that attach mid-run.
 *
 * How to read a position (everything little-endian x86-64):
 *   cursor  = *(u64 *)cursor_addr          next record goes here
 *   depth   = *(i32 *)(thread_addr + off_depth)   signal nesting level
 *   lv      = thread_addr + off_levels + depth * level_size
 *   words   = *(u64 *)(lv + off_lv_words)  open buffer or 0
 *   seq     = *(u64 *)(lv + off_lv_seq)    its batch seq, 0 = not numbered
 *   cap     = *(u32 *)(lv + off_lv_cap)
 *   scratch = lv + off_lv_scratch (scratch_words words; level 0 of a thread
 *             that has not opened its first buffer may use global_scratch)
 *   next    = *(u64 *)(thread_addr + off_next_seq)   last seq handed out
 *
 *   words && words <= cursor <= words + cap + slack  -> record (cursor-words)/8 of batch seq
 *   cursor in scratch, seq != 0  -> record (cursor-scratch)/8 of batch seq (numbered, not open)
 *   cursor in scratch, seq == 0  -> record (cursor-scratch)/8 of the first batch of this
 *                                   depth numbered after `next`
 *   cursor in the discard area    -> not recorded
 *   anything else                 -> the thread is inside the runtime's buffer switch
 *
 * Version 2 adds what a reader needs to recover the levels a signal handler
 * interrupted (the transport salvages them when the thread ends inside the
 * handler: exec or _exit there, or a fatal signal):
 *   for a level l < depth, its cursor is the one saved when level l + 1 was
 *   entered:  *(u64 *)(lv(l + 1) + off_lv_saved_cursor)
 *   a signal level's batch is spliced at word
 *             *(u64 *)(lv + off_lv_parent_off) of level l - 1's batch.
 *
 * A path's record is written at the cursor when the path ends, and the
 * cursor is exact at every record (trace_abi.h), so the record that lands
 * at the position read is the one of the path executing when it was read.
 */
#ifndef WPP_RT_POSITION_H
#define WPP_RT_POSITION_H

#include <stdint.h>

#define WPP_POSITION_MAGIC     0x534f5057u /* "WPOS" */
#define WPP_POSITION_VERSION   2u
#define WPP_POSITIONS_SYMBOL   "__wpp_positions"
#define WPP_POSITIONS_MAGIC    "WPPPOS\0\0"
#define WPP_POSITIONS_CAPACITY 4096u

struct wpp_thread_position {
	uint32_t magic;		 /* WPP_POSITION_MAGIC */
	uint32_t version;	 /* WPP_POSITION_VERSION */
	uint32_t tid;		 /* the thread this describes (updated in fork children) */
	uint32_t nlevels;	 /* levels in the state: depth is < nlevels */
	uint64_t cursor_addr;	 /* &__wpp_cursor of this thread */
	uint64_t thread_addr;	 /* the thread's runtime state */
	uint64_t global_scratch; /* shared scratch of threads not yet started */
	uint32_t off_depth, off_next_seq;
	uint32_t off_levels, level_size;
	uint32_t off_lv_words, off_lv_seq;
	uint32_t off_lv_cap, off_lv_scratch;
	uint32_t off_discard, scratch_words;
	uint32_t discard_words; /* including slack */
	uint32_t slack_words;	/* owned words past a buffer's cap */
	/* version 2 */
	uint32_t off_lv_saved_cursor; /* the interrupted level's cursor (u64 *) */
	uint32_t off_lv_parent_off;   /* where the level's batch splices (u64) */
};

/* At symbol __wpp_positions.  slots[i] is the address of a thread's
 * descriptor or 0; a slot is claimed once per descriptor address (a thread
 * whose TLS block is reused by a later thread keeps its slot), so stale
 * entries exist: a reader checks magic and that the tid is alive. */
struct wpp_positions {
	char magic[8];	   /* WPP_POSITIONS_MAGIC */
	uint32_t version;  /* WPP_POSITION_VERSION */
	uint32_t capacity; /* WPP_POSITIONS_CAPACITY */
	uint64_t slots[WPP_POSITIONS_CAPACITY];
};

#endif
