/* SPDX-License-Identifier: MIT */
#include "record/record_sink.h"

#include <string.h>

#include "record/record_live_counts.h"
#include "record/record_online.h"
#include "wpp/wpp_file.h"

static int sink_process(void *ctx, const struct wpp_shm_proc *p)
{
	struct record_sink *rs = ctx;
	struct wpp_chunk_process c;
	char tail[WPP_SHM_EXE_MAX + WPP_SHM_CMDLINE_MAX];
	uint32_t exe_len = (uint32_t)strnlen(p->exe, WPP_SHM_EXE_MAX - 1) + 1;
	uint32_t cmd_len =
	    p->cmdline_len > WPP_SHM_CMDLINE_MAX ? WPP_SHM_CMDLINE_MAX : p->cmdline_len;

	memset(&c, 0, sizeof(c));
	c.pid = p->pid;
	c.ppid = p->ppid;
	c.parent_tid = p->parent_tid;
	c.flags = p->flags;
	c.generation = p->generation;
	c.exe_len = exe_len;
	c.time_ns = p->time_ns;
	c.cmdline_len = cmd_len;
	memcpy(tail, p->exe, exe_len - 1);
	tail[exe_len - 1] = 0;
	memcpy(tail + exe_len, p->cmdline, cmd_len);
	rs->processes++;
	if (rs->live_counts)
		record_live_counts_started(rs->live_counts, p->pid, p->generation);
	if (record_sink_flush(rs) < 0 ||
	    wppw_chunk2(rs->w, WPP_CHUNK_PROCESS, &c, sizeof(c), tail, exe_len + cmd_len) < 0)
		return -1;
	record_online_process(rs, &c);
	return 0;
}

/* Exec'd, the image drained its counts at the exec: a normal end. */
static void sink_process_end(void *ctx, const struct wpp_shm_proc *p, int execed)
{
	struct record_sink *rs = ctx;
	if (rs->live_counts)
		record_live_counts_ended(rs->live_counts, p->pid, p->generation,
					 execed ? 0 : RECORD_LIVE_STATUS_UNKNOWN);
}

static int sink_module(void *ctx, const struct wpp_shm_proc *p, const struct wpp_shm_tu *t)
{
	struct record_sink *rs = ctx;
	struct wpp_chunk_module c;
	uint32_t path_len = (uint32_t)strnlen(t->path, WPP_SHM_PATH_MAX - 1) + 1;
	char path[WPP_SHM_PATH_MAX];

	if (rs->live_counts)
		record_live_counts_module(rs->live_counts, p->pid, p->generation);
	memset(&c, 0, sizeof(c));
	c.pid = p->pid;
	c.generation = p->generation;
	c.fid_base = t->fid_base;
	c.nfuncs = t->nfuncs;
	c.tu_hash = t->tu_hash;
	c.meta_addr = t->meta_addr;
	c.load_bias = t->load_bias;
	c.build_id_len = t->build_id_len > 20 ? 20 : t->build_id_len;
	memcpy(c.build_id, t->build_id, c.build_id_len);
	c.path_len = path_len;
	memcpy(path, t->path, path_len - 1);
	path[path_len - 1] = 0;
	rs->modules++;
	if (record_sink_flush(rs) < 0 ||
	    wppw_chunk2(rs->w, WPP_CHUNK_MODULE, &c, sizeof(c), path, path_len) < 0)
		return -1;
	record_online_module(rs, &c, path);
	return 0;
}

static int sink_thread(void *ctx, const struct wpp_shm_proc *p, uint32_t tid, int event,
		       uint64_t time_ns)
{
	struct wpp_chunk_thread c = {p->pid, tid, (uint32_t)event, p->generation, time_ns};
	return record_sink_thread(ctx, &c);
}

static int sink_batch(void *ctx, const struct wpp_shm_proc *p, uint32_t tid,
		      const struct wpp_batch_hdr *h, const uint64_t *words, uint32_t nwords)
{
	struct wpp_chunk_batch c;

	memset(&c, 0, sizeof(c));
	c.pid = p->pid;
	c.tid = tid;
	c.seq = h->seq;
	c.parent_seq = h->parent_seq;
	c.parent_off = h->parent_off;
	c.flags = h->flags;
	c.time_ns = h->time_ns;
	c.generation = p->generation;
	c.nwords = nwords;
	struct record_sink *rs = ctx;
	if (rs->live_counts)
		record_live_counts_batch(rs->live_counts, &c);
	return record_sink_batch(rs, &c, words);
}

static int sink_gap(void *ctx, const struct wpp_shm_proc *p, uint32_t tid, uint64_t after_seq,
		    uint64_t lost_words)
{
	struct wpp_chunk_gap c = {p->pid, tid, after_seq, lost_words, 0};
	return record_sink_gap(ctx, &c);
}

/* After the output failed the program still runs to its end: its batches
 * are drained and dropped so that no producer waits forever. */
static int drop_process(void *ctx, const struct wpp_shm_proc *p)
{
	(void)ctx, (void)p;
	return 0;
}
static int drop_module(void *ctx, const struct wpp_shm_proc *p, const struct wpp_shm_tu *t)
{
	(void)ctx, (void)p, (void)t;
	return 0;
}
static int drop_thread(void *ctx, const struct wpp_shm_proc *p, uint32_t tid, int event,
		       uint64_t time_ns)
{
	(void)ctx, (void)p, (void)tid, (void)event, (void)time_ns;
	return 0;
}
static int drop_batch(void *ctx, const struct wpp_shm_proc *p, uint32_t tid,
		      const struct wpp_batch_hdr *h, const uint64_t *words, uint32_t nwords)
{
	(void)ctx, (void)p, (void)tid, (void)h, (void)words, (void)nwords;
	return 0;
}
static int drop_gap(void *ctx, const struct wpp_shm_proc *p, uint32_t tid, uint64_t after_seq,
		    uint64_t lost_words)
{
	(void)ctx, (void)p, (void)tid, (void)after_seq, (void)lost_words;
	return 0;
}

const struct wpp_shm_sink record_sink_drop = {NULL,	  drop_process, drop_module, drop_thread,
					      drop_batch, drop_gap,	NULL};

struct wpp_shm_sink record_sink_ops(struct record_sink *rs)
{
	struct wpp_shm_sink s = {rs,	     sink_process, sink_module,	    sink_thread,
				 sink_batch, sink_gap,	   sink_process_end};
	return s;
}
