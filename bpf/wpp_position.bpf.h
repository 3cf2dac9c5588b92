/* SPDX-License-Identifier: MIT */
/*
 * wpp_position.bpf.h — BPF side of the thread position descriptor
 * (user/runtime/wpp_position.h): read one from the traced thread's memory
 * into the map value both BPF objects keep (wpp_position_records.h).
 * Included by the BPF programs only, after vmlinux.h and bpf_helpers.h.
 */
#ifndef WPP_POSITION_BPF_H
#define WPP_POSITION_BPF_H

#include "bpf/wpp_position_records.h"

#define POSITION_MAGIC 0x534f5057u /* WPP_POSITION_MAGIC */
/* Levels a reader follows at most (the runtime has 5). */
#define POSITION_MAX_LEVELS 16

/* Where each registered thread keeps its record position, by tid.  The
 * transport's; the counters' object reuses it (the loader), so one probe
 * fills it and the transport alone forgets a thread (after salvaging it). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1 << 16);
	__type(key, __u32);
	__type(value, struct wpp_bpf_position);
} positions SEC(".maps");

/* The descriptor as the runtime lays it out (wpp_position.h). */
struct thread_position {
	__u32 magic, version, tid, nlevels;
	__u64 cursor_addr, thread_addr, global_scratch;
	__u32 off_depth, off_next_seq, off_levels, level_size;
	__u32 off_lv_words, off_lv_seq, off_lv_cap, off_lv_scratch;
	__u32 off_discard, scratch_words, discard_words, slack_words;
	/* version 2 */
	__u32 off_lv_saved_cursor, off_lv_parent_off;
};

/* 0 and *p filled from the descriptor at desc, or -1 if it is unreadable
 * or not one.  A version 1 descriptor is shorter: its version 2 fields
 * are left 0. */
static __always_inline int position_read(const void *desc, __u32 pid, struct wpp_bpf_position *p)
{
	struct thread_position d = {};

	if (bpf_probe_read_user(&d, offsetof(struct thread_position, off_lv_saved_cursor), desc) ||
	    d.magic != POSITION_MAGIC || d.nlevels == 0 || d.nlevels > POSITION_MAX_LEVELS)
		return -1;
	if (d.version >= 2 &&
	    bpf_probe_read_user(&d.off_lv_saved_cursor, 8,
				(const char *)desc +
				    offsetof(struct thread_position, off_lv_saved_cursor)))
		return -1;
	p->pid = pid;
	p->nlevels = d.nlevels;
	p->cursor_addr = d.cursor_addr;
	p->thread_addr = d.thread_addr;
	p->global_scratch = d.global_scratch;
	p->off_depth = d.off_depth;
	p->off_next_seq = d.off_next_seq;
	p->off_levels = d.off_levels;
	p->level_size = d.level_size;
	p->off_lv_words = d.off_lv_words;
	p->off_lv_seq = d.off_lv_seq;
	p->off_lv_cap = d.off_lv_cap;
	p->off_lv_scratch = d.off_lv_scratch;
	p->off_discard = d.off_discard;
	p->scratch_words = d.scratch_words;
	p->discard_words = d.discard_words;
	p->slack_words = d.slack_words;
	p->off_lv_saved_cursor = d.off_lv_saved_cursor;
	p->off_lv_parent_off = d.off_lv_parent_off;
	return 0;
}

/* p within the n words from base (one past the end included: a cursor). */
static __always_inline int in_words(__u64 p, __u64 base, __u64 nwords)
{
	return p >= base && p <= base + nwords * 8;
}

#endif
