/* SPDX-License-Identifier: MIT */
/*
 * wpp_position_records.h — the map value both BPF objects keep per traced
 * thread: where its runtime keeps its record position, copied from the
 * thread's descriptor (user/runtime/wpp_position.h).  The counter programs
 * read it to attribute samples; the transport reads it to salvage a thread's
 * unpublished words when the thread ends.  Filled by the wpptrace:thread
 * probe, or by the collector for threads that registered before it attached
 * (user/bpfcollect/positions.c).
 */
#ifndef WPP_POSITION_RECORDS_H
#define WPP_POSITION_RECORDS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

struct wpp_bpf_position {
	__u32 pid;
	__u32 nlevels;
	__u64 cursor_addr;
	__u64 thread_addr;
	__u64 global_scratch;
	__u32 off_depth, off_next_seq;
	__u32 off_levels, level_size;
	__u32 off_lv_words, off_lv_seq;
	__u32 off_lv_cap, off_lv_scratch;
	__u32 off_discard, scratch_words;
	__u32 discard_words, slack_words;
	/* Descriptor version 2; 0 for an older runtime (then only the
	 * current level can be salvaged, and only at level 0). */
	__u32 off_lv_saved_cursor, off_lv_parent_off;
};

#endif
