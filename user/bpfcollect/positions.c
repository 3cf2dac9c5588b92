/* SPDX-License-Identifier: MIT */
/* positions.c — see positions.h. */
#include "bpfcollect/positions.h"

#include <bpf/bpf.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpfcollect/detach_take.h"
#include "bpfcollect/elfinfo.h"
#include "bpfcollect/procinfo.h"
#include "runtime/wpp_position.h"
#include "bpf/wpp_position_records.h"

_Static_assert(WPP_POSITION_VERSION == 2, "positions.c reads descriptor versions 1 and 2");

/* 0 and *p filled, or -1 if d is not a descriptor. */
static int position_from_desc(const struct wpp_thread_position *d, uint32_t pid,
			      struct wpp_bpf_position *p)
{
	if (d->magic != WPP_POSITION_MAGIC || d->nlevels == 0 || d->nlevels > 16)
		return -1;
	*p = (struct wpp_bpf_position){
	    .pid = pid,
	    .nlevels = d->nlevels,
	    .cursor_addr = d->cursor_addr,
	    .thread_addr = d->thread_addr,
	    .global_scratch = d->global_scratch,
	    .off_depth = d->off_depth,
	    .off_next_seq = d->off_next_seq,
	    .off_levels = d->off_levels,
	    .level_size = d->level_size,
	    .off_lv_words = d->off_lv_words,
	    .off_lv_seq = d->off_lv_seq,
	    .off_lv_cap = d->off_lv_cap,
	    .off_lv_scratch = d->off_lv_scratch,
	    .off_discard = d->off_discard,
	    .scratch_words = d->scratch_words,
	    .discard_words = d->discard_words,
	    .slack_words = d->slack_words,
	};
	if (d->version >= 2) {
		p->off_lv_saved_cursor = d->off_lv_saved_cursor;
		p->off_lv_parent_off = d->off_lv_parent_off;
	}
	return 0;
}

struct catch_up {
	uint32_t pid;
	int map_fd;
	int added;
	positions_mark_fn *on_mark;
	void *ctx;
};

static void catch_up_object(const char *path, uint64_t map_base, void *arg)
{
	struct catch_up *cu = arg;
	struct elf_facts f;
	char mem[64];
	int fd;

	if (elf_facts_read(path, &f) != 0 || !f.positions_vaddr)
		return;
	uint64_t addr = (f.is_dyn ? map_base - f.first_load_vaddr : 0) + f.positions_vaddr;
	snprintf(mem, sizeof(mem), "/proc/%u/mem", cu->pid);
	if ((fd = open(mem, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	struct wpp_positions *list = malloc(sizeof(*list));
	if (list && pread(fd, list, sizeof(*list), (off_t)addr) == (ssize_t)sizeof(*list) &&
	    memcmp(list->magic, WPP_POSITIONS_MAGIC, 8) == 0 &&
	    list->capacity <= WPP_POSITIONS_CAPACITY) {
		for (uint32_t i = 0; i < list->capacity; i++) {
			/* Version 1 descriptors are shorter: read what is there. */
			struct wpp_thread_position d = {0};
			struct wpp_bpf_position p;
			char task[64];
			size_t v1 = offsetof(struct wpp_thread_position, off_lv_saved_cursor);
			ssize_t got =
			    list->slots[i] ? pread(fd, &d, sizeof(d), (off_t)list->slots[i]) : 0;
			if (got < (ssize_t)v1 || (d.version >= 2 && got < (ssize_t)sizeof(d)) ||
			    position_from_desc(&d, cu->pid, &p))
				continue;
			/* Stale slots name threads that are gone (or a reused TLS
			 * block whose new owner registered the same address). */
			snprintf(task, sizeof(task), "/proc/%u/task/%u", cu->pid, d.tid);
			if (access(task, F_OK) != 0)
				continue;
			uint32_t tid = d.tid;
			struct detach_taken mark;
			if (cu->on_mark && detach_take_mark(fd, &p, tid, &mark))
				cu->on_mark(cu->ctx, &mark);
			if (bpf_map_update_elem(cu->map_fd, &tid, &p, BPF_NOEXIST) == 0)
				cu->added++;
		}
	}
	free(list);
	close(fd);
}

int positions_catch_up(uint32_t pid, int map_fd, positions_mark_fn *on_mark, void *ctx)
{
	struct catch_up cu = {pid, map_fd, 0, on_mark, ctx};
	proc_each_object_base((pid_t)pid, catch_up_object, &cu);
	return cu.added;
}
